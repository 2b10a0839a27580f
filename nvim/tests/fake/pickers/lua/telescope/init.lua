-- Minimal stand-ins for the telescope, snacks and fzf-lua calls that
-- rx_bridge.picker makes, driven by _G.fake_picker = {choose = {...} | false}.
return {}

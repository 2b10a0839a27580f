-- The native multiselect pickers, against stand-ins of their APIs
-- (tests/fake/pickers): chosen options come back in option order, a
-- dismissal is nil, and on_done is called once.
local T = require("tests.helpers")

vim.opt.rtp:append(T.nvim_dir .. "/tests/fake/pickers")
T.setup()

local picker = require("rx_bridge.picker")

local function run(name, choose)
  require("rx_bridge.config").values.picker = name
  _G.fake_picker = { choose = choose }
  local calls = {}
  picker.multiselect({ "a", "b", "c" }, { prompt = "Tags", selected = {} }, function(v)
    calls[#calls + 1] = v == nil and "dismissed" or v
  end)
  T.wait(function() return #calls > 0 end, "the picker's answer")
  -- fzf-lua's dismissal check runs 200 ms after its window closes.
  vim.wait(250)
  return calls
end

for _, name in ipairs({ "telescope", "snacks", "fzf-lua" }) do
  T.test(name .. ": choices in option order, a dismissal once", function()
    require("rx_bridge.config").values.picker = name
    local _, resolved = picker.resolve()
    T.eq(name, resolved)
    T.eq({ { "a", "c" } }, run(name, { "c", "a" }))
    T.eq({ "dismissed" }, run(name, false))
  end)
end

T.test("auto prefers telescope when it is installed", function()
  require("rx_bridge.config").values.picker = "auto"
  local _, resolved = picker.resolve()
  T.eq("telescope", resolved)
end)

T.run()

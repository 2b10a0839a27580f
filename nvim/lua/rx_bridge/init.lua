-- rx_bridge.nvim: Reasonix plugins in Neovim through `rx-bridge serve`.
-- See :help rx_bridge. The bridge speaks LSP plus an rx/ namespace
-- (docs/EDITOR_PROTOCOL.md); this plugin renders what plugins ask and show
-- with Neovim's own UI and never runs anything a plugin sends.
local M = {}

local did_setup = false

--- Configures the plugin and installs its autocommands. Calling it again
--- replaces the configuration (running bridges keep theirs until restarted).
function M.setup(opts)
  local config = require("rx_bridge.config")
  local ok, err = config.set(opts)
  if not ok then
    vim.notify("rx-bridge: " .. require("rx_bridge.i18n").t("init.invalid_option", tostring(err)), vim.log.levels.ERROR)
    return false
  end
  did_setup = true
  require("rx_bridge.client").setup()
  return true
end

--- After :RxInstall: re-reads which program to start (on 0.11+ the
--- vim.lsp.config entry holds it) and attaches the open buffers, if setup() ran.
function M.refresh()
  if did_setup then
    require("rx_bridge.client").setup()
  end
end

--- setup() with defaults, unless it ran.
function M.ensure_setup()
  if not did_setup then
    M.setup({})
  end
end

--- Statusline text of every plugin status item, "%"-escaped (see :help
--- rx_bridge.status()).
function M.status(opts)
  return require("rx_bridge.status").format(opts)
end

--- The status items as tables {plugin, surface_id, label, detail, severity, progress, ...}.
function M.status_items()
  return require("rx_bridge.status").items()
end

--- Starts (or finds) the bridge of the current buffer's root; returns the client.
function M.start(root)
  M.ensure_setup()
  return require("rx_bridge.client").ensure(root)
end

function M.run_action(name, args)
  M.ensure_setup()
  require("rx_bridge.actions").run(name, args)
end

function M.actions()
  M.ensure_setup()
  require("rx_bridge.actions").pick()
end

function M.reload()
  M.ensure_setup()
  require("rx_bridge.actions").reload()
end

function M.chat(model)
  M.ensure_setup()
  require("rx_bridge.chat").open(model)
end

return M

-- Starting and finding `rx-bridge serve`: one LSP client per workspace
-- root, with the rx/ capabilities and handlers. On Neovim 0.11+ file
-- buffers attach through vim.lsp.config/vim.lsp.enable; on 0.10 through
-- vim.lsp.start from our own autocommands.
local compat = require("rx_bridge.compat")
local config = require("rx_bridge.config")
local log = require("rx_bridge.log")
local paths = require("rx_bridge.paths")
local state = require("rx_bridge.state")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

M.NAME = "rx_bridge"
-- The editor protocol version (experimental.rxBridge.version) this client speaks.
M.PROTOCOL_VERSION = 1


--- The workspace root for a buffer: config.root_dir(bufnr), else the nearest
--- ancestor with a root marker, else the current directory (or, for a file
--- outside it, the file's directory).
function M.root_for(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if config.values.root_dir then
    local r = config.values.root_dir(bufnr)
    if type(r) == "string" and r ~= "" then
      return paths.real(r)
    end
  end
  local cwd = paths.real(vim.fn.getcwd())
  local name = vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_get_name(bufnr) or ""
  local is_file = name ~= "" and vim.bo[bufnr].buftype == ""
  local start = is_file and (paths.parent(paths.real(name)) or cwd) or cwd
  local found = paths.find_root(start, config.values.root_markers)
  if found then
    return paths.real(found)
  end
  if is_file and not paths.is_under(start, cwd) then
    return start
  end
  return cwd
end

function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  ---@type rx.ClientCapabilities
  local rx = {
    version = M.PROTOCOL_VERSION,
    ui = {
      select = true,
      multiselect = true,
      input = true,
      confirm = true,
      form = true,
      notification = true,
      status = true,
      card = true,
    },
    sessionUpdates = true,
    lmChat = false,
    reviewEdits = true,
  }
  return vim.tbl_deep_extend("force", caps, {
    window = {
      workDoneProgress = true,
      showMessage = { messageActionItem = { additionalPropertiesSupport = false } },
    },
    -- No dynamic registration for workspace/executeCommand: Neovim runs a
    -- code action's command only when the server lists it in its static
    -- executeCommandProvider (exec_cmd checks nothing else), and the
    -- bridge's command list never changes.
    workspace = { applyEdit = true, executeCommand = { dynamicRegistration = false } },
    experimental = { rxBridge = rx },
  })
end

local function on_init(client, result)
  local st = state.get(client.id) or state.new(client.id, client.root_dir or client.config.root_dir)
  local exp = result and result.capabilities and result.capabilities.experimental
---@type rx.ServerCapabilities
  local info = type(exp) == "table" and exp.rxBridge or nil
  if type(info) ~= "table" then
    state.set_error(("%s is not rx-bridge: its initialize result has no experimental.rxBridge"):format(
      table.concat(client.config.cmd or {}, " ")), st.root)
    vim.notify("rx-bridge: " .. t_("client.not_bridge"), vim.log.levels.ERROR)
    compat.stop(client)
    return
  end
  if info.version ~= M.PROTOCOL_VERSION then
    local msg = t_("client.protocol", tostring(info.version), M.PROTOCOL_VERSION)
    state.set_error(msg, st.root)
    vim.notify("rx-bridge: " .. msg, vim.log.levels.ERROR)
    compat.stop(client)
    return
  end
  st.info = info
  st.initialized = true
  state.last_start = os.time()
  if config.values.trace ~= "off" then
    -- The bridge turns $/logTrace on with $/setTrace, not initialize's trace.
    compat.notify(client, "$/setTrace", { value = config.values.trace })
  end
  state.bump(st, info.generation)
  log.add("info", "bridge", t_("log.started",
    st.root, text.line(info.bridgeVersion), tostring(info.generation)))
  -- Chats whose bridge exited resume their sessions on this one.
  local client_id, root = client.id, st.root
  vim.schedule(function()
    require("rx_bridge.chat").on_bridge(client_id, root)
  end)
end

local function on_exit(code, signal, client_id)
  local st = state.get(client_id)
  local root = st and st.root or "?"
  if code ~= 0 or signal ~= 0 then
    local msg = t_((st and st.initialized) and "client.exited" or "client.exited_early",
      root, code .. (signal ~= 0 and (", signal " .. signal) or ""))
    vim.schedule(function()
      state.set_error(msg, root)
      if not (st and st.initialized) then
        vim.notify("rx-bridge: " .. msg, vim.log.levels.ERROR)
      end
    end)
  else
    vim.schedule(function()
      log.add("info", "bridge", t_("log.exited", root))
    end)
  end
  vim.schedule(function()
    require("rx_bridge.status").forget(client_id)
    require("rx_bridge.card").forget(client_id)
    require("rx_bridge.chat").forget(client_id)
    state.remove(client_id)
  end)
end

local function on_error(code, err)
  local name = vim.lsp.rpc.client_errors[code] or tostring(code)
  log.add("error", "rpc", ("%s: %s"):format(name, vim.inspect(err)))
end

--- The client configuration for a root.
function M.build(root)
  return {
    name = M.NAME,
    cmd = config.serve_cmd(),
    cmd_env = config.values.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = M.capabilities(),
    handlers = require("rx_bridge.handlers").table(),
    trace = config.values.trace,
    -- didChange is sent at once, so the bridge knows what an edit left in
    -- a buffer when the edit's answer reaches it (turn edits, undo).
    flags = { exit_timeout = false, debounce_text_changes = 0 },
    -- The user's language (the plugin's `language`), so the bridge can
    -- pick its own: initialize's `locale` ("en" or "zh-CN").
    before_init = function(params)
      params.locale = require("rx_bridge.i18n").locale()
    end,
    on_init = on_init,
    on_exit = on_exit,
    on_error = on_error,
  }
end

--- A clear message when the program of `cmd` cannot be found; nil if it can.
function M.missing_binary()
  local exe = config.program()
  if vim.fn.executable(exe) == 1 then
    return nil
  end
  return t_(paths.is_path(exe) and "client.missing" or "client.missing_path", exe)
end

local missing_notified = {}

--- Our clients: the initialized ones vim.lsp lists, and those still
--- initializing that this plugin started (state has them from the start).
--- Public vim.lsp API only: get_clients lists initialized clients,
--- get_client_by_id finds any.
function M.all()
  local out, seen = {}, {}
  for _, c in ipairs(vim.lsp.get_clients({ name = M.NAME })) do
    seen[c.id] = true
    out[#out + 1] = c
  end
  for id in pairs(state.clients) do
    local c = not seen[id] and vim.lsp.get_client_by_id(id) or nil
    if c and c.name == M.NAME then
      out[#out + 1] = c
    end
  end
  return out
end

--- The running client for root, or nil. (One that vim.lsp.enable started
--- and that is still initializing is not listed; vim.lsp.start in ensure
--- reuses it.)
function M.get(root)
  for _, c in ipairs(M.all()) do
    if c.root_dir == root and not compat.is_stopped(c) then
      return c
    end
  end
  return nil
end

--- The running client of the current buffer's root, or nil.
function M.current()
  return M.get(M.root_for(0))
end

--- The client for root (default: the current buffer's), started if needed.
--- Returns client or nil, message.
function M.ensure(root)
  root = root or M.root_for(0)
  local c = M.get(root)
  if c then
    return c
  end
  local missing = M.missing_binary()
  if missing then
    state.set_error(missing, root)
    local exe = config.program()
    local told = false
    if not missing_notified[exe] then
      missing_notified[exe] = true
      told = true
      vim.notify("rx-bridge: " .. missing, vim.log.levels.ERROR)
    end
    -- The third value: the message was just shown (callers do not repeat it).
    return nil, missing, told
  end
  local cfg = M.build(root)
  local id, err
  if compat.has_011 then
    id = vim.lsp.start(cfg, { attach = false, silent = true })
  else
    id, err = vim.lsp.start_client(cfg)
  end
  if not id then
    local msg = t_("client.cannot_start", table.concat(cfg.cmd, " "), tostring(err or "vim.lsp.start failed"))
    state.set_error(msg, root)
    vim.notify("rx-bridge: " .. msg, vim.log.levels.ERROR)
    return nil, msg, true
  end
  if not state.get(id) then
    state.new(id, root)
  end
  return vim.lsp.get_client_by_id(id)
end

--- Attaches a file buffer to the bridge of its root.
function M.attach(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" or vim.api.nvim_buf_get_name(bufnr) == "" then
    return
  end
  local c = M.ensure(M.root_for(bufnr))
  if c and not vim.lsp.buf_is_attached(bufnr, c.id) then
    vim.lsp.buf_attach_client(bufnr, c.id)
  end
end

--- Waits (in a coroutine) for the client of root to be initialized.
--- Returns client, state or nil, message.
function M.ready(root, timeout)
  local c, err, told = M.ensure(root)
  if not c then
    return nil, err, told
  end
  local st = state.get(c.id) or state.new(c.id, c.root_dir)
  if not state.wait_initialized(st, timeout or 10000) then
    return nil, t_("client.no_init", st.root)
  end
  return c, st
end

local group = vim.api.nvim_create_augroup("rx_bridge.client", { clear = true })

-- vim.lsp's own VimLeavePre handler (registered before ours, see setup)
-- sends shutdown to every client; a second shutdown would be answered
-- InvalidRequest and make vim.lsp kill the bridge before its plugins are
-- down. So this only waits, bounded, for the bridges to exit.
local function wait_for_exit()
  local ours = M.all()
  if #ours == 0 then
    return
  end
  if compat.has_011 then
    -- 0.11+ stops the initialized clients; one still initializing is
    -- stopped here.
    for _, c in ipairs(ours) do
      if not c.initialized and not compat.exited(c) then
        compat.stop(c)
      end
    end
  end
  vim.wait(config.values.exit_timeout, function()
    for _, c in ipairs(ours) do
      if not compat.exited(c) then
        return false
      end
    end
    return true
  end, 20)
end

--- Installs the autocommands (and on 0.11 the vim.lsp.config entry).
function M.setup()
  -- Loading vim.lsp registers its exit handler, which must run before ours.
  require("vim.lsp")
  vim.api.nvim_clear_autocmds({ group = group })
  vim.api.nvim_create_autocmd("VimLeavePre", {
    group = group,
    desc = "rx-bridge: " .. t_("map.wait_exit"),
    callback = wait_for_exit,
  })
  if not config.values.autostart then
    return
  end
  if compat.has_011 then
    local cfg = M.build(vim.fn.getcwd())
    cfg.root_dir = function(bufnr, on_dir)
      if vim.bo[bufnr].buftype == "" and vim.api.nvim_buf_get_name(bufnr) ~= "" and not M.missing_binary() then
        on_dir(M.root_for(bufnr))
      end
    end
    cfg.workspace_folders = nil
    vim.lsp.config(M.NAME, cfg)
    vim.lsp.enable(M.NAME)
  else
    vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
      group = group,
      desc = "rx-bridge: " .. t_("map.attach"),
      callback = function(ev)
        M.attach(ev.buf)
      end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        M.attach(b)
      end
    end
  end
end

return M

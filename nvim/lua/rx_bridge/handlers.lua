-- Handlers for what the bridge sends: the rx/ namespace and the LSP window
-- messages. Every text shown comes from text.clean/line; nothing a plugin
-- sends is ever evaluated.
local async = require("rx_bridge.async")
local log = require("rx_bridge.log")
local state = require("rx_bridge.state")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

local CANCELLED = { cancelled = true }

local function guard(name, fn)
  return function(err, params, ctx, cfg)
    local ok, res, rerr = xpcall(fn, debug.traceback, err, params, ctx, cfg)
    if not ok then
      log.add("error", name, tostring(res))
      if name == "rx/ui/request" then
        return CANCELLED
      end
      return nil, vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, "rx_bridge.nvim: " .. name .. " failed")
    end
    return res, rerr
  end
end

local severity_level = {
  error = vim.log.levels.ERROR,
  warn = vim.log.levels.WARN,
  info = vim.log.levels.INFO,
}

---@param params rx.UISurface
local function notify_surface(params)
---@type rx.NotificationPayload
  local p = type(params.payload) == "table" and params.payload or {}
  local plugin = text.line(params.plugin)
  local title = text.line(p.title)
  local body = text.clean(p.body)
  local msg = plugin ~= "" and (plugin .. ": " .. title) or title
  if body ~= "" then
    msg = msg .. "\n" .. body
  end
  local sev = severity_level[p.severity] and p.severity or "info"
  log.add(sev, plugin, title .. (body ~= "" and (" — " .. body) or ""))
  vim.notify(msg, severity_level[sev], { title = "rx-bridge: " .. plugin })
end

---@param params rx.UISurface
local function submit_form(client_id, params)
  async.run(function()
    local st = state.get(client_id)
    if not st then
      return
    end
---@type rx.FormPayload
    local p = type(params.payload) == "table" and params.payload or {}
---@type rx.UIRequest
    local req = { plugin = params.plugin, title = p.title, message = p.message, fields = p.fields, kind = "input" }
    local answer = async.exclusive(function()
      if state.is_stale(st, params.generation) then
        return CANCELLED
      end
      return require("rx_bridge.ui").ask(req, function()
        return state.is_stale(st, params.generation)
      end)
    end)
    if answer.cancelled then
      log.add("info", text.line(params.plugin), t_("log.form_dismissed", text.line(params.surfaceId)))
      return
    end
    local client = vim.lsp.get_client_by_id(client_id)
    if not client then
      return
    end
    local err, res = async.request(client, "rx/ui/submit", {
      plugin = params.plugin,
      surfaceId = params.surfaceId,
      generation = params.generation,
      values = answer.values,
    })
    if err then
      vim.notify("rx-bridge: " .. t_("handlers.form_failed", text.line(err.message)), vim.log.levels.ERROR)
    elseif res and res.accepted == false then
      vim.notify("rx-bridge: " .. t_("handlers.form_stale", text.line(params.plugin)),
        vim.log.levels.WARN)
    end
  end)
end

M["rx/actionsChanged"] = function(_, params, ctx)
  local st = state.get(ctx.client_id)
  if not st or type(params) ~= "table" then
    return
  end
  local newer = state.bump(st, params.generation)
  if type(params.generation) == "number" and params.generation < st.generation then
    log.add("info", "bridge", t_("log.old_actions", params.generation))
    return
  end
  st.actions = type(params.actions) == "table" and params.actions or {}
  st.hook_points = type(params.hookPoints) == "table" and params.hookPoints or {}
  st.warnings = type(params.warnings) == "table" and params.warnings or {}
  st.models = nil
  if newer then
    -- A new generation starts every plugin afresh.
    st.plugin_states = {}
    require("rx_bridge.status").forget(ctx.client_id, st.generation)
    require("rx_bridge.card").forget(ctx.client_id, st.generation)
  end
  log.add("info", "bridge", t_("log.generation", tostring(params.generation), #st.actions))
  for _, w in ipairs(st.warnings) do
    log.add("warn", "bridge", w)
    vim.notify("rx-bridge: " .. text.clean(w), vim.log.levels.WARN)
  end
  vim.api.nvim_exec_autocmds("User", {
    pattern = "RxBridgeActions",
    modeline = false,
    data = { client_id = ctx.client_id, generation = st.generation },
  })
end

-- A plugin's runtime changed state outside a reload (EDITOR_PROTOCOL
-- §2.5): a crashed sidecar is told once, with what brings it back
-- (:Rx reload), and its status items say crashed until the next
-- generation replaces it.
---@param params rx.PluginStateChange
M["rx/pluginStateChanged"] = function(_, params, ctx)
  local st = state.get(ctx.client_id)
  if not st or type(params) ~= "table" or type(params.plugin) ~= "string" then
    return
  end
  if state.is_stale(st, params.generation) then
    log.add("info", "bridge", t_("log.old_state", tostring(params.generation)))
    return
  end
  local plugin = text.line(params.plugin)
  local s = text.line(params.state)
  local before = st.plugin_states[plugin]
  st.plugin_states[plugin] = { state = s, reason = text.line(params.reason), since = text.line(params.since),
    generation = params.generation }
  log.add(s == "crashed" and "error" or "info", plugin, ("%s: %s"):format(s, text.line(params.reason)))
  if s ~= "crashed" then
    return
  end
  require("rx_bridge.status").mark(ctx.client_id, plugin, "crashed", params.generation)
  if before and before.state == "crashed" and before.generation == params.generation then
    return
  end
  vim.notify("rx-bridge: " .. t_("handlers.crashed", plugin, text.line(params.reason)), vim.log.levels.ERROR, { title = "rx-bridge: " .. plugin })
end

M["rx/ui/request"] = function(_, params, ctx)
  local st = state.get(ctx.client_id)
  if not st or type(params) ~= "table" then
    return CANCELLED
  end
  local function stale()
    return state.is_stale(st, params.generation) or state.get(ctx.client_id) == nil
  end
  if stale() then
    log.add("info", text.line(params.plugin), t_("log.dropped_request", 
      text.line(params.kind), tostring(params.generation)))
    return CANCELLED
  end
  return async.exclusive(function()
    if stale() then
      return CANCELLED
    end
    return require("rx_bridge.ui").ask(params, stale)
  end)
end

M["rx/ui/surface"] = function(_, params, ctx)
  local st = state.get(ctx.client_id)
  if not st or type(params) ~= "table" then
    return
  end
  if state.is_stale(st, params.generation) then
    log.add("info", text.line(params.plugin), t_("log.dropped_surface", 
      text.line(params.kind), tostring(params.generation)))
    return
  end
  local kind = params.kind
  if kind == "status" then
    require("rx_bridge.status").publish(ctx.client_id, params)
  elseif kind == "notification" then
    notify_surface(params)
  elseif kind == "card" then
    require("rx_bridge.card").show(ctx.client_id, params)
  elseif kind == "form" then
    submit_form(ctx.client_id, params)
  else
    log.add("warn", text.line(params.plugin), t_("log.unknown_surface", text.line(kind)))
  end
end

M["rx/session/update"] = function(_, params, ctx)
  if type(params) == "table" then
    require("rx_bridge.chat").on_update(ctx.client_id, params)
  end
end

M["rx/session/requestPermission"] = function(_, params, ctx)
  if type(params) ~= "table" then
    return { outcome = { outcome = "cancelled" } }
  end
  return require("rx_bridge.chat").on_permission(ctx.client_id, params)
end

M["rx/lm/chunk"] = function() end

-- An agent edit: reviewed hunk by hunk when its change annotations need
-- confirmation (rx_bridge.review), else applied as Neovim does.
M["workspace/applyEdit"] = function(err, params, ctx, cfg)
  return require("rx_bridge.review").handle(err, params, ctx, cfg)
end

local message_levels = {
  [1] = { "error", vim.log.levels.ERROR },
  [2] = { "warn", vim.log.levels.WARN },
  [3] = { "info", vim.log.levels.INFO },
  [4] = { "log", vim.log.levels.DEBUG },
}

M["window/logMessage"] = function(_, params)
  if type(params) == "table" then
    local l = message_levels[params.type] or message_levels[4]
    log.add(l[1], "bridge", text.clean(params.message))
  end
end

M["window/showMessage"] = function(_, params)
  if type(params) == "table" then
    local l = message_levels[params.type] or message_levels[3]
    log.add(l[1], "bridge", text.clean(params.message))
    vim.notify("rx-bridge: " .. text.clean(params.message), l[2])
  end
end

M["$/logTrace"] = function(_, params)
  if type(params) == "table" then
    local msg = text.clean(params.message)
    if type(params.verbose) == "string" and params.verbose ~= "" then
      msg = msg .. "\n" .. text.clean(params.verbose)
    end
    log.add("trace", "bridge", msg)
  end
end

--- The handlers table for a client configuration.
function M.table()
  local t = {}
  for method, fn in pairs(M) do
    if type(fn) == "function" and method:find("/") then
      t[method] = guard(method, fn)
    end
  end
  return t
end

return M

-- Plugin actions (/<plugin>:<action>) and slash commands (/<plugin>:<command>,
-- skills, agents, MCP prompts: rx/actions entries of kind "command", which
-- ask for their arguments and run as a chat turn), reload, and the plugins
-- and models views. Everything here runs in a coroutine (async.run).
local async = require("rx_bridge.async")
local client_mod = require("rx_bridge.client")
local state = require("rx_bridge.state")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

-- How long an action waits for the first generation (plugins starting).
local FIRST_GENERATION_TIMEOUT = 15000

local function err_text(err)
  local msg = text.clean(type(err) == "table" and err.message or tostring(err))
  local reason = type(err) == "table" and type(err.data) == "table" and err.data.reason
  if type(reason) == "string" and reason ~= "" then
    msg = msg .. " (" .. text.line(reason) .. ")"
  end
  return msg
end
M.err_text = err_text

local function fail(msg)
  vim.notify("rx-bridge: " .. msg, vim.log.levels.ERROR)
end

--- Accepts "/hello:greet", "hello:greet".
function M.normalize(name)
  if type(name) ~= "string" then
    return nil
  end
  if not vim.startswith(name, "/") then
    name = "/" .. name
  end
  if not name:match("^/[%w._-]+:[a-z0-9-]+$") then
    return nil
  end
  return name
end

--- The client and state of the current root, initialized, with the first
--- generation up (waits for it). Returns client, st or nil after notifying.
function M.ready(opts)
  opts = opts or {}
  local c, st, told = client_mod.ready(opts.root)
  if not c then
    if not told then
      fail(st)
    end
    return nil
  end
  if opts.generation ~= false and st.generation == 0 then
    if not state.wait_generation(st, opts.timeout or FIRST_GENERATION_TIMEOUT) then
      fail(t_("actions.not_started"))
      return nil
    end
  end
  return c, st
end

--- Fetches rx/actions; updates the cache. Returns the list or nil.
function M.fetch(c, st)
  local err, res = async.request(c, "rx/actions", vim.empty_dict())
  if err then
    fail(t_("actions.request_failed", "rx/actions", err_text(err)))
    return nil
  end
  if type(res) ~= "table" then
    return {}
  end
  state.bump(st, res.generation)
  if type(res.generation) ~= "number" or res.generation >= st.generation then
    st.actions = type(res.actions) == "table" and res.actions or {}
  end
  return st.actions
end

--- The rx/actions entry named name (with or without its "/") in the
--- cached list, or nil.
---@return rx.Action|nil
function M.find(st, name)
  if type(name) ~= "string" then
    return nil
  end
  if not vim.startswith(name, "/") then
    name = "/" .. name
  end
  ---@param a rx.Action
  for _, a in ipairs(st.actions) do
    if a.name == name then
      return a
    end
  end
  return nil
end

--- Whether an rx/actions entry is a slash command (runs as a chat turn).
---@param a rx.Action
function M.is_command(a)
  return type(a) == "table" and a.kind == "command"
end

--- Runs a slash command: asks for its arguments (the argument hint shown
--- in the prompt) unless given, then sends "/<name> <arguments>" to a chat
--- of this bridge, which the agent resolves. A dismissed input runs nothing.
---@param a rx.Action
function M.run_command(c, a, arguments)
  if arguments == nil then
    local hint = text.line(a.argumentHint)
    local prompt = text.line(a.name) .. (hint ~= "" and (" " .. hint) or "") .. ": "
    arguments = async.exclusive(function()
      return require("rx_bridge.ui").input({ prompt = prompt, kind = "rx_bridge.command_arguments" })
    end)
    if arguments == nil then
      return false
    end
  end
  local line = text.line(a.name)
  arguments = vim.trim(arguments)
  if arguments ~= "" then
    line = line .. " " .. arguments
  end
  require("rx_bridge.chat").send(c, line)
  return true
end

function M.run_with(c, name, args)
  -- A crashed plugin's action would fail with the crash's text again
  -- (told once already): one short line instead.
  local st = state.get(c.id)
  local plugin = type(name) == "string" and name:match("^/([^:]+):") or nil
  local ps = st and plugin and st.plugin_states[plugin]
  if ps and ps.state == "crashed" then
    fail(t_("actions.crashed", text.line(name), text.line(plugin)))
    return false
  end
  local arguments = { name }
  if args and next(args) then
    arguments[2] = args
  end
  local err, res = async.request(c, "workspace/executeCommand", { command = "rx.runAction", arguments = arguments })
  if err then
    fail(err_text(err))
    return false
  end
  local accepted = not (type(res) == "table" and res.accepted == false)
  if type(res) == "table" and type(res.message) == "string" and res.message ~= "" then
    vim.notify(text.clean(res.message), accepted and vim.log.levels.INFO or vim.log.levels.WARN, { title = "rx-bridge" })
  elseif not accepted then
    vim.notify("rx-bridge: " .. t_("actions.did_not_run", text.line(name)), vim.log.levels.WARN)
  end
  return accepted
end

--- :Rx /plugin:command [arguments ...]: a slash command with these words as
--- its arguments (asked for when there are none).
function M.run_slash(name, words)
  async.run(function()
    local c, st = M.ready()
    if not c then
      return
    end
    local a = M.find(st, name)
    if not M.is_command(a) then
      local list = M.fetch(c, st)
      a = list and M.find(st, name)
    end
    if not M.is_command(a) then
      fail(t_("actions.not_command", tostring(name)))
      return
    end
    M.run_command(c, a, #words > 0 and table.concat(words, " ") or nil)
  end)
end

--- :Rx /plugin:action [key=value ...]
function M.run(name, args)
  async.run(function()
    local n = M.normalize(name)
    if not n then
      fail(t_("actions.not_action", tostring(name)))
      return
    end
    local c = M.ready()
    if c then
      M.run_with(c, n, args)
    end
  end)
end

--- Runs an action on a given client (card actions).
function M.run_on(client_id, name)
  async.run(function()
    local c = vim.lsp.get_client_by_id(client_id)
    if not c then
      fail(t_("actions.card_bridge_gone"))
      return
    end
    M.run_with(c, name)
  end)
end

---@param a rx.Action
--- One format for commands and actions: "/name <hint> — what it does".
function M.label(a)
  local name = text.line(a.name)
  local hint = text.line(a.argumentHint)
  local desc = text.line(a.kind == "command" and a.description or a.label)
  return name .. (hint ~= "" and (" " .. hint) or "") .. (desc ~= "" and (" — " .. desc) or "")
end

--- :Rx actions
function M.pick()
  async.run(function()
    local c, st = M.ready()
    if not c then
      return
    end
    local list = M.fetch(c, st)
    if not list then
      return
    end
    if #list == 0 then
      vim.notify("rx-bridge: " .. t_("actions.none"), vim.log.levels.INFO)
      return
    end
    local choice = async.exclusive(function()
      return require("rx_bridge.ui").select(list, {
        prompt = t_("actions.pick_prompt"),
        kind = "rx_bridge.action",
        format_item = M.label,
      })
    end)
    if M.is_command(choice) then
      M.run_command(c, choice)
    elseif choice then
      M.run_with(c, choice.name)
    end
  end)
end

--- The cached rx/actions entries of client c's bridge (the current root's
--- when c is nil), asked once, briefly, when nothing is cached yet.
function M.cached(c)
  if not c then
    c = client_mod.current() or client_mod.ensure()
    if not c then
      return {}
    end
  end
  local st = state.get(c.id)
  if not st then
    return {}
  end
  if #st.actions == 0 and st.initialized then
    local compat = require("rx_bridge.compat")
    local res = compat.request_sync(c, "rx/actions", vim.empty_dict(), 1000)
    if res and res.result and type(res.result.actions) == "table" then
      state.bump(st, res.result.generation)
      st.actions = res.result.actions
    end
  end
  return st.actions
end

--- Action and command names for completion, sorted.
function M.names()
  local out = {}
  for _, a in ipairs(M.cached()) do
    if type(a.name) == "string" then
      out[#out + 1] = a.name
    end
  end
  table.sort(out)
  return out
end

--- Completion items for a "/…" word typed in a chat of client c: the
--- slash commands (with their argument hints and descriptions), then the
--- plugins' actions, each whose name starts with prefix.
function M.slash_items(c, prefix)
  local cmds, acts = {}, {}
  ---@param a rx.Action
  for _, a in ipairs(M.cached(c)) do
    if type(a.name) == "string" and vim.startswith(a.name, prefix) then
      local item = {
        word = a.name,
        abbr = a.name .. (a.argumentHint and a.argumentHint ~= "" and (" " .. text.line(a.argumentHint)) or ""),
        menu = a.kind == "command" and ("[" .. text.line(a.source or "command") .. "]") or "[action]",
        info = text.line(a.kind == "command" and a.description or a.label),
      }
      if a.kind == "command" then
        cmds[#cmds + 1] = item
      else
        acts[#acts + 1] = item
      end
    end
  end
  return vim.list_extend(cmds, acts)
end

--- :Rx reload
function M.reload()
  async.run(function()
    local c, st = M.ready({ generation = false })
    if not c then
      return
    end
    local err, res = async.request(c, "workspace/executeCommand", { command = "rx.reload", arguments = {} })
    if err then
      fail(t_("actions.reload_failed", err_text(err)))
      return
    end
    res = type(res) == "table" and res or {}
    state.bump(st, res.generation)
    local warnings = type(res.warnings) == "table" and res.warnings or {}
    vim.notify("rx-bridge: " .. (#warnings > 0 and t_("actions.reloaded_warnings", tostring(res.generation), #warnings)
      or t_("install.reloaded", tostring(res.generation))), vim.log.levels.INFO)
    for _, w in ipairs(warnings) do
      vim.notify("rx-bridge: " .. text.clean(w), vim.log.levels.WARN)
    end
  end)
end

local function yesno(b)
  return t_(b and "plugins.yes" or "plugins.no")
end

--- The lines of :Rx plugins.
---@param res rx.PluginsResult
function M.plugin_lines(res, st)
  local lines = {
    t_("actions.plugins_head", st.root, st.generation),
    "",
  }
  ---@type rx.PluginInfo[]
  local plugins = type(res) == "table" and type(res.plugins) == "table" and res.plugins or {}
  if #plugins == 0 then
    lines[#lines + 1] = t_("actions.no_plugins", text.line(st.info.home or "~"))
  end
  for _, p in ipairs(plugins) do
    local head = text.line(p.name)
    if p.version and p.version ~= "" then
      head = head .. " " .. text.line(p.version)
    end
    lines[#lines + 1] = head
    if p.description and p.description ~= "" then
      lines[#lines + 1] = "  " .. text.line(p.description)
    end
    lines[#lines + 1] = "  " .. t_("plugins.flags", yesno(p.enabled), yesno(p.running), tostring(p.generation))
    if type(p.state) == "string" and p.state ~= "" then
      lines[#lines + 1] = "  " .. t_("plugins.state", text.line(p.state))
      if p.state ~= "running" and type(p.reason) == "string" and p.reason ~= "" then
        lines[#lines + 1] = "  " .. t_("plugins.why", text.line(p.reason))
      end
      if type(p.since) == "string" and p.since ~= "" then
        lines[#lines + 1] = "  " .. t_("plugins.since", text.line(p.since))
      end
      if type(p.recover) == "string" and p.recover ~= "" then
        lines[#lines + 1] = "  " .. t_("plugins.recover", text.line(p.recover))
      end
    end
    lines[#lines + 1] = "  manifest: " .. text.line(p.manifestKind)
    if p.source and p.source ~= "" then
      lines[#lines + 1] = "  source: " .. text.line(p.source)
    end
    lines[#lines + 1] = "  root: " .. text.line(p.root)
    if type(p.runtime) == "table" then
      local r = p.runtime
      local cmdline = text.line(r.command)
      if type(r.args) == "table" and #r.args > 0 then
        local args = {}
        for _, a in ipairs(r.args) do
          args[#args + 1] = text.line(a)
        end
        cmdline = cmdline .. " " .. table.concat(args, " ")
      end
      lines[#lines + 1] = "  runtime: " .. cmdline
    else
      lines[#lines + 1] = "  " .. t_("plugins.runtime_none")
    end
    if type(p.contents) == "table" then
      vim.list_extend(lines, M.contents_lines(p.contents))
    end
    if type(p.trust) == "string" and p.trust ~= "" then
      for _, l in ipairs(text.lines(p.trust)) do
        lines[#lines + 1] = "  | " .. l
      end
    end
    if p.error and p.error ~= "" then
      lines[#lines + 1] = "  " .. t_("plugins.error", text.line(p.error))
    end
    if type(p.details) == "string" and p.details ~= "" then
      lines[#lines + 1] = "  " .. t_("plugins.details")
      for _, l in ipairs(text.lines(p.details)) do
        lines[#lines + 1] = "    " .. l
      end
    end
    lines[#lines + 1] = ""
  end
  return lines
end

--- What a plugin serves beside its runtime (rx/plugins contents).
---@param pc rx.PluginContents
function M.contents_lines(pc)
  local lines = {}
  local function items(title, list, tag)
    if type(list) ~= "table" or #list == 0 then
      return
    end
    lines[#lines + 1] = "  " .. title .. ":"
    ---@param it rx.ContentItem
    for _, it in ipairs(list) do
      local l = "    " .. text.line(it.name)
      if it.argumentHint and it.argumentHint ~= "" then
        l = l .. " " .. text.line(it.argumentHint)
      end
      if tag then
        l = l .. (it.subagent and " [subagent]" or " [inline]")
      end
      local d = text.line(it.description)
      lines[#lines + 1] = l .. " - " .. (d ~= "" and d or "(no description)")
    end
  end
  items("commands", pc.commands)
  items("skills", pc.skills, true)
  items("agents", pc.agents)
  if type(pc.hooks) == "table" and #pc.hooks > 0 then
    lines[#lines + 1] = "  hooks:"
    ---@param h rx.HookInfo
    for _, h in ipairs(pc.hooks) do
      local match = text.line(h.match)
      lines[#lines + 1] = ("    %s match=%s - %s"):format(text.line(h.event), match ~= "" and match or "*", text.line(h.target))
    end
  end
  if type(pc.mcpServers) == "table" and #pc.mcpServers > 0 then
    lines[#lines + 1] = "  MCP servers:"
    ---@param m rx.McpServerInfo
    for _, m in ipairs(pc.mcpServers) do
      local l = ("    %s [%s] - %s (%s, %d tools, %d prompts)"):format(text.line(m.name), text.line(m.transport),
        text.line(m.target), text.line(m.state), tonumber(m.tools) or 0, tonumber(m.prompts) or 0)
      if m.error and m.error ~= "" then
        l = l .. ": " .. text.line(m.error)
      end
      lines[#lines + 1] = l
    end
  end
  if type(pc.themes) == "table" and #pc.themes > 0 then
    lines[#lines + 1] = "  " .. t_("plugins.themes", text.line(table.concat(pc.themes, ", ")))
  end
  for _, w in ipairs(type(pc.warnings) == "table" and pc.warnings or {}) do
    lines[#lines + 1] = "  " .. t_("plugins.warning", text.line(w))
  end
  return lines
end

--- :Rx plugins
function M.plugins()
  async.run(function()
    local c, st = M.ready({ generation = false })
    if not c then
      return
    end
    local err, res = async.request(c, "rx/plugins", vim.empty_dict())
    if err then
      fail(t_("actions.request_failed", "rx/plugins", err_text(err)))
      return
    end
    require("rx_bridge.view").scratch("plugins", M.plugin_lines(res, st), { filetype = "rxbridgeplugins" })
  end)
end

--- Fetches rx/models (cached per generation). Returns the result or nil.
function M.fetch_models(c, st)
  local err, res = async.request(c, "rx/models", vim.empty_dict())
  if err then
    fail(t_("actions.request_failed", "rx/models", err_text(err)))
    return nil
  end
  st.models = type(res) == "table" and res or { models = {} }
  return st.models
end

--- Model refs for completion.
function M.model_refs()
  local c = client_mod.current()
  local st = c and state.get(c.id)
  if not st then
    return {}
  end
  if not st.models and st.initialized then
    local res = require("rx_bridge.compat").request_sync(c, "rx/models", vim.empty_dict(), 1000)
    if res and type(res.result) == "table" then
      st.models = res.result
    end
  end
  local out = {}
  local models = st.models and st.models.models or {}
  for _, m in ipairs(models) do
    if type(m.ref) == "string" then
      out[#out + 1] = m.ref
    end
  end
  if #out == 0 and type(st.info.models) == "table" then
    for _, r in ipairs(st.info.models) do
      if type(r) == "string" then
        out[#out + 1] = r
      end
    end
  end
  table.sort(out)
  return out
end

---@param res rx.ModelsResult
function M.model_lines(res)
  local lines = { t_("actions.models_head"), "" }
  local rows = {}
  for _, m in ipairs(type(res.models) == "table" and res.models or {}) do
    local origin = type(m.origin) == "table" and (text.line(m.origin.kind) .. (m.origin.id and (" " .. text.line(m.origin.id)) or "")) or ""
    local caps = {}
    if m.tools then caps[#caps + 1] = "tools" end
    if m.vision then caps[#caps + 1] = "vision" end
    if m.reasoning then caps[#caps + 1] = "reasoning" end
    local line = ("%s %s"):format(m.ref == res.default and "*" or " ", text.line(m.ref))
    local extra = {}
    if m.displayName and m.displayName ~= "" then extra[#extra + 1] = text.line(m.displayName) end
    if origin ~= "" then extra[#extra + 1] = origin end
    if type(m.contextWindow) == "number" and m.contextWindow > 0 then extra[#extra + 1] = ("context %d"):format(m.contextWindow) end
    if #caps > 0 then extra[#extra + 1] = table.concat(caps, ",") end
    if #extra > 0 then line = line .. "  (" .. table.concat(extra, "; ") .. ")" end
    lines[#lines + 1] = line
    rows[#lines] = m.ref
  end
  if vim.tbl_isempty(rows) then
    lines[#lines + 1] = t_("actions.no_models")
  end
  return lines, rows
end

--- :Rx models
function M.models()
  async.run(function()
    local c, st = M.ready()
    if not c then
      return
    end
    local res = M.fetch_models(c, st)
    if not res then
      return
    end
    local lines, rows = M.model_lines(res)
    local buf = require("rx_bridge.view").scratch("models", lines, { filetype = "rxbridgemodels" })
    vim.keymap.set("n", "<CR>", function()
      local ref = rows[vim.api.nvim_win_get_cursor(0)[1]]
      if ref then
        require("rx_bridge.chat").open(ref)
      end
    end, { buffer = buf, desc = t_("map.chat_with_model") })
  end)
end

return M

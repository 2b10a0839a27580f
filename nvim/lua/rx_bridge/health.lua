-- :checkhealth rx_bridge
local config = require("rx_bridge.config")
local state = require("rx_bridge.state")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

local health = vim.health

local function run_cli(args)
  local exe = config.program()
  local cmd = { exe }
  vim.list_extend(cmd, args)
  local env = config.cli_env()
  local ok, obj = pcall(vim.system, cmd, { text = true, env = next(env) and env or nil })
  if not ok then
    return nil, tostring(obj)
  end
  local res = obj:wait(10000)
  if res.code ~= 0 then
    local why = text.line(res.stderr ~= "" and res.stderr or res.stdout)
    return nil, t_("health.cli_exit", table.concat(cmd, " "), res.code, why)
  end
  local okj, decoded = pcall(vim.json.decode, res.stdout, { luanil = { object = true, array = true } })
  if not okj or type(decoded) ~= "table" then
    return nil, t_("health.no_json", table.concat(cmd, " "))
  end
  return decoded
end

local runtime_words = {
  ["full-trust"] = "health.rt.full_trust",
  ignored = "health.rt.ignored",
  none = "health.rt.none",
  unknown = "health.rt.unknown",
}

local function running_plugins()
  local c = require("rx_bridge.client").current()
  local st = c and state.get(c.id)
  if not (c and st and st.initialized) then
    return nil
  end
  local res = require("rx_bridge.compat").request_sync(c, "rx/plugins", vim.empty_dict(), 3000)
  if not (res and type(res.result) == "table" and type(res.result.plugins) == "table") then
    return nil
  end
  local by = {}
  for _, p in ipairs(res.result.plugins) do
    if type(p.name) == "string" then
      by[p.name] = p
    end
  end
  return by, st
end

function M.check()
  health.start("rx_bridge: Neovim")
  if vim.fn.has("nvim-0.10") == 1 then
    local v = vim.version()
    health.ok(("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch))
  else
    health.error(t_("health.nvim_old"))
  end

  health.start("rx_bridge: binary")
  local exe = config.program()
  local install = require("rx_bridge.install")
  local installed = install.installed()
  if installed then
    health.info(t_(config.values.cmd and "health.installed_unused" or "health.installed", installed))
  else
    health.info(t_("health.none_installed", install.bin_path()))
  end
  local missing = require("rx_bridge.client").missing_binary()
  local version
  if missing then
    health.error(missing)
  else
    health.ok(t_("health.found", vim.fn.exepath(exe) ~= "" and vim.fn.exepath(exe) or exe))
    local v, err = run_cli({ "version", "--json" })
    if not v then
      health.error(t_("health.no_version", err))
    else
      version = v
      health.ok(("rx-bridge %s (protocol %s)"):format(text.line(v.version), text.line(v.protocolId)))
      if v.protocolMajor == 1 then
        health.ok(t_("health.protocol_ok"))
      else
        health.error(t_("health.protocol_bad", tostring(v.protocolMajor)))
      end
    end
  end

  health.start("rx_bridge: home and plugins")
  local list, lerr
  if not missing then
    list, lerr = run_cli({ "plugin", "list", "--json" })
  end
  local home = list and list.home or config.home()
  local c = require("rx_bridge.client").current()
  local st = c and state.get(c.id)
  if st and st.info and st.info.home then
    home = st.info.home
  end
  if home then
    health.info(t_("health.home", text.line(home)))
  else
    health.info(t_("health.home_default"))
  end
  if lerr then
    health.error(t_("health.no_list", lerr))
  elseif list then
    local running = running_plugins()
    local plugins = type(list.plugins) == "table" and list.plugins or {}
    if #plugins == 0 then
      health.info(t_("health.no_plugins"))
    end
    -- JSON null arrives as vim.NIL: every field is read through str/tbl,
    -- so a package without a runtime (runtime null) is listed like any
    -- other (issue 30 item 7).
    local function str(v)
      return type(v) == "string" and v or nil
    end
    local function tbl(v)
      return type(v) == "table" and v or nil
    end
    for _, p in ipairs(plugins) do
      local runtime = str(p.runtime)
      local line = ("%s %s: %s, %s (%s)"):format(text.line(str(p.name) or "?"), text.line(str(p.version) or "-"),
        text.line(str(p.state) or "-"), runtime and (runtime_words[runtime] and t_(runtime_words[runtime]) or text.line(runtime)) or t_("health.rt.none"),
        text.line(str(p.install) or "-"))
      local r = running and tbl(running[p.name])
      if r then
        local rs = str(r.state) ~= nil and r.state ~= "" and r.state or (r.running == true and t_("health.running") or t_("health.not_running"))
        line = line .. ", " .. text.line(rs)
        local rt = tbl(r.runtime)
        if rt and str(rt.command) then
          line = line .. t_("health.command", text.line(rt.command))
        end
      end
      if str(p.error) and p.error ~= "" then
        health.error(line .. " — " .. text.line(p.error))
      elseif r and r.state == "crashed" then
        health.error(line .. " — " .. text.line(str(r.reason) or "crashed"), { t_("health.crashed_advice") })
      elseif r and str(r.error) and r.error ~= "" then
        health.warn(line .. " — " .. t_("health.start_failed", text.line(r.error)))
      elseif runtime == "full-trust" then
        health.ok(line .. " — " .. t_("health.full_trust"))
      else
        health.ok(line)
      end
    end
    for _, w in ipairs(type(list.warnings) == "table" and list.warnings or {}) do
      health.warn(text.line(w))
    end
  end

  health.start("rx_bridge: running bridges")
  local any = false
  for _, cl in ipairs(vim.lsp.get_clients({ name = require("rx_bridge.client").NAME })) do
    local s = state.get(cl.id)
    if s then
      any = true
      health.ok(t_("health.bridge",
        s.root, text.line(s.info.bridgeVersion or "?"), tostring(s.info.version or "?"), s.generation, #s.actions))
    end
  end
  if not any then
    health.info(t_("health.no_bridge"))
  end

  health.start("rx_bridge: startup")
  if state.last_error and state.last_start and state.last_start >= state.last_error.at then
    health.warn(t_("health.last_error_old", state.last_error.time,
      text.line(state.last_error.root or "?"), text.line(state.last_error.message)))
  elseif state.last_error then
    health.error(t_("health.last_error", state.last_error.time, text.line(state.last_error.root or "?"),
      text.line(state.last_error.message)))
  else
    health.ok(t_("health.no_error"))
  end
  if version == nil and not missing then
    health.info(t_("health.version_note"))
  end
end

return M

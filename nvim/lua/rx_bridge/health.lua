-- :checkhealth rx_bridge
local config = require("rx_bridge.config")
local state = require("rx_bridge.state")
local text = require("rx_bridge.text")

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
    return nil, ("`%s` exited with %d: %s"):format(table.concat(cmd, " "), res.code, why)
  end
  local okj, decoded = pcall(vim.json.decode, res.stdout, { luanil = { object = true, array = true } })
  if not okj or type(decoded) ~= "table" then
    return nil, ("`%s` printed no JSON"):format(table.concat(cmd, " "))
  end
  return decoded
end

local runtime_words = {
  ["full-trust"] = "FULL TRUST runtime",
  ignored = "runtime ignored (legacy manifest)",
  none = "no runtime",
  unknown = "manifest does not load (run `rx-bridge plugin doctor`)",
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
    health.error("Neovim 0.10 or newer is required")
  end

  health.start("rx_bridge: binary")
  local exe = config.program()
  local install = require("rx_bridge.install")
  local installed = install.installed()
  if installed then
    health.info(("installed by :RxInstall: %s%s"):format(installed,
      config.values.cmd and " (not used: `cmd` is set)" or ""))
  else
    health.info(("none installed by :RxInstall (it would go to %s)"):format(install.bin_path()))
  end
  local missing = require("rx_bridge.client").missing_binary()
  local version
  if missing then
    health.error(missing)
  else
    health.ok(("found %s"):format(vim.fn.exepath(exe) ~= "" and vim.fn.exepath(exe) or exe))
    local v, err = run_cli({ "version", "--json" })
    if not v then
      health.error("cannot read the version: " .. err)
    else
      version = v
      health.ok(("rx-bridge %s (protocol %s)"):format(text.line(v.version), text.line(v.protocolId)))
      if v.protocolMajor == 1 then
        health.ok("protocol major 1 (supported)")
      else
        health.error(("protocol major %s; this plugin supports 1"):format(tostring(v.protocolMajor)))
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
    health.info("home: " .. text.line(home))
  else
    health.info("home: rx-bridge's default ($RX_BRIDGE_HOME, $XDG_CONFIG_HOME/rx-bridge or ~/.config/rx-bridge)")
  end
  if lerr then
    health.error("cannot list plugins: " .. lerr)
  elseif list then
    local running = running_plugins()
    local plugins = type(list.plugins) == "table" and list.plugins or {}
    if #plugins == 0 then
      health.info("no plugins installed")
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
        text.line(str(p.state) or "-"), runtime and (runtime_words[runtime] or text.line(runtime)) or "no runtime",
        text.line(str(p.install) or "-"))
      local r = running and tbl(running[p.name])
      if r then
        local rs = str(r.state) ~= nil and r.state ~= "" and r.state or (r.running == true and "running" or "not running")
        line = line .. ", " .. text.line(rs)
        local rt = tbl(r.runtime)
        if rt and str(rt.command) then
          line = line .. "; command " .. text.line(rt.command)
        end
      end
      if str(p.error) and p.error ~= "" then
        health.error(line .. " — " .. text.line(p.error))
      elseif r and r.state == "crashed" then
        health.error(line .. " — " .. text.line(str(r.reason) or "crashed"), { ":Rx reload starts it again; :Rx plugins shows its stderr tail" })
      elseif r and str(r.error) and r.error ~= "" then
        health.warn(line .. " — start failed: " .. text.line(r.error))
      elseif runtime == "full-trust" then
        health.ok(line .. " — runs outside any sandbox with your environment; :Rx plugins shows its FULL TRUST block")
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
      health.ok(("%s: rx-bridge %s, editor protocol %s, generation %d, %d actions"):format(
        s.root, text.line(s.info.bridgeVersion or "?"), tostring(s.info.version or "?"), s.generation, #s.actions))
    end
  end
  if not any then
    health.info("no bridge running in this Neovim (one starts with the first file, :Rx or :RxChat)")
  end

  health.start("rx_bridge: startup")
  if state.last_error and state.last_start and state.last_start >= state.last_error.at then
    health.warn(("last startup error (%s, %s), before a bridge started fine: %s"):format(state.last_error.time,
      text.line(state.last_error.root or "?"), text.line(state.last_error.message)))
  elseif state.last_error then
    health.error(("last startup error (%s, %s): %s"):format(state.last_error.time, text.line(state.last_error.root or "?"),
      text.line(state.last_error.message)))
  else
    health.ok("no startup error")
  end
  if version == nil and not missing then
    health.info("`rx-bridge version --json` is what the checks above run")
  end
end

return M

-- :Rx setup and :Rx install: `rx-bridge setup` and `rx-bridge plugin
-- install` through Neovim's own UI. Setup asks the provider, the key
-- (typed into inputsecret(): never echoed, never in a message, log or
-- history; handed to the CLI on stdin, which stores it in a 0600 file) or
-- the name of an environment variable holding it, lists the server's
-- models (`--list-models --json`) to pick the default, writes config.toml
-- (`--json`) and restarts the bridges so the model is usable at once.
-- Install shows the `--dry-run` FULL TRUST preview, asks, runs `--yes` and
-- reloads the plugins.
local async = require("rx_bridge.async")
local config = require("rx_bridge.config")
local i18n = require("rx_bridge.i18n")
local text = require("rx_bridge.text")

local t = i18n.t
local M = {}

-- Called with (ok) when a flow ends (tests).
M.on_done = nil

local function done(ok)
  local cb = M.on_done
  M.on_done = nil
  if cb then
    cb(ok)
  end
  return ok
end

local function note(msg, level)
  vim.notify("rx-bridge: " .. msg, level or vim.log.levels.INFO)
end

local function fail(msg)
  note(msg, vim.log.levels.ERROR)
  return done(false)
end

local function select(items, opts)
  return require("rx_bridge.ui").select(items, opts)
end

local function input(opts)
  return require("rx_bridge.ui").input(opts)
end

-- Runs the rx-bridge CLI with args (in the coroutine); stdin is a string or
-- nil. The bridge's home and environment are the ones serve gets.
local function cli(args, stdin)
  local cmd = { config.program() }
  vim.list_extend(cmd, args)
  return async.await(function(cb)
    local ok, err = pcall(vim.system, cmd, { text = true, stdin = stdin or false, env = config.cli_env() }, cb)
    if not ok then
      cb({ code = -1, signal = 0, stdout = "", stderr = tostring(err) })
    end
  end)
end

-- The message of a failed CLI run: its JSON {"error"} or its first stderr line.
local function why(res)
  local ok, obj = pcall(vim.json.decode, res.stdout or "")
  if ok and type(obj) == "table" and type(obj.error) == "string" then
    return text.line(obj.error)
  end
  local s = vim.trim(text.clean(res.stderr or ""))
  s = s:gsub("^rx%-bridge setup: ", ""):gsub("^rx%-bridge: ", "")
  if s == "" then
    s = ("exit code %d"):format(res.code)
  end
  return (vim.split(s, "\n", { plain = true })[1])
end

local function decode(res)
  local ok, obj = pcall(vim.json.decode, res.stdout or "")
  if res.code == 0 and ok and type(obj) == "table" and obj.error == nil then
    return obj
  end
  return nil, why(res)
end

local function program_missing()
  local missing = require("rx_bridge.client").missing_binary()
  if missing then
    fail(missing)
    return true
  end
  return false
end

-- The providers `rx-bridge setup --provider` knows, in its order.
M.PROVIDERS = {
  { flag = "deepseek", key_env = "DEEPSEEK_API_KEY", cloud = true },
  { flag = "openai", key_env = "OPENAI_API_KEY", cloud = true },
  { flag = "openrouter", key_env = "OPENROUTER_API_KEY", cloud = true },
  { flag = "ollama" },
  { flag = "llamacpp" },
  { flag = "vllm" },
  { flag = "openai-compatible", custom = true },
}

local function provider_label(p)
  return t("setup.p." .. (p.custom and "custom" or p.flag))
end

--- Stops every bridge of this Neovim and starts the current root's (and
--- the other roots') again; open chats resume their sessions on them.
function M.restart_bridges()
  local client_mod = require("rx_bridge.client")
  local compat = require("rx_bridge.compat")
  local roots, seen = {}, {}
  local cur = client_mod.root_for(0)
  local running = client_mod.all()
  for _, c in ipairs(running) do
    local r = c.root_dir or (c.config and c.config.root_dir)
    if r and not seen[r] then
      seen[r] = true
      roots[#roots + 1] = r
    end
    compat.stop(c)
  end
  if not seen[cur] then
    table.insert(roots, 1, cur)
  end
  local deadline = vim.uv.now() + config.values.exit_timeout + 5000
  local function all_exited()
    for _, c in ipairs(running) do
      if not compat.exited(c) then
        return false
      end
    end
    return true
  end
  while not all_exited() and vim.uv.now() < deadline do
    async.sleep(20)
  end
  for _, c in ipairs(running) do
    if not compat.exited(c) then
      compat.stop(c, true)
    end
  end
  -- The exited clients' state goes on the next tick (on_exit schedules it).
  while #client_mod.all() > 0 and vim.uv.now() < deadline do
    async.sleep(20)
  end
  local ok = true
  for _, r in ipairs(roots) do
    local c = client_mod.ready(r, 20000)
    ok = ok and c ~= nil
  end
  return ok
end

-- Asks how the key is given: { stdin = key } | { env = NAME } | {} (none);
-- nil when dismissed.
local function ask_key(p)
  local ways = { "type", "env", "none" }
  if not p.cloud then
    ways = { "none", "type", "env" }
  end
  local way = select(ways, {
    prompt = t("setup.key_prompt"),
    kind = "rx_bridge.setup_key",
    format_item = function(w)
      return t("setup.key." .. w)
    end,
  })
  if way == "type" then
    -- inputsecret(): the key is not echoed and not put in any history.
    local ok, key = pcall(vim.fn.inputsecret, t("setup.key_secret_prompt"))
    -- The prompt line leaves the screen, the key was never on it.
    vim.cmd("redraw")
    if not ok or type(key) ~= "string" or vim.trim(key) == "" then
      note(t("setup.no_key"), vim.log.levels.WARN)
      return nil
    end
    return { stdin = vim.trim(key) }
  elseif way == "env" then
    local name = input({ prompt = t("setup.env_prompt"), default = p.key_env, kind = "rx_bridge.setup_env" })
    if not name or vim.trim(name) == "" then
      return nil
    end
    name = vim.trim(name)
    if not name:match("^[A-Za-z_][A-Za-z0-9_]*$") then
      note(t("setup.env_bad", name), vim.log.levels.ERROR)
      return nil
    end
    return { env = name }
  elseif way == "none" then
    return {}
  end
  return nil
end

local function setup_flow()
  if program_missing() then
    return
  end
  local p = select(M.PROVIDERS, {
    prompt = t("setup.provider_prompt"),
    kind = "rx_bridge.setup_provider",
    format_item = provider_label,
  })
  if not p then
    note(t("setup.cancelled"))
    return done(false)
  end
  local args = { "setup", "--provider", p.flag }
  if p.custom then
    local url = input({ prompt = t("setup.url_prompt"), kind = "rx_bridge.setup_url" })
    if not url or vim.trim(url) == "" then
      note(t("setup.cancelled"))
      return done(false)
    end
    vim.list_extend(args, { "--base-url", vim.trim(url) })
  end
  local key = ask_key(p)
  if not key then
    note(t("setup.cancelled"))
    return done(false)
  end
  if key.stdin then
    args[#args + 1] = "--api-key-stdin"
  elseif key.env then
    vim.list_extend(args, { "--api-key-env", key.env })
  end
  note(t("setup.listing", provider_label(p)))
  local list, err = decode(cli(vim.list_extend(vim.list_slice(args), { "--list-models", "--json" }), key.stdin))
  if not list then
    return fail(t("setup.failed", err))
  end
  local models = type(list.models) == "table" and list.models or {}
  if #models == 0 then
    return fail(t("setup.failed", t("setup.no_models")))
  end
  local m = select(models, {
    prompt = t("setup.model_prompt"),
    kind = "rx_bridge.setup_model",
    format_item = function(x)
      local s = text.line(x.id)
      if type(x.contextWindow) == "number" and x.contextWindow > 0 then
        s = s .. "  (" .. t("setup.context", tostring(x.contextWindow)) .. ")"
      end
      return s
    end,
  })
  if not m then
    note(t("setup.cancelled"))
    return done(false)
  end
  vim.list_extend(args, { "--model", m.id, "--json" })
  local res, werr = decode(cli(args, key.stdin))
  if not res and werr and werr:find("--replace", 1, true) then
    local again = select({ "replace", "cancel" }, {
      prompt = t("setup.exists_prompt", text.line(list.provider)),
      kind = "rx_bridge.setup_replace",
      format_item = function(w)
        return t("setup." .. w)
      end,
    })
    if again ~= "replace" then
      note(t("setup.cancelled"))
      return done(false)
    end
    args[#args + 1] = "--replace"
    res, werr = decode(cli(args, key.stdin))
  end
  key = nil
  if not res then
    return fail(t("setup.failed", werr))
  end
  local model = text.line(res.model)
  local lines = { t("setup.done", text.line(res.provider), model) }
  if type(res.keyFile) == "string" and res.keyFile ~= "" then
    lines[#lines + 1] = t("setup.key_stored", text.line(res.keyFile))
  elseif type(res.keyEnv) == "string" and res.keyEnv ~= "" then
    lines[#lines + 1] = t("setup.key_env_note", text.line(res.keyEnv))
  end
  note(table.concat(lines, "\n"))
  require("rx_bridge.log").add("info", "setup", lines[1])
  if not M.restart_bridges() then
    return done(false)
  end
  note(t("setup.restarted", model))
  return done(true)
end

--- :Rx setup
function M.setup()
  async.run(setup_flow)
end

-- The keys `rx-bridge setup --list-keys --json` lists that --remove-key
-- can remove: a key file, or a variable's name in config.toml. Never the
-- key itself. entries: that JSON's keys.
local function removable(entries)
  local out = {}
  for _, k in ipairs(type(entries) == "table" and entries or {}) do
    if type(k) == "table" and type(k.provider) == "string" and (k.stored or (type(k.keyEnv) == "string" and k.keyEnv ~= "")
      or (type(k.keyFile) == "string" and k.keyFile ~= "")) then
      out[#out + 1] = k
    end
  end
  return out
end

-- Where a listed key is, in words.
local function key_where(k)
  if k.configured == false then
    return t("keys.leftover", text.line(k.keyFile))
  elseif k.stored then
    return t("keys.stored", text.line(k.keyFile))
  elseif type(k.keyFile) == "string" and k.keyFile ~= "" then
    return t("keys.own_file", text.line(k.keyFile))
  end
  return t("keys.env", text.line(k.keyEnv))
end

--- The provider names :Rx setup remove-key completes: those with a key
--- (a synchronous `rx-bridge setup --list-keys --json`; {} when it fails).
function M.key_names()
  local cmd = { config.program(), "setup", "--list-keys", "--json" }
  local ok, res = pcall(function()
    return vim.system(cmd, { text = true, stdin = false, env = config.cli_env() }):wait(5000)
  end)
  if not ok or res.code ~= 0 then
    return {}
  end
  local dok, obj = pcall(vim.json.decode, res.stdout or "")
  local names = {}
  for _, k in ipairs(dok and type(obj) == "table" and removable(obj.keys) or {}) do
    names[#names + 1] = k.provider
  end
  return names
end

local function remove_key_flow(name)
  if program_missing() then
    return
  end
  local list, err = decode(cli({ "setup", "--list-keys", "--json" }))
  if not list then
    return fail(t("keys.failed", err))
  end
  local keys = removable(list.keys)
  local k
  if name then
    for _, x in ipairs(keys) do
      if x.provider == name then
        k = x
      end
    end
    if not k then
      return fail(t("keys.none_for", name))
    end
  else
    if #keys == 0 then
      note(t("keys.none"))
      return done(false)
    end
    k = select(keys, {
      prompt = t("keys.pick_prompt"),
      kind = "rx_bridge.remove_key",
      format_item = function(x)
        return text.line(x.provider) .. "  (" .. key_where(x) .. ")"
      end,
    })
    if not k then
      note(t("setup.cancelled"))
      return done(false)
    end
  end
  local sure = select({ "remove", "cancel" }, {
    prompt = t("keys.confirm", text.line(k.provider), key_where(k)),
    kind = "rx_bridge.remove_key_confirm",
    format_item = function(w)
      return t("keys." .. w)
    end,
  })
  if sure ~= "remove" then
    note(t("setup.cancelled"))
    return done(false)
  end
  local res, rerr = decode(cli({ "setup", "--remove-key", k.provider, "--json" }))
  if not res then
    return fail(t("keys.failed", rerr))
  end
  local lines = { t("keys.removed", text.line(k.provider)) }
  if type(res.deleted) == "string" and res.deleted ~= "" then
    lines[#lines + 1] = t("keys.deleted", text.line(res.deleted))
  end
  if type(res.kept) == "string" and res.kept ~= "" then
    lines[#lines + 1] = t("keys.kept", text.line(res.kept))
  end
  if type(res.keyEnv) == "string" and res.keyEnv ~= "" then
    lines[#lines + 1] = t("keys.env_left", text.line(res.keyEnv))
  end
  note(table.concat(lines, "\n"))
  require("rx_bridge.log").add("info", "setup", lines[1])
  if type(res.config) == "string" and res.config ~= "" and not M.restart_bridges() then
    return done(false)
  end
  return done(true)
end

--- :Rx setup remove-key [provider]: removes a stored API key (rx-bridge
--- setup --remove-key) after asking, then restarts the bridges.
function M.remove_key(name)
  async.run(function()
    remove_key_flow(name)
  end)
end

-- The preview window of :Rx install: a float over the editor, not focused.
local function show_preview(lines)
  local name = "rx-bridge://install-preview"
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = "hide"
    vim.bo[buf].swapfile = false
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, vim.o.columns - 4)
  local height = math.min(#lines, math.max(3, vim.o.lines - 8))
  local win = vim.api.nvim_open_win(buf, false, {
    relative = "editor",
    row = 1,
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width,
    height = height,
    style = "minimal",
    border = config.values.card.border,
    title = " rx-bridge plugin install ",
    focusable = true,
  })
  vim.wo[win].wrap = true
  return buf, win
end

local function reload_all()
  local client_mod = require("rx_bridge.client")
  for _, c in ipairs(client_mod.all()) do
    local err, res = async.request(c, "workspace/executeCommand", { command = "rx.reload", arguments = {} })
    if not err then
      res = type(res) == "table" and res or {}
      local st = require("rx_bridge.state").get(c.id)
      if st then
        require("rx_bridge.state").bump(st, res.generation)
      end
      note(t("install.reloaded", tostring(res.generation)))
      for _, w in ipairs(type(res.warnings) == "table" and res.warnings or {}) do
        note(text.clean(w), vim.log.levels.WARN)
      end
    end
  end
end

local function install_flow(source)
  if program_missing() then
    return
  end
  if not source or vim.trim(source) == "" then
    source = input({ prompt = t("install.source_prompt"), kind = "rx_bridge.install_source", completion = "dir" })
    if not source or vim.trim(source) == "" then
      return done(false)
    end
  end
  source = vim.trim(source)
  -- A folder is given to the CLI as an absolute path.
  local expanded = vim.fn.expand(source)
  if vim.fn.isdirectory(expanded) == 1 then
    source = vim.fn.fnamemodify(expanded, ":p"):gsub("/$", "")
  end
  local res = cli({ "plugin", "install", source, "--dry-run" })
  if res.code ~= 0 then
    return fail(t("install.failed", text.line(source), why(res)))
  end
  local lines = { t("install.preview_head"), "" }
  vim.list_extend(lines, text.lines(vim.trim(res.stdout or "")))
  local _, win = show_preview(lines)
  vim.cmd("redraw")
  local yes = select({ "yes", "no" }, {
    prompt = t("install.confirm_prompt"),
    kind = "rx_bridge.install_confirm",
    format_item = function(w)
      return t("install." .. w)
    end,
  })
  pcall(vim.api.nvim_win_close, win, true)
  if yes ~= "yes" then
    note(t("install.not_installed", text.line(source)))
    return done(false)
  end
  res = cli({ "plugin", "install", source, "--yes" })
  if res.code ~= 0 then
    return fail(t("install.failed", text.line(source), why(res)))
  end
  note(t("install.done", text.line(source)))
  reload_all()
  return done(true)
end

--- :Rx install [source]
function M.install(source)
  async.run(install_flow, source)
end

return M

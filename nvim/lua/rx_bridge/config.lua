-- Options of require("rx_bridge").setup() and their defaults.
local M = {}

M.defaults = {
  -- The command that starts the bridge; --home is appended when `home` is set.
  -- nil: { <program>, "serve" } with the program :RxInstall installed, else
  -- rx-bridge on $PATH (see M.program).
  cmd = nil,
  -- Extra environment for the bridge and for the CLI calls of :checkhealth.
  cmd_env = nil,
  -- The bridge home (RX_BRIDGE_HOME); nil lets rx-bridge pick it.
  home = nil,
  -- A workspace root is the nearest ancestor holding one of these, else the
  -- current directory. A function(bufnr) -> path replaces the search.
  root_markers = { ".git", ".hg", ".jj" },
  root_dir = nil,
  -- Attach file buffers to the bridge of their root as they are opened.
  autostart = true,
  -- "off" | "messages" | "verbose": with "verbose" every frame the bridge
  -- exchanges with a plugin lands in :Rx log.
  trace = "off",
  -- Multiselect picker: "auto" | "builtin" | "telescope" | "snacks" | "fzf-lua".
  picker = "auto",
  chat = {
    -- Where :RxChat opens: "vsplit" | "split" | "tab" | "current".
    open = "vsplit",
    -- Lines of a tool result shown under its tool call line.
    tool_output_lines = 3,
  },
  card = { border = "rounded", max_width = 80 },
  -- Milliseconds :qa waits for the bridge to shut its plugins down and exit.
  exit_timeout = 3000,
  -- Lines kept for :Rx log.
  log_max = 2000,
  -- The plugin's own messages: "auto" (zh-CN when v:lang or $LANG says
  -- zh_CN, zh-CN or zh_SG, else English), "en" or "zh-CN".
  language = "auto",
}

M.values = vim.deepcopy(M.defaults)

local function one_of(v, list)
  return vim.tbl_contains(list, v)
end

-- name, check(value) -> ok, expectation
local rules = {
  { "cmd", function(v) return v == nil or (type(v) == "table" and type(v[1]) == "string") end, "a list of strings, the program first" },
  { "cmd_env", function(v) return v == nil or type(v) == "table" end, "a table" },
  { "home", function(v) return v == nil or type(v) == "string" end, "a string" },
  { "root_markers", function(v) return type(v) == "table" end, "a list of file names" },
  { "root_dir", function(v) return v == nil or type(v) == "function" end, "a function(bufnr) -> path" },
  { "autostart", function(v) return type(v) == "boolean" end, "a boolean" },
  { "trace", function(v) return one_of(v, { "off", "messages", "verbose" }) end, "off|messages|verbose" },
  { "picker", function(v)
    return type(v) == "function" or one_of(v, { "auto", "builtin", "telescope", "snacks", "fzf-lua" })
  end, "auto|builtin|telescope|snacks|fzf-lua or a function" },
  { "chat", function(v)
    return type(v) == "table" and one_of(v.open, { "vsplit", "split", "tab", "current" })
      and type(v.tool_output_lines) == "number"
  end, "{ open = vsplit|split|tab|current, tool_output_lines = <number> }" },
  { "card", function(v) return type(v) == "table" and type(v.max_width) == "number" end, "{ border = ..., max_width = <number> }" },
  { "exit_timeout", function(v) return type(v) == "number" end, "a number (ms)" },
  { "log_max", function(v) return type(v) == "number" and v > 0 end, "a positive number" },
  { "language", function(v) return one_of(v, { "auto", "en", "zh-CN" }) end, "auto|en|zh-CN" },
}

local function check(opts)
  for _, r in ipairs(rules) do
    if not r[2](opts[r[1]]) then
      return false, ("%s: expected %s, got %s"):format(r[1], r[3], vim.inspect(opts[r[1]]))
    end
  end
  for k in pairs(opts) do
    if M.defaults[k] == nil and not vim.tbl_contains({ "cmd", "cmd_env", "home", "root_dir" }, k) then
      return false, ("%s: unknown option"):format(k)
    end
  end
  return true
end

--- Merges `opts` over the defaults. Returns false and a message naming the
--- bad option when it does not validate; the previous values then stay.
function M.set(opts)
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  -- Lists replace, they do not merge element-wise.
  if opts and opts.cmd then merged.cmd = vim.deepcopy(opts.cmd) end
  if opts and opts.root_markers then merged.root_markers = vim.deepcopy(opts.root_markers) end
  local ok, err = check(merged)
  if not ok then
    return false, err
  end
  M.values = merged
  return true
end

--- The program that runs the bridge: the first of `cmd`; without `cmd`,
--- the one :RxInstall installed, else rx-bridge (on $PATH).
function M.program()
  if M.values.cmd then
    return M.values.cmd[1]
  end
  return require("rx_bridge.install").installed() or "rx-bridge"
end

--- `cmd`, or its default { program(), "serve" }.
function M.cmd()
  return M.values.cmd and vim.deepcopy(M.values.cmd) or { M.program(), "serve" }
end

--- The serve command with --home added when configured.
function M.serve_cmd()
  local cmd = M.cmd()
  if M.values.home then
    vim.list_extend(cmd, { "--home", M.values.home })
  end
  return cmd
end

--- The home the bridge uses, as far as the configuration says: `home`, else
--- a --home in cmd, else nil (rx-bridge decides).
function M.home()
  if M.values.home then
    return M.values.home
  end
  local cmd = M.values.cmd or {}
  for i, a in ipairs(cmd) do
    if a == "--home" and cmd[i + 1] then
      return cmd[i + 1]
    end
    local v = a:match("^%-%-home=(.+)$")
    if v then
      return v
    end
  end
  return nil
end

--- Environment for CLI calls (version, plugin list), matching the bridge's.
function M.cli_env()
  local env = vim.deepcopy(M.values.cmd_env or {})
  local home = M.home()
  if home then
    env.RX_BRIDGE_HOME = home
  end
  -- The CLI's own texts (setup's errors, the FULL TRUST preview) in the
  -- plugin's language.
  if env.RX_BRIDGE_LANG == nil then
    local ok, i18n = pcall(require, "rx_bridge.i18n")
    if ok then
      env.RX_BRIDGE_LANG = i18n.lang()
    end
  end
  return env
end

return M

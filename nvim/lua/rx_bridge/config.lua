-- Options of require("rx_bridge").setup() and their defaults.
local M = {}

M.defaults = {
  -- The command that starts the bridge; --home is appended when `home` is set.
  cmd = { "rx-bridge", "serve" },
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
}

M.values = vim.deepcopy(M.defaults)

local function check(opts)
  local ok, err = pcall(vim.validate, {
    cmd = { opts.cmd, "table" },
    cmd_env = { opts.cmd_env, "table", true },
    home = { opts.home, "string", true },
    root_markers = { opts.root_markers, "table" },
    root_dir = { opts.root_dir, "function", true },
    autostart = { opts.autostart, "boolean" },
    trace = { opts.trace, function(v) return v == "off" or v == "messages" or v == "verbose" end, "off|messages|verbose" },
    picker = { opts.picker, function(v)
      return type(v) == "function" or vim.tbl_contains({ "auto", "builtin", "telescope", "snacks", "fzf-lua" }, v)
    end, "auto|builtin|telescope|snacks|fzf-lua or a function" },
    chat = { opts.chat, "table" },
    card = { opts.card, "table" },
    exit_timeout = { opts.exit_timeout, "number" },
    log_max = { opts.log_max, "number" },
  })
  if not ok then
    return false, err
  end
  if #opts.cmd == 0 or type(opts.cmd[1]) ~= "string" then
    return false, "cmd: expected a list of strings, the program first"
  end
  if not vim.tbl_contains({ "vsplit", "split", "tab", "current" }, opts.chat.open) then
    return false, "chat.open: expected vsplit|split|tab|current, got " .. tostring(opts.chat.open)
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

--- The serve command with --home added when configured.
function M.serve_cmd()
  local cmd = vim.deepcopy(M.values.cmd)
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
  local cmd = M.values.cmd
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
  return env
end

return M

-- :Rx and :RxChat.
local t_ = require("rx_bridge.i18n").t
local M = {}

local subcommands = {
  actions = function()
    require("rx_bridge.actions").pick()
  end,
  reload = function()
    require("rx_bridge.actions").reload()
  end,
  plugins = function()
    require("rx_bridge.actions").plugins()
  end,
  models = function()
    require("rx_bridge.actions").models()
  end,
  log = function()
    require("rx_bridge.log").open()
  end,
  cards = function()
    require("rx_bridge.card").pick()
  end,
  sessions = function()
    require("rx_bridge.sessions").pick()
  end,
  setup = function()
    require("rx_bridge.onboard").setup()
  end,
}

M.subcommand_names = { "actions", "cards", "install", "log", "models", "plugins", "reload", "sessions", "setup" }

--- key=value words to an args object (string values only).
local function parse_args(words)
  local args = {}
  for _, w in ipairs(words) do
    local k, v = w:match("^([^=]+)=(.*)$")
    if not k then
      return nil, t_("commands.not_kv", w)
    end
    args[k] = v
  end
  return args
end

function M.rx(opts)
  require("rx_bridge").ensure_setup()
  local words = opts.fargs
  local first = words[1] or "actions"
  if first == "install" then
    -- :Rx install [folder | git source]
    require("rx_bridge.onboard").install(#words > 1 and table.concat(vim.list_slice(words, 2), " ") or nil)
    return
  end
  if first == "setup" and words[2] == "remove-key" and #words <= 3 then
    -- :Rx setup remove-key [provider]
    require("rx_bridge.onboard").remove_key(words[3])
    return
  end
  local sub = subcommands[first]
  if sub then
    if #words > 1 then
      vim.notify("rx-bridge: " .. t_("commands.no_args", first), vim.log.levels.ERROR)
      return
    end
    sub()
    return
  end
  -- A slash command takes its words as they are; an action key=value.
  local actions = require("rx_bridge.actions")
  local a = actions.find({ actions = actions.cached() }, first)
  if actions.is_command(a) or (not actions.normalize(first) and vim.startswith(first, "/")) then
    actions.run_slash(first, vim.list_slice(words, 2))
    return
  end
  local args, err = parse_args(vim.list_slice(words, 2))
  if not args then
    vim.notify("rx-bridge: " .. err, vim.log.levels.ERROR)
    return
  end
  require("rx_bridge.actions").run(first, args)
end

function M.complete_rx(arglead, cmdline)
  require("rx_bridge").ensure_setup()
  local before = cmdline:match("^%s*%S+%s+(.*)$") or ""
  if before:match("^install%s+") then
    return vim.fn.getcompletion(arglead, "dir")
  end
  -- :Rx setup remove-key <provider>
  if before:match("^setup%s+remove%-key%s+%S*$") then
    return vim.tbl_filter(function(n)
      return vim.startswith(n, arglead)
    end, require("rx_bridge.onboard").key_names())
  end
  if before:match("^setup%s+%S*$") then
    return vim.startswith("remove-key", arglead) and { "remove-key" } or {}
  end
  -- Only the first argument completes.
  if before:find("%s") then
    return {}
  end
  local out = {}
  if not vim.startswith(arglead, "/") then
    for _, s in ipairs(M.subcommand_names) do
      if vim.startswith(s, arglead) then
        out[#out + 1] = s
      end
    end
  end
  for _, name in ipairs(require("rx_bridge.actions").names()) do
    if vim.startswith(name, arglead) or vim.startswith(name, "/" .. arglead) then
      out[#out + 1] = name
    end
  end
  return out
end

function M.chat(opts)
  require("rx_bridge").ensure_setup()
  if #opts.fargs > 1 then
    vim.notify("rx-bridge: " .. t_("commands.chat_one_model"), vim.log.levels.ERROR)
    return
  end
  require("rx_bridge.chat").open(opts.fargs[1])
end

function M.complete_chat(arglead)
  require("rx_bridge").ensure_setup()
  local out = {}
  for _, ref in ipairs(require("rx_bridge.actions").model_refs()) do
    if vim.startswith(ref, arglead) then
      out[#out + 1] = ref
    end
  end
  return out
end

return M

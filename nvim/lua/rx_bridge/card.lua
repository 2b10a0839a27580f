-- Cards (rx/ui/surface kind card), one per (client, plugin, surfaceId),
-- the latest version kept. A card never opens by itself: a new one is
-- announced with a notification naming :Rx cards, which lists them and
-- opens the chosen one in a floating, read-only markdown window (updated
-- in place when re-published, without taking focus). Its actions are
-- mappings (1-9, or <CR> on an action line) that run rx.runAction
-- "/<plugin>:<actionId>"; nothing else in a card does anything.
local config = require("rx_bridge.config")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

local ns = vim.api.nvim_create_namespace("rx_bridge.card")

-- key -> {key, n, client_id, plugin, title, generation, lines, actions,
-- action_rows}: every card received, the latest version of each.
M.cards = {}
-- key -> {buf, win}: the cards open in a window, with their card's fields.
M.open_cards = {}
local arrivals = 0

local ACTION_ID = "^[a-z0-9-]+$"

local function key(client_id, plugin, surface_id)
  return table.concat({ client_id, plugin, surface_id }, "\0")
end

---@param p rx.CardPayload
local function render(plugin, p)
  local lines, action_rows, actions = {}, {}, {}
  local function add(s)
    vim.list_extend(lines, text.lines(s))
  end
  if p.title and p.title ~= "" then
    add("# " .. text.line(p.title))
    lines[#lines + 1] = ""
  end
  if type(p.markdown) == "string" and p.markdown ~= "" then
    add(p.markdown)
  elseif type(p.text) == "string" and p.text ~= "" then
    add(p.text)
  end
  if type(p.fields) == "table" and #p.fields > 0 then
    lines[#lines + 1] = ""
    for _, f in ipairs(p.fields) do
      if type(f) == "table" then
        lines[#lines + 1] = ("- **%s**: %s"):format(text.line(f.key), text.line(f.value))
      end
    end
  end
  if type(p.progress) == "number" then
    lines[#lines + 1] = ""
    lines[#lines + 1] = t_("card.progress", math.floor(p.progress * 100 + 0.5))
  end
  if type(p.actions) == "table" then
    for _, a in ipairs(p.actions) do
      if type(a) == "table" and type(a.actionId) == "string" and a.actionId:match(ACTION_ID) then
        actions[#actions + 1] = { id = a.actionId, label = text.line((type(a.label) == "string" and a.label ~= "") and a.label or a.actionId) }
      end
    end
  end
  if #actions > 0 then
    lines[#lines + 1] = ""
    for i, a in ipairs(actions) do
      local keyname = i <= 9 and ("[%d]"):format(i) or "[CR]"
      lines[#lines + 1] = ("%s %s"):format(keyname, a.label)
      action_rows[#lines] = i
    end
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "— " .. t_("card.footer", plugin)
  return lines, actions, action_rows
end

local function size(lines)
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, config.values.card.max_width, vim.o.columns - 4)
  local height = math.min(#lines, math.max(vim.o.lines - 6, 3))
  return width, height
end

local function win_config(lines, plugin)
  local width, height = size(lines)
  return {
    relative = "editor",
    width = width,
    height = height,
    row = math.max(math.floor((vim.o.lines - height) / 2) - 1, 0),
    col = math.max(math.floor((vim.o.columns - width) / 2), 0),
    style = "minimal",
    border = config.values.card.border,
    title = " " .. plugin .. " ",
    title_pos = "center",
  }
end

local function set_lines(buf, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

function M.close(k)
  local c = M.open_cards[k]
  M.open_cards[k] = nil
  if c and c.win and vim.api.nvim_win_is_valid(c.win) then
    pcall(vim.api.nvim_win_close, c.win, true)
  end
  if c and c.buf and vim.api.nvim_buf_is_valid(c.buf) then
    pcall(vim.api.nvim_buf_delete, c.buf, { force = true })
  end
end

local function run(c, i)
  local card = M.cards[c.key]
  local a = card and card.actions[i]
  if not a then
    return
  end
  require("rx_bridge.actions").run_on(card.client_id, "/" .. card.plugin .. ":" .. a.id)
end

local function map(c)
  local buf = c.buf
  local o = { buffer = buf, nowait = true, silent = true }
  vim.keymap.set("n", "q", function()
    M.close(c.key)
  end, vim.tbl_extend("force", o, { desc = t_("map.card_close") }))
  vim.keymap.set("n", "<Esc>", function()
    M.close(c.key)
  end, vim.tbl_extend("force", o, { desc = t_("map.card_close") }))
  for i = 1, 9 do
    vim.keymap.set("n", tostring(i), function()
      run(c, i)
    end, vim.tbl_extend("force", o, { desc = t_("map.card_action", i) }))
  end
  vim.keymap.set("n", "<CR>", function()
    local row = vim.api.nvim_win_get_cursor(0)[1]
    local card = M.cards[c.key]
    local i = card and card.action_rows[row]
    if i then
      run(c, i)
    end
  end, vim.tbl_extend("force", o, { desc = t_("map.card_action_cursor") }))
end

local function highlight(c)
  vim.api.nvim_buf_clear_namespace(c.buf, ns, 0, -1)
  for row in pairs(M.cards[c.key].action_rows) do
    vim.api.nvim_buf_set_extmark(c.buf, ns, row - 1, 0, { end_row = row, end_col = 0, hl_group = "Special" })
  end
end

--- Opens card k in a focused floating window (the user asked for it), or
--- focuses it when open. Returns its buffer.
function M.open(k)
  local card = M.cards[k]
  if not card then
    return nil
  end
  local c = M.open_cards[k]
  if c and vim.api.nvim_buf_is_valid(c.buf) and vim.api.nvim_win_is_valid(c.win) then
    vim.api.nvim_set_current_win(c.win)
    return c.buf
  end
  M.close(k)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modeline = false
  set_lines(buf, card.lines)
  -- A broken markdown ftplugin or parser must not cost the card.
  local ok, err = pcall(function()
    vim.bo[buf].filetype = "markdown"
  end)
  if not ok then
    require("rx_bridge.log").add("warn", "card", t_("log.markdown_failed", tostring(err)))
  end
  local win = vim.api.nvim_open_win(buf, true, win_config(card.lines, card.plugin))
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].conceallevel = 2
  vim.wo[win].cursorline = #card.actions > 0
  c = { key = k, buf = buf, win = win }
  M.open_cards[k] = c
  map(c)
  highlight(c)
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      if M.open_cards[k] and M.open_cards[k].buf == buf then
        M.open_cards[k] = nil
      end
    end,
  })
  return buf
end

--- The cards received, in the order they first arrived.
function M.list()
  local out = vim.tbl_values(M.cards)
  table.sort(out, function(a, b)
    return a.n < b.n
  end)
  return out
end

--- :Rx cards: lists the cards through vim.ui.select and opens the chosen one.
function M.pick()
  local list = M.list()
  if #list == 0 then
    vim.notify("rx-bridge: " .. t_("card.none"), vim.log.levels.INFO)
    return
  end
  require("rx_bridge.async").run(function()
    local choice = require("rx_bridge.ui").select(list, {
      prompt = t_("card.pick_prompt"),
      kind = "rx_bridge.card",
      format_item = function(c)
        return c.plugin_name .. ": " .. c.title
      end,
    })
    if choice then
      M.open(choice.key)
    end
  end)
end

--- Keeps a card received (new or re-published): a new one is announced,
--- an open one is updated in place. Nothing takes focus.
---@param params rx.UISurface
function M.show(client_id, params)
  local plugin = text.line(params.plugin)
  ---@type rx.CardPayload
  local p = type(params.payload) == "table" and params.payload or {}
  local k = key(client_id, params.plugin, params.surfaceId)
  local lines, actions, action_rows = render(plugin, p)
  local card = M.cards[k]
  local new = card == nil
  if new then
    arrivals = arrivals + 1
    card = { key = k, n = arrivals, client_id = client_id }
    M.cards[k] = card
  end
  card.plugin = params.plugin
  card.plugin_name = plugin
  card.title = text.line((type(p.title) == "string" and p.title ~= "") and p.title or params.surfaceId)
  card.generation = params.generation
  card.lines = lines
  card.actions = actions
  card.action_rows = action_rows
  local c = M.open_cards[k]
  if c and vim.api.nvim_buf_is_valid(c.buf) and vim.api.nvim_win_is_valid(c.win) then
    set_lines(c.buf, lines)
    vim.api.nvim_win_set_config(c.win, win_config(lines, plugin))
    highlight(c)
  elseif new then
    vim.notify(t_("card.new", plugin, card.title), vim.log.levels.INFO,
      { title = "rx-bridge: " .. plugin })
  end
  require("rx_bridge.log").add("info", plugin, t_("log.card", text.line(params.surfaceId), card.title))
  return card
end

--- Forgets (and closes) the cards of a client: all, or those older than
--- `generation`.
function M.forget(client_id, generation)
  for k, c in pairs(M.cards) do
    if c.client_id == client_id and (generation == nil or (type(c.generation) == "number" and c.generation < generation)) then
      M.close(k)
      M.cards[k] = nil
    end
  end
end

return M

-- Cards (rx/ui/surface kind card): a floating, read-only markdown window
-- per (client, plugin, surfaceId), updated in place when re-published. Its
-- actions are mappings (1-9, or <CR> on an action line) that run
-- rx.runAction "/<plugin>:<actionId>"; nothing else in a card does anything.
local config = require("rx_bridge.config")
local text = require("rx_bridge.text")

local M = {}

local ns = vim.api.nvim_create_namespace("rx_bridge.card")

-- key -> {buf, win, client_id, plugin, generation, actions, action_rows}
M.open_cards = {}

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
    lines[#lines + 1] = ("Progress: %d%%"):format(math.floor(p.progress * 100 + 0.5))
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
  lines[#lines + 1] = ("— %s · q closes"):format(plugin)
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
  local a = c.actions[i]
  if not a then
    return
  end
  require("rx_bridge.actions").run_on(c.client_id, "/" .. c.plugin .. ":" .. a.id)
end

local function map(c)
  local buf = c.buf
  local o = { buffer = buf, nowait = true, silent = true }
  vim.keymap.set("n", "q", function()
    M.close(c.key)
  end, vim.tbl_extend("force", o, { desc = "close card" }))
  vim.keymap.set("n", "<Esc>", function()
    M.close(c.key)
  end, vim.tbl_extend("force", o, { desc = "close card" }))
  for i = 1, 9 do
    vim.keymap.set("n", tostring(i), function()
      run(c, i)
    end, vim.tbl_extend("force", o, { desc = "run card action " .. i }))
  end
  vim.keymap.set("n", "<CR>", function()
    local row = vim.api.nvim_win_get_cursor(0)[1]
    local i = c.action_rows[row]
    if i then
      run(c, i)
    end
  end, vim.tbl_extend("force", o, { desc = "run the card action under the cursor" }))
end

--- Shows or updates a card. Returns its buffer.
---@param params rx.UISurface
function M.show(client_id, params)
  local plugin = text.line(params.plugin)
  ---@type rx.CardPayload
  local p = type(params.payload) == "table" and params.payload or {}
  local k = key(client_id, params.plugin, params.surfaceId)
  local lines, actions, action_rows = render(plugin, p)
  local c = M.open_cards[k]
  if c and not (vim.api.nvim_buf_is_valid(c.buf) and vim.api.nvim_win_is_valid(c.win)) then
    M.close(k)
    c = nil
  end
  if not c then
    local buf = vim.api.nvim_create_buf(false, true)
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    vim.bo[buf].modeline = false
    set_lines(buf, lines)
    -- A broken markdown ftplugin or parser must not cost the card.
    local ok, err = pcall(function()
      vim.bo[buf].filetype = "markdown"
    end)
    if not ok then
      require("rx_bridge.log").add("warn", "card", "markdown highlighting failed: " .. tostring(err))
    end
    local win = vim.api.nvim_open_win(buf, true, win_config(lines, plugin))
    vim.wo[win].wrap = true
    vim.wo[win].linebreak = true
    vim.wo[win].conceallevel = 2
    vim.wo[win].cursorline = #actions > 0
    c = { key = k, buf = buf, win = win, client_id = client_id }
    M.open_cards[k] = c
    map(c)
    vim.api.nvim_create_autocmd("BufWipeout", {
      buffer = buf,
      once = true,
      callback = function()
        if M.open_cards[k] and M.open_cards[k].buf == buf then
          M.open_cards[k] = nil
        end
      end,
    })
  else
    set_lines(c.buf, lines)
    vim.api.nvim_win_set_config(c.win, win_config(lines, plugin))
  end
  c.plugin = params.plugin
  c.generation = params.generation
  c.actions = actions
  c.action_rows = action_rows
  vim.api.nvim_buf_clear_namespace(c.buf, ns, 0, -1)
  for row in pairs(action_rows) do
    vim.api.nvim_buf_set_extmark(c.buf, ns, row - 1, 0, { end_row = row, end_col = 0, hl_group = "Special" })
  end
  return c.buf
end

--- Closes the cards of a client (all, or those older than `generation`).
function M.forget(client_id, generation)
  for k, c in pairs(M.open_cards) do
    if c.client_id == client_id and (generation == nil or (type(c.generation) == "number" and c.generation < generation)) then
      M.close(k)
    end
  end
end

return M

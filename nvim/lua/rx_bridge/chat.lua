-- :RxChat: an agent session (rx/session/*) in a prompt buffer. The prompt
-- line is the last line; the answer streams in above it with tool calls and
-- permission questions inline. <CR> sends (queued while a turn runs),
-- <C-c> cancels the running turn, gm switches the model. A virtual line
-- above the prompt says a turn runs and what is queued.
local async = require("rx_bridge.async")
local config = require("rx_bridge.config")
local log = require("rx_bridge.log")
local text = require("rx_bridge.text")
local context = require("rx_bridge.context")
local t_ = require("rx_bridge.i18n").t

local M = {}

local ns = vim.api.nvim_create_namespace("rx_bridge.chat")
local busy_ns = vim.api.nvim_create_namespace("rx_bridge.chat.busy")
local PROMPT = "> "

-- "<client_id>\0<sessionId>" -> chat
M.chats = {}
local counter = 0
local open_window -- defined below
local source_buffer -- defined below
local submit_detached -- defined below
local reattach -- defined below
-- Chats whose bridge exited, waiting to resume on the next one: chat -> true.
local detached = setmetatable({}, { __mode = "k" })

local function key(client_id, session_id)
  return tostring(client_id) .. "\0" .. tostring(session_id)
end

local function set_hl()
  local links = {
    RxBridgeChatMeta = "Comment",
    RxBridgeChatTool = "Special",
    RxBridgeChatThought = "Comment",
    RxBridgeChatNotice = "WarningMsg",
    RxBridgeChatError = "ErrorMsg",
    RxBridgeChatPermission = "Question",
  }
  for group, link in pairs(links) do
    vim.api.nvim_set_hl(0, group, { link = link, default = true })
  end
end

local function valid(chat)
  return chat.buf and vim.api.nvim_buf_is_valid(chat.buf)
end

-- Row (0-based) of the prompt line, the buffer's last.
local function prompt_row(chat)
  return vim.api.nvim_buf_line_count(chat.buf) - 1
end

local function highlight(chat, first, last, group)
  if not group then
    return
  end
  for row = first, last do
    vim.api.nvim_buf_set_extmark(chat.buf, ns, row, 0, { end_row = row + 1, end_col = 0, hl_group = group })
  end
end

local function mark(chat, row, id)
  return vim.api.nvim_buf_set_extmark(chat.buf, ns, row, 0, { id = id, right_gravity = true })
end

local function mark_row(chat, id)
  local pos = vim.api.nvim_buf_get_extmark_by_id(chat.buf, ns, id, {})
  return pos[1]
end

local function scroll(chat)
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    if win ~= vim.api.nvim_get_current_win() or vim.fn.mode() ~= "i" then
      pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(chat.buf), 0 })
    end
  end
end

--- Inserts whole lines above the prompt; returns their first row.
local function out(chat, lines, group)
  if not valid(chat) then
    return nil
  end
  chat.stream = nil
  local row = prompt_row(chat)
  vim.api.nvim_buf_set_lines(chat.buf, row, row, false, lines)
  highlight(chat, row, row + #lines - 1, group)
  vim.bo[chat.buf].modified = false
  scroll(chat)
  return row
end

--- Appends streamed text of a kind ("answer", "thought") above the prompt.
local function stream(chat, kind, s)
  if not valid(chat) or s == "" then
    return
  end
  local pieces = text.lines(s)
  local prefix = kind == "thought" and "· " or ""
  if chat.stream and chat.stream.kind == kind then
    local row = mark_row(chat, chat.stream.mark)
    local current = vim.api.nvim_buf_get_lines(chat.buf, row, row + 1, false)[1] or ""
    pieces[1] = current .. pieces[1]
    for i = 2, #pieces do
      pieces[i] = prefix .. pieces[i]
    end
    vim.api.nvim_buf_set_lines(chat.buf, row, row + 1, false, pieces)
    if kind == "thought" then
      highlight(chat, row, row + #pieces - 1, "RxBridgeChatThought")
    end
    chat.stream.mark = mark(chat, row + #pieces - 1, chat.stream.mark)
  else
    for i = 1, #pieces do
      pieces[i] = prefix .. pieces[i]
    end
    local row = out(chat, pieces, kind == "thought" and "RxBridgeChatThought" or nil)
    chat.stream = { kind = kind, mark = mark(chat, row + #pieces - 1) }
  end
  vim.bo[chat.buf].modified = false
  scroll(chat)
end

local function tool_line(t)
  return ("⚙ %s%s [%s]"):format(t.title, t.kind ~= "" and (" (" .. t.kind .. ")") or "", t.status)
end

local function content_text(content)
  local parts = {}
  if type(content) ~= "table" then
    return ""
  end
  for _, c in ipairs(content) do
    if type(c) == "table" then
      local inner = c.content
      if type(inner) == "table" and inner.type == "text" then
        parts[#parts + 1] = text.clean(inner.text)
      elseif c.type == "text" then
        parts[#parts + 1] = text.clean(c.text)
      elseif c.type == "diff" and c.path then
        parts[#parts + 1] = "diff " .. text.line(c.path)
      end
    end
  end
  return table.concat(parts, "\n")
end

-- Rewrites a tool call's block: its line, its permission lines (the
-- question, then its answer), the first lines of its output.
local function render_tool(chat, t)
  local row = mark_row(chat, t.mark)
  local lines = { tool_line(t) }
  vim.list_extend(lines, t.perm or {})
  vim.list_extend(lines, t.preview_lines or {})
  vim.api.nvim_buf_set_lines(chat.buf, row, row + 1 + t.preview, false, lines)
  t.mark = mark(chat, row, t.mark)
  t.preview = #lines - 1
  highlight(chat, row, row, "RxBridgeChatTool")
  local np = #(t.perm or {})
  if np > 0 then
    highlight(chat, row + 1, row + np, "RxBridgeChatPermission")
  end
  highlight(chat, row + 1 + np, row + #lines - 1, "RxBridgeChatMeta")
  vim.bo[chat.buf].modified = false
end

---@param u rx.ToolCallUpdate
local function on_tool_call(chat, u)
  -- toolCallId is unique within the session (not the model's own id).
  local id = text.line(u.toolCallId)
  local t = chat.tools[id]
  -- A subagent run's tool calls are named after it.
  local prefix = type(u.subagent) == "table" and (text.line(u.subagent.name) .. " › ") or ""
  if not t then
    t = { title = prefix .. text.line(u.title), kind = text.line(u.kind), status = text.line(u.status or "pending"), preview = 0 }
    chat.tools[id] = t
    local row = out(chat, { tool_line(t) }, "RxBridgeChatTool")
    t.mark = mark(chat, row)
    return
  end
  if u.title then t.title = prefix .. text.line(u.title) end
  if u.kind then t.kind = text.line(u.kind) end
  if u.status then t.status = text.line(u.status) end
  local body = content_text(u.content)
  local n = config.values.chat.tool_output_lines
  if body ~= "" and n > 0 then
    -- Else the preview an earlier update showed stays.
    local preview = {}
    local blines = text.lines(body)
    for i = 1, math.min(n, #blines) do
      preview[#preview + 1] = "    " .. blines[i]
    end
    if #blines > n then
      preview[#preview + 1] = t_("chat.more_lines", #blines - n)
    end
    t.preview_lines = preview
  end
  render_tool(chat, t)
  chat.stream = nil
end

--- rx/session/update
---@param params rx.SessionUpdate
function M.on_update(client_id, params)
  local chat = M.chats[key(client_id, params.sessionId)]
  local u = params.update
  -- A session resumed after a restart replays what the buffer shows.
  if not chat or type(u) ~= "table" or chat.replaying then
    return
  end
  local kind = u.sessionUpdate
  local sub = type(u.subagent) == "table" and u.subagent or nil
  if sub and (kind == "agent_message_chunk" or kind == "agent_thought_chunk") then
    -- A subagent run's text is its own: only its answer, as the result of
    -- the call that started it, reaches the session. One line says it runs.
    chat.subagents = chat.subagents or {}
    local id = text.line(sub.id)
    if not chat.cancelled and not chat.subagents[id] then
      chat.subagents[id] = true
      out(chat, { "  🧬 " .. t_("chat.subagent_working", text.line(sub.name)) }, "RxBridgeChatNotice")
    end
    return
  end
  if kind == "agent_message_chunk" or kind == "agent_thought_chunk" then
    if chat.cancelled then
      return
    end
    local c = type(u.content) == "table" and u.content or {}
    if c.type == "text" or c.type == nil then
      if kind == "agent_message_chunk" then
        chat.got_text = true
      end
      stream(chat, kind == "agent_message_chunk" and "answer" or "thought", text.clean(c.text))
    end
  elseif kind == "tool_call" or kind == "tool_call_update" then
    on_tool_call(chat, u)
  elseif kind == "usage" then
    -- One per model call; a turn with tool calls has several.
    if type(u.usage) == "table" and type(u.usage.totalTokens) == "number" then
      local t = chat.tokens or { total = 0, prompt = 0, completion = 0, cached = 0 }
      t.total = t.total + u.usage.totalTokens
      t.prompt = t.prompt + (tonumber(u.usage.promptTokens) or 0)
      t.completion = t.completion + (tonumber(u.usage.completionTokens) or 0)
      t.cached = t.cached + (tonumber(u.usage.cacheHitTokens) or 0)
      chat.tokens = t
    end
  elseif kind == "notice" then
    -- A plugin whose crash was told (one message naming :Rx reload) is not
    -- reported again by each turn it misses: to :Rx log only.
    local st = require("rx_bridge.state").get(client_id)
    local notice = text.line(u.text)
    for plugin, ps in pairs(st and st.plugin_states or {}) do
      if ps.state == "crashed" and (notice:find("extension " .. plugin .. " ", 1, true)
          or notice:find("sidecar " .. plugin .. " ", 1, true)) then
        log.add("warn", plugin, notice)
        return
      end
    end
    out(chat, { "! " .. (sub and (text.line(sub.name) .. ": ") or "") .. text.line(u.text) }, u.severity == "error" and "RxBridgeChatError" or "RxBridgeChatNotice")
  elseif kind == "permission" then
    if u.by ~= "user" then
      out(chat, { "  " .. t_("chat.permission_by", text.line(u.outcome), text.line(u.by)) }, "RxBridgeChatPermission")
    end
  elseif kind == "user_message_chunk" then
    -- A live turn's prompt is already in the buffer (the prompt line the
    -- user sent); only a replayed transcript (rx/session/load) shows it.
    if chat.busy then
      return
    end
    local c = type(u.content) == "table" and u.content or {}
    out(chat, vim.tbl_map(function(l)
      return PROMPT .. l
    end, text.lines(c.text)))
  end
end

--- rx/session/requestPermission (inside the server request's coroutine).
---@param params rx.PermissionRequest
---@return rx.PermissionResult
function M.on_permission(client_id, params)
  local chat = M.chats[key(client_id, params.sessionId)]
  local tc = type(params.toolCall) == "table" and params.toolCall or {}
  local title = text.line(tc.title)
  local options = {}
  for _, o in ipairs(type(params.options) == "table" and params.options or {}) do
    if type(o) == "table" and type(o.optionId) == "string" then
      options[#options + 1] = o
    end
  end
  local head = t_("chat.permission", title .. (tc.kind and (" (" .. text.line(tc.kind) .. ")") or ""))
  local raw_line
  if tc.rawInput ~= nil then
    local ok, raw = pcall(vim.json.encode, tc.rawInput)
    if ok then
      raw = text.line(raw)
      if #raw > 200 then
        raw = raw:sub(1, 200) .. "…"
      end
      raw_line = "    " .. raw
    end
  end
  -- The question goes right under its tool call's line (before the output
  -- it guards) when the call is shown, else above the prompt. Answered, it
  -- is rewritten as the answer: nothing there is a question any more.
  local t = chat and tc.toolCallId and chat.tools[text.line(tc.toolCallId)] or nil
  local row -- of the question when not under a tool call
  local function show(first)
    local lines = { first }
    if raw_line then
      lines[2] = raw_line
    end
    if not (chat and valid(chat)) then
      return
    end
    if t then
      t.perm = lines
      render_tool(chat, t)
    elseif row then
      vim.api.nvim_buf_set_lines(chat.buf, row, row + #lines, false, lines)
      highlight(chat, row, row + #lines - 1, "RxBridgeChatPermission")
      vim.bo[chat.buf].modified = false
    else
      row = out(chat, lines, "RxBridgeChatPermission")
    end
  end
  show("? " .. head)
  if #options == 0 then
    show("✗ " .. head .. " → " .. t_("chat.permission_no_options"))
    return { outcome = { outcome = "cancelled" } }
  end
  local choice = async.exclusive(function()
    -- A select that blocks (inputlist) shows over a screen that is not
    -- redrawn until it is answered: show the call and the question first.
    if chat and valid(chat) then
      scroll(chat)
      vim.cmd("redraw")
    end
    return require("rx_bridge.ui").select(options, {
      prompt = t_("chat.permission_prompt", title),
      kind = "rx_bridge.permission",
      format_item = function(o)
        return text.line(o.name ~= nil and o.name or o.optionId)
      end,
    })
  end)
  if not choice then
    show("✗ " .. head .. " → " .. t_("chat.permission_dismissed"))
    return { outcome = { outcome = "cancelled" } }
  end
  local allow = type(choice.kind) == "string" and choice.kind:find("^allow") ~= nil
  show((allow and "✓ " or "✗ ") .. head .. " → " .. text.line(choice.name or choice.optionId))
  return { outcome = { outcome = "selected", optionId = choice.optionId } }
end

local function client_of(chat)
  return chat.client_id and vim.lsp.get_client_by_id(chat.client_id) or nil
end

-- Stop reasons as people say them.
local STOPS = {
  end_turn = "chat.stop.end_turn",
  cancelled = "chat.stop.cancelled",
  max_tokens = "chat.stop.max_tokens",
  max_turn_requests = "chat.stop.max_turn_requests",
  refusal = "chat.stop.refusal",
}

--- The words for a stop reason; an unknown one is shown as it is.
function M.stop_text(reason)
  reason = text.line(reason or "end_turn")
  return STOPS[reason] and t_(STOPS[reason]) or t_("chat.stop.other", (reason:gsub("_", " ")))
end

--- "12 tokens (10 in, 2 out, 4 cached)" for a turn's usage, or nil.
local function usage_text(t)
  if not t then
    return nil
  end
  if t.cached > 0 then
    return t_("chat.usage_cached", t.total, t.prompt, t.completion, t.cached)
  end
  return t_("chat.usage", t.total, t.prompt, t.completion)
end

--- The virtual lines above the prompt: while a turn runs, how long it
--- has run, what is queued, how to cancel; the selections the next prompt
--- attaches (:RxChatAdd).
local function show_busy(chat)
  if not valid(chat) then
    return
  end
  vim.api.nvim_buf_clear_namespace(chat.buf, busy_ns, 0, -1)
  local lines = {}
  if chat.busy then
    local secs = math.floor((vim.uv.now() - chat.started) / 1000)
    lines[1] = { { "⏳ " .. t_("chat.working", secs), "RxBridgeChatMeta" } }
    for _, q in ipairs(chat.queue) do
      lines[#lines + 1] = { { "⏸ " .. t_("chat.queued", text.line(q.prompt)), "RxBridgeChatNotice" } }
    end
  end
  for _, a in ipairs(chat.pending or {}) do
    lines[#lines + 1] = { { "📎 " .. t_("chat.next_prompt_attach", text.line(a.label)), "RxBridgeChatMeta" } }
  end
  -- An edit waiting for the user's review: the turn waits on it.
  if chat.client_id then
    local review = require("rx_bridge.review")
    for _, rv in ipairs(review.pending_of(chat.client_id)) do
      lines[#lines + 1] = { { "✎ " .. t_("chat.review_waiting", review.names(rv)), "RxBridgeChatPermission" } }
    end
  end
  if #lines > 0 then
    vim.api.nvim_buf_set_extmark(chat.buf, busy_ns, prompt_row(chat), 0, { virt_lines = lines, virt_lines_above = true })
  end
  -- The buffer's state for statuslines: b:rx_bridge_busy.
  vim.b[chat.buf].rx_bridge_busy = chat.busy
end

--- Redraws every chat's virtual lines (a review started or ended).
function M.refresh_all()
  for _, chat in pairs(M.chats) do
    if valid(chat) then
      show_busy(chat)
    end
  end
end

local function stop_busy(chat)
  if chat.timer then
    chat.timer:stop()
    chat.timer:close()
    chat.timer = nil
  end
  if valid(chat) then
    show_busy(chat)
  end
end

local run_turn -- defined below

---@param res rx.PromptResult
local function finish_turn(chat, err, res)
  chat.busy = false
  stop_busy(chat)
  if not valid(chat) then
    return
  end
  if err then
    out(chat, vim.tbl_map(function(l)
      return t_("chat.error", l)
    end, text.lines(require("rx_bridge.actions").err_text(err))), "RxBridgeChatError")
  else
    res = type(res) == "table" and res or {}
    if not chat.got_text and not chat.cancelled and type(res.text) == "string" and res.text ~= "" then
      stream(chat, "answer", text.clean(res.text))
    end
    -- The bridge's stop reason, whatever <C-c> asked for.
    local reason = text.line(res.stopReason or "end_turn")
    local foot = "— " .. M.stop_text(reason)
    local usage = usage_text(chat.tokens)
    if usage then
      foot = foot .. " · " .. usage
    end
    out(chat, { foot }, reason == "end_turn" and "RxBridgeChatMeta" or "RxBridgeChatNotice")
    if type(res.edits) == "table" and #res.edits > 0 then
      local files = {}
      for _, e in ipairs(res.edits) do
        if type(e) == "table" and type(e.path) == "string" then
          files[#files + 1] = "  " .. text.line(vim.fn.fnamemodify(e.path, ":~:.")) .. (e.created and (" " .. t_("chat.new_file")) or "")
        end
      end
      local row = out(chat, { t_("chat.changed_files", tostring(res.turn or "?")) }, "RxBridgeChatMeta")
      if row and res.turn then
        chat.undo_marks = chat.undo_marks or {}
        chat.undo_marks[tostring(res.turn)] = mark(chat, row)
      end
      out(chat, files, "RxBridgeChatMeta")
    end
  end
  chat.cancelled = false
  -- The turn's edits are on disk: buffers equal to their file are not 'modified'.
  require("rx_bridge.review").sync_modified(chat.root)
  -- The next queued prompt, shown where the user would have typed it.
  local nxt = table.remove(chat.queue, 1)
  if nxt and client_of(chat) then
    out(chat, { PROMPT .. nxt.prompt })
    run_turn(chat, nxt)
  end
end

--- Shows what a prompt attached, under its prompt line.
local function show_attached(chat, item)
  if #item.labels > 0 then
    out(chat, { "  📎 " .. t_("chat.attached", text.line(table.concat(item.labels, ", "))) }, "RxBridgeChatMeta")
  end
end

--- A prompt and what it attaches (#buffer, #file:<path>, the pending
--- selections, which it takes). Returns the item or nil, error.
local function prepare(chat, prompt, plain)
  if plain then
    return { prompt = prompt, resources = {}, labels = {} }
  end
  local from = chat.from
  local alt = vim.fn.bufnr("#")
  if vim.api.nvim_get_current_buf() == chat.buf and context.is_source(alt) then
    from = alt
  end
  local resources, labels = context.resolve(prompt, from, chat.root, chat.pending)
  if not resources then
    return nil, labels
  end
  chat.pending = {}
  return { prompt = prompt, resources = resources, labels = labels }
end

function run_turn(chat, item)
  show_attached(chat, item)
  local c = client_of(chat)
  chat.turn = (chat.turn or 0) + 1
  local turn = chat.turn
  chat.busy = true
  chat.cancelled = false
  chat.got_text = false
  chat.tokens = nil
  chat.stream = nil
  chat.started = vim.uv.now()
  show_busy(chat)
  chat.timer = vim.uv.new_timer()
  chat.timer:start(1000, 1000, vim.schedule_wrap(function()
    if chat.busy then
      show_busy(chat)
    end
  end))
  async.run(function()
    local params = { sessionId = chat.session_id, prompt = item.prompt }
    if #item.resources > 0 then
      params.resources = item.resources
    end
    local err, res = async.request(c, "rx/session/prompt", params)
    -- A turn whose bridge exited was ended by forget; a later one may run.
    if chat.turn == turn then
      finish_turn(chat, err, res)
    end
  end)
end

--- Undoes the files of the chat's last turn not undone yet
--- (rx/session/undoTurn); force also restores files changed since. chat
--- defaults to the current buffer's, else the only open chat.
function M.undo_turn(chat, force)
  if not chat then
    chat = M.for_buffer(vim.api.nvim_get_current_buf())
    if not chat then
      local all = vim.tbl_values(M.chats)
      chat = #all == 1 and all[1] or nil
    end
  end
  if not chat then
    vim.notify("rx-bridge: " .. t_("chat.undo_needs_chat"), vim.log.levels.ERROR)
    return
  end
  local c = client_of(chat)
  if not c then
    vim.notify("rx-bridge: " .. t_("chat.bridge_gone"), vim.log.levels.ERROR)
    return
  end
  async.run(function()
    local params = { sessionId = chat.session_id }
    if force then
      params.force = true
    end
    local err, res = async.request(c, "rx/session/undoTurn", params)
    if err then
      local msg = t_("chat.undo_failed", require("rx_bridge.actions").err_text(err))
      out(chat, { msg }, "RxBridgeChatError")
      vim.notify("rx-bridge: " .. msg, vim.log.levels.WARN)
      return
    end
    ---@type rx.UndoTurnResult
    res = type(res) == "table" and res or {}
    local lines = { "— " .. t_("chat.undid", tostring(res.turn), #(res.restored or {})) }
    for _, s in ipairs(res.skipped or {}) do
      lines[#lines + 1] = "  " .. t_("chat.skipped", text.line(vim.fn.fnamemodify(s.path or "", ":~:.")), text.line(s.reason))
    end
    out(chat, lines, #(res.skipped or {}) > 0 and "RxBridgeChatNotice" or "RxBridgeChatMeta")
    -- The undone turn's line offers its undo no more.
    local id = chat.undo_marks and chat.undo_marks[tostring(res.turn)]
    if id and valid(chat) then
      local row = mark_row(chat, id)
      vim.api.nvim_buf_set_lines(chat.buf, row, row + 1, false, { t_("chat.changed_files_undone", tostring(res.turn)) })
      highlight(chat, row, row, "RxBridgeChatMeta")
      vim.bo[chat.buf].modified = false
      chat.undo_marks[tostring(res.turn)] = nil
    end
    require("rx_bridge.review").sync_modified(chat.root)
    if chat.on_undo then
      chat.on_undo(res)
    end
  end)
end

--- Queues a prompt while a turn runs: it is sent when the turn ends.
local function enqueue(chat, item)
  chat.queue[#chat.queue + 1] = item
  show_busy(chat)
end

--- Sends a prompt (the prompt buffer's callback). While a turn runs, the
--- line just entered leaves the buffer (the answer goes on streaming
--- above the prompt) and the prompt is queued.
function M.submit(chat, prompt)
  if prompt:match("^%s*$") then
    return
  end
  if not client_of(chat) and not detached[chat] then
    out(chat, { t_("chat.error", t_("chat.bridge_gone_new")) }, "RxBridgeChatError")
    return
  end
  local item, err = prepare(chat, prompt)
  if not item then
    -- Nothing is sent; the prompt goes back to the prompt line.
    out(chat, { t_("chat.error", t_("chat.not_sent", text.line(err))) }, "RxBridgeChatError")
    if valid(chat) then
      vim.api.nvim_buf_set_lines(chat.buf, -2, -1, false, { PROMPT .. prompt })
      vim.bo[chat.buf].modified = false
    end
    return
  end
  if detached[chat] then
    submit_detached(chat, item)
    return
  end
  if chat.busy then
    local row = prompt_row(chat) - 1
    if valid(chat) and row >= 0 and vim.api.nvim_buf_get_lines(chat.buf, row, row + 1, false)[1] == PROMPT .. prompt then
      vim.api.nvim_buf_set_lines(chat.buf, row, row + 1, false, {})
      vim.bo[chat.buf].modified = false
    end
    enqueue(chat, item)
    return
  end
  run_turn(chat, item)
end

--- Sends line as if typed at the prompt: it shows as the prompt line, then
--- the turn runs (queued while one runs).
function M.submit_line(chat, line)
  local item = prepare(chat, line, true)
  if chat.busy then
    enqueue(chat, item)
    return
  end
  if not client_of(chat) then
    M.submit(chat, line)
    return
  end
  out(chat, { PROMPT .. line })
  run_turn(chat, item)
end

--- The client of chat for a setting change, or nil after saying why not.
local function settable(chat, what)
  local c = client_of(chat)
  if not c then
    vim.notify("rx-bridge: " .. t_("chat.not_running_" .. what),
      vim.log.levels.WARN)
  end
  return c
end

--- A model of rx/models as the picker shows it: its display name, its
--- ref, its context window ("Echo (small) · plugin/…/small · 8192 context").
function M.model_label(m)
  local parts = {}
  local name = text.line(m.displayName)
  if name ~= "" and name ~= m.ref then
    parts[#parts + 1] = name
  end
  parts[#parts + 1] = text.line(m.ref)
  if type(m.contextWindow) == "number" and m.contextWindow > 0 then
    parts[#parts + 1] = t_("setup.context", tostring(m.contextWindow))
  end
  return table.concat(parts, " · ")
end

--- Switches the chat's model (rx/session/setModel): the running turn
--- keeps its model, the next one uses this. Without a ref, the catalog is
--- offered through vim.ui.select.
function M.set_model(chat, ref)
  async.run(function()
    local c = settable(chat, "model")
    if not c then
      return
    end
    local actions = require("rx_bridge.actions")
    if not ref or ref == "" then
      local st = require("rx_bridge.state").get(c.id)
      local res = st and (st.models or actions.fetch_models(c, st)) or {}
      local models = {}
      for _, m in ipairs(type(res.models) == "table" and res.models or {}) do
        if type(m) == "table" and type(m.ref) == "string" then
          models[#models + 1] = m
        end
      end
      if #models == 0 then
        vim.notify("rx-bridge: " .. t_("chat.no_models"), vim.log.levels.WARN)
        return
      end
      -- Asked at once, not queued behind a plugin's question (or the
      -- permission question the turn waits on): the user asked for it.
      local m = require("rx_bridge.ui").select(models, {
        prompt = t_("chat.model_prompt", text.line(chat.model)),
        kind = "rx_bridge.model",
        format_item = M.model_label,
      })
      if not m then
        return
      end
      ref = m.ref
    end
    local err = async.request(c, "rx/session/setModel", { sessionId = chat.session_id, model = ref })
    if err then
      vim.notify("rx-bridge: " .. t_("chat.model_failed", actions.err_text(err)), vim.log.levels.ERROR)
      return
    end
    chat.model = ref
    M.update_header(chat)
    out(chat, { t_(chat.busy and "chat.model_next" or "chat.model_now", text.line(ref)) }, "RxBridgeChatMeta")
  end)
end

local MODES = { "normal", "plan" }

--- What a chat says of a session resumed in a mode other than normal.
local function mode_note(chat, mode)
  if mode == "plan" then
    out(chat, { "— " .. t_("chat.plan_mode_note") },
      "RxBridgeChatMeta")
  end
end

--- Switches the chat's session between normal and plan mode
--- (rx/session/setMode). Without a mode, it is asked through vim.ui.select.
function M.set_mode(chat, mode)
  async.run(function()
    local c = settable(chat, "mode")
    if not c then
      return
    end
    if not mode or mode == "" then
      mode = require("rx_bridge.ui").select(MODES, {
        prompt = t_("chat.mode_prompt"),
        kind = "rx_bridge.mode",
      })
      if not mode then
        return
      end
    end
    local err = async.request(c, "rx/session/setMode", { sessionId = chat.session_id, mode = mode })
    if err then
      vim.notify("rx-bridge: " .. t_("chat.mode_failed", require("rx_bridge.actions").err_text(err)), vim.log.levels.ERROR)
      return
    end
    out(chat, { t_("chat.mode_now", text.line(mode)) }, "RxBridgeChatMeta")
  end)
end

--- Sends line (a slash command with its arguments) as a turn in a chat of
--- client c: the one shown in the current window, else the last one
--- opened, else a new one.
function M.send(c, line)
  local cur = M.for_buffer(vim.api.nvim_get_current_buf())
  local pick = cur and cur.client_id == c.id and valid(cur) and cur or nil
  if not pick then
    for _, chat in pairs(M.chats) do
      if chat.client_id == c.id and valid(chat) and (not pick or chat.n > pick.n) then
        pick = chat
      end
    end
  end
  if pick then
    if vim.fn.bufwinid(pick.buf) == -1 then
      open_window(pick.buf)
    end
    M.submit_line(pick, line)
    return
  end
  M.open(nil, function(chat)
    M.submit_line(chat, line)
  end)
end

--- The prompt buffer's completion (omnifunc, and the menu that opens on a
--- "/" typed at the start of the prompt): slash commands and plugin
--- actions of this chat's bridge.
function M.complete(chat, findstart, base)
  local line = vim.api.nvim_get_current_line()
  local col = vim.api.nvim_win_get_cursor(0)[2]
  local before = line:sub(1, col)
  if findstart == 1 then
    -- #buffer, #file:<path>: the candidates are listed now, filtered by
    -- the second call's base.
    local start, items = context.complete(before, chat.root)
    chat.context_items = items
    if start then
      return start
    end
    if not vim.startswith(before, PROMPT .. "/") or before:sub(#PROMPT + 1):find("%s") then
      return -3
    end
    return #PROMPT
  end
  if chat.context_items then
    return vim.tbl_filter(function(i)
      return vim.startswith(i, base)
    end, chat.context_items)
  end
  local c = client_of(chat)
  if not c then
    return {}
  end
  return require("rx_bridge.actions").slash_items(c, base)
end

--- Cancels the running turn (<C-c>).
function M.cancel(chat)
  if not chat.busy or chat.cancelled then
    return
  end
  local c = client_of(chat)
  if not c then
    return
  end
  chat.cancelled = true
  require("rx_bridge.compat").notify(c, "rx/session/cancel", { sessionId = chat.session_id })
  out(chat, { t_("chat.cancelling") }, "RxBridgeChatMeta")
end

function open_window(buf)
  local how = config.values.chat.open
  if how == "vsplit" then
    vim.cmd("botright vsplit")
  elseif how == "split" then
    vim.cmd("botright split")
  elseif how == "tab" then
    vim.cmd("tabnew")
  end
  vim.api.nvim_win_set_buf(0, buf)
  vim.wo.wrap = true
  vim.wo.linebreak = true
end

local function create_buffer(chat)
  counter = counter + 1
  local buf = vim.api.nvim_create_buf(true, true)
  chat.buf = buf
  -- No slash in the name: the tab line shows it whole, not "r//1".
  vim.api.nvim_buf_set_name(buf, ("Reasonix chat %d"):format(counter))
  vim.bo[buf].buftype = "prompt"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modeline = false
  vim.bo[buf].filetype = "rxbridgechat"
  vim.fn.prompt_setprompt(buf, PROMPT)
  vim.fn.prompt_setcallback(buf, function(input)
    M.submit(chat, input)
  end)
  vim.fn.prompt_setinterrupt(buf, function()
    M.cancel(chat)
  end)
  -- "/" at the start of the prompt lists the slash commands (also
  -- <C-x><C-o>).
  local complete_name = ("v:lua.require'rx_bridge.chat'.omnifunc_%d"):format(counter)
  M["omnifunc_" .. counter] = function(findstart, base)
    return M.complete(chat, findstart, base)
  end
  vim.bo[buf].omnifunc = complete_name
  vim.bo[buf].completefunc = complete_name
  -- The "/" menu inserts nothing until an entry is chosen, and what is
  -- typed filters it: 'completeopt' is "menuone,noinsert,noselect" from
  -- the "/" until the completion is done (buffer-local from 0.11 on; on
  -- 0.10 the global value, given back after).
  local copt = "menuone,noinsert,noselect"
  local saved
  local function slash_copt(on)
    if vim.fn.has("nvim-0.11") == 1 then
      vim.bo[buf].completeopt = on and copt or ""
    elseif on then
      saved = saved or vim.o.completeopt
      vim.o.completeopt = copt
    elseif saved then
      vim.o.completeopt = saved
      saved = nil
    end
  end
  vim.api.nvim_create_autocmd({ "CompleteDone", "InsertLeave", "BufLeave" }, {
    buffer = buf,
    callback = function()
      slash_copt(false)
    end,
  })
  vim.keymap.set("i", "/", function()
    local col = vim.api.nvim_win_get_cursor(0)[2]
    if vim.api.nvim_get_current_line():sub(1, col) == PROMPT then
      slash_copt(true)
      return "/<C-x><C-o>"
    end
    return "/"
  end, { buffer = buf, expr = true, desc = t_("map.chat_slash") })
  vim.keymap.set("n", "<C-c>", function()
    M.cancel(chat)
  end, { buffer = buf, desc = t_("map.chat_cancel") })
  vim.keymap.set("n", "gm", function()
    M.set_model(chat)
  end, { buffer = buf, desc = t_("map.chat_model") })
  vim.keymap.set("n", "gu", function()
    M.undo_turn(chat)
  end, { buffer = buf, desc = t_("map.chat_undo") })
  vim.api.nvim_buf_create_user_command(buf, "RxChatModel", function(o)
    M.set_model(chat, o.args)
  end, {
    nargs = "?",
    desc = t_("map.chat_model"),
    complete = function(arglead)
      return vim.tbl_filter(function(r)
        return vim.startswith(r, arglead)
      end, require("rx_bridge.actions").model_refs())
    end,
  })
  vim.api.nvim_buf_create_user_command(buf, "RxChatMode", function(o)
    M.set_mode(chat, o.args)
  end, {
    nargs = "?",
    desc = t_("map.chat_mode"),
    complete = function(arglead)
      return vim.tbl_filter(function(m)
        return vim.startswith(m, arglead)
      end, MODES)
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      stop_busy(chat)
      detached[chat] = nil
      M.chats[key(chat.client_id, chat.session_id)] = nil
      local c = client_of(chat)
      if c then
        if chat.busy then
          require("rx_bridge.compat").notify(c, "rx/session/cancel", { sessionId = chat.session_id })
        end
        require("rx_bridge.compat").request(c, "rx/session/close", { sessionId = chat.session_id }, function() end)
      end
    end,
  })
  out(chat, {
    M.header_text(chat),
    t_("chat.help"),
    "",
  }, "RxBridgeChatMeta")
  return buf
end

--- The chat's first line: its model and session.
function M.header_text(chat)
  return t_("chat.header", text.line(chat.model), text.line(chat.session_id))
end

--- Rewrites the first line after the model changed (gm, a resume).
local function update_header(chat)
  if not valid(chat) then
    return
  end
  local first = vim.api.nvim_buf_get_lines(chat.buf, 0, 1, false)[1] or ""
  if vim.startswith(first, "Reasonix ") then
    vim.api.nvim_buf_set_lines(chat.buf, 0, 1, false, { M.header_text(chat) })
    highlight(chat, 0, 0, "RxBridgeChatMeta")
    vim.bo[chat.buf].modified = false
  end
end
M.update_header = update_header

--- The model an open chat of session_id uses, or nil.
function M.model_of(session_id)
  for _, chat in pairs(M.chats) do
    if chat.session_id == session_id and chat.model ~= "" then
      return chat.model
    end
  end
  return nil
end

--- The buffer #buffer means in a chat opened now: the current buffer,
--- else the alternate one, if an ordinary buffer.
function source_buffer()
  local cur = vim.api.nvim_get_current_buf()
  if context.is_source(cur) then
    return cur
  end
  local alt = vim.fn.bufnr("#")
  return context.is_source(alt) and alt or nil
end

--- :'<,'>RxChatAdd: attaches lines first..last of buf to the next prompt
--- of the chat of this workspace (the one last opened; a new one when
--- there is none). Calls on_added(chat) (tests).
function M.add_selection(buf, first, last, on_added)
  if not context.is_source(buf) then
    vim.notify("rx-bridge: " .. t_("chat.add_not_file"), vim.log.levels.ERROR)
    return
  end
  local root = require("rx_bridge.client").root_for(buf)
  local function add(chat)
    local res, label = context.selection(buf, first, last, chat.root)
    chat.pending[#chat.pending + 1] = { resource = res, label = label }
    show_busy(chat)
    if vim.fn.bufwinid(chat.buf) == -1 then
      open_window(chat.buf)
    end
    if on_added then
      on_added(chat)
    end
  end
  local pick
  for _, chat in pairs(M.chats) do
    if chat.root == root and valid(chat) and client_of(chat) and (not pick or chat.n > pick.n) then
      pick = chat
    end
  end
  if pick then
    add(pick)
    return
  end
  M.open(nil, add)
end

--- A chat of session session_id on bridge client c (state st),
--- registered, in its buffer and window; from is the buffer #buffer
--- names.
local function start_chat(c, st, session_id, model, from)
  local chat = {
    n = counter + 1,
    client_id = c.id,
    session_id = session_id,
    model = model or "",
    tools = {},
    busy = false,
    queue = {},
    root = st.root,
    from = from,
    pending = {},
  }
  M.chats[key(c.id, session_id)] = chat
  open_window(create_buffer(chat))
  return chat
end

--- :RxChat [model]. Calls on_open(chat) once the buffer is up (tests).
function M.open(model, on_open)
  set_hl()
  local from = source_buffer()
  async.run(function()
    local actions = require("rx_bridge.actions")
    local c, st = actions.ready({ generation = false })
    if not c then
      return
    end
    -- Plugin models exist once the first generation is up.
    if st.generation == 0 then
      require("rx_bridge.state").wait_generation(st, 15000)
    end
    local params = vim.empty_dict()
    if model and model ~= "" then
      params = { model = model }
    end
    local err, res = async.request(c, "rx/session/new", params)
    if err then
      local hint = (model and model ~= "") and "" or (" " .. t_("chat.name_a_model"))
      vim.notify("rx-bridge: " .. t_("chat.cannot_start", actions.err_text(err)) .. hint, vim.log.levels.ERROR)
      return
    end
    if type(res) ~= "table" or type(res.sessionId) ~= "string" then
      vim.notify("rx-bridge: rx/session/new returned no sessionId", vim.log.levels.ERROR)
      return
    end
    local chat = start_chat(c, st, res.sessionId, res.model or model, from)
    vim.cmd("startinsert")
    log.add("info", "chat", t_("log.session", text.line(res.sessionId), text.line(chat.model)))
    if on_open then
      on_open(chat)
    end
  end)
end

--- Reopens stored session session_id (from :Rx sessions) in a chat:
--- the bridge replays it into the new buffer, then it goes on as any
--- chat. A session already open in a chat here is shown instead. Calls
--- on_open(chat) once the replay is done (tests).
function M.resume(session_id, model, on_open)
  set_hl()
  local from = source_buffer()
  async.run(function()
    local actions = require("rx_bridge.actions")
    local c, st = actions.ready({ generation = false })
    if not c then
      return
    end
    local open = M.chats[key(c.id, session_id)]
    if not (open and valid(open)) then
      open = nil
      for chat in pairs(detached) do
        if chat.session_id == session_id and valid(chat) then
          open = chat
          break
        end
      end
    end
    if open and valid(open) and open.client_id ~= c.id then
      -- A chat of this session waiting for its bridge, or resuming on
      -- this one, is the chat to show: resumed there (this waits for a
      -- resume under way), not in a second chat.
      reattach(open, c, st)
    end
    if open and valid(open) then
      local win = vim.fn.bufwinid(open.buf)
      if win ~= -1 then
        vim.api.nvim_set_current_win(win)
      else
        open_window(open.buf)
      end
      if on_open then
        on_open(open)
      end
      return
    end
    if st.generation == 0 then
      require("rx_bridge.state").wait_generation(st, 15000)
    end
    -- Registered before the load: its replay arrives as updates first.
    local chat = start_chat(c, st, session_id, model, from)
    local err, res = async.request(c, "rx/session/load", { sessionId = session_id })
    if err then
      M.chats[key(c.id, session_id)] = nil
      out(chat, { "— " .. t_("chat.cannot_resume", actions.err_text(err)) }, "RxBridgeChatError")
      chat.client_id = nil
      return
    end
    if type(res) == "table" and type(res.model) == "string" and res.model ~= "" then
      chat.model = res.model
      M.update_header(chat)
    end
    out(chat, { "— " .. t_("chat.resumed") }, "RxBridgeChatMeta")
    mode_note(chat, type(res) == "table" and res.mode or nil)
    out(chat, { "" })
    vim.cmd("startinsert")
    log.add("info", "chat", t_("log.resumed", text.line(session_id), text.line(chat.model)))
    if on_open then
      on_open(chat)
    end
  end)
end

--- The chat shown in buffer buf, if any.
function M.for_buffer(buf)
  for _, chat in pairs(M.chats) do
    if chat.buf == buf then
      return chat
    end
  end
  return nil
end

--- The bridge of these chats exited: each waits, detached, for the next
--- bridge of its workspace, which resumes its session (reattach).
function M.forget(client_id)
  for k, chat in pairs(M.chats) do
    if chat.client_id == client_id then
      M.chats[k] = nil
      chat.busy = false
      chat.turn = (chat.turn or 0) + 1
      chat.queue = {}
      stop_busy(chat)
      chat.client_id = nil
      if valid(chat) and chat.root then
        detached[chat] = true
        out(chat, { "— " .. t_("chat.bridge_exited_resume") }, "RxBridgeChatError")
      else
        out(chat, { "— " .. t_("chat.bridge_exited") }, "RxBridgeChatError")
      end
    end
  end
end

--- Resumes a detached chat's session on bridge c (rx/session/load; the
--- replay is not shown again: the buffer has it), then calls each
--- done(ok) waiting on it. Runs in a coroutine.
function reattach(chat, c, st)
  if chat.reattaching then
    async.await(function(cb)
      table.insert(chat.reattaching, cb)
    end)
    return chat.client_id ~= nil
  end
  chat.reattaching = {}
  if st.generation == 0 then
    require("rx_bridge.state").wait_generation(st, 15000)
  end
  M.chats[key(c.id, chat.session_id)] = chat
  chat.replaying = true
  local err, res = async.request(c, "rx/session/load", { sessionId = chat.session_id })
  chat.replaying = false
  local ok = err == nil
  if ok then
    detached[chat] = nil
    chat.client_id = c.id
    if type(res) == "table" and type(res.model) == "string" and res.model ~= "" then
      chat.model = res.model
      M.update_header(chat)
    end
    out(chat, { "— " .. t_("chat.bridge_restarted", text.line(chat.session_id), text.line(chat.model)) }, "RxBridgeChatMeta")
    mode_note(chat, type(res) == "table" and res.mode or nil)
    log.add("info", "chat", t_("log.resumed_restart", text.line(chat.session_id)))
  else
    M.chats[key(c.id, chat.session_id)] = nil
    out(chat, { "— " .. t_("chat.cannot_resume_new", require("rx_bridge.actions").err_text(err)) },
      "RxBridgeChatError")
  end
  local waiters = chat.reattaching
  chat.reattaching = nil
  for _, w in ipairs(waiters) do
    w()
  end
  return ok
end

--- A bridge initialized for root: the detached chats of that workspace
--- resume their sessions on it (after :LspRestart, or a bridge started
--- by a file buffer or another command).
function M.on_bridge(client_id, root)
  for chat in pairs(detached) do
    if chat.root == root and valid(chat) and not chat.reattaching then
      async.run(function()
        local c = vim.lsp.get_client_by_id(client_id)
        local st = require("rx_bridge.state").get(client_id)
        if c and st then
          reattach(chat, c, st)
        end
      end)
    end
  end
end

--- A prompt in a detached chat: the bridge of its workspace is started
--- (or found), the session resumed, then the turn runs.
function submit_detached(chat, item)
  out(chat, { t_("chat.starting_bridge") }, "RxBridgeChatMeta")
  async.run(function()
    local c, st = require("rx_bridge.client").ready(chat.root, 20000)
    if not c then
      out(chat, { t_("chat.error", t_("chat.cannot_start_bridge", text.line(st))) }, "RxBridgeChatError")
      return
    end
    if chat.client_id ~= c.id and not reattach(chat, c, st) then
      return
    end
    if chat.busy then
      enqueue(chat, item)
    else
      run_turn(chat, item)
    end
  end)
end

return M

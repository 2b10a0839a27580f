-- :Rx sessions against the real `rx-bridge serve`: a chat's session is
-- listed, renamed, resumed in a new chat (its conversation replayed, the
-- agent going on with its history) and deleted.
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local SMALL = "plugin/echo-provider/echo/small"
local LARGE = "plugin/echo-provider/echo/large"
local tmp = assert(os.getenv("RX_TEST_TMP"))

local home = tmp .. "/home"
T.e2e_home(home, { "echo-provider" }, ('model = "%s"\n'):format(SMALL))

T.capture_notify()
T.stub_ui()
T.setup({ cmd = { bin, "serve", "--home", home } })
local client = T.start()
local chat_mod = require("rx_bridge.chat")
local sessions = require("rx_bridge.sessions")

local function list()
  local res = T.request(client, "rx/session/list", vim.empty_dict())
  return res.sessions
end

local first, session_id

T.test("a chat's session is stored and listed", function()
  first = T.open_chat()
  session_id = first.session_id
  T.type_prompt(first, "remember the word walrus")
  T.wait_answer(first, "\nremember the word walrus")
  local l = list()
  T.eq(1, #l)
  T.eq("remember the word walrus", l[1].title)
  vim.cmd("stopinsert")
  vim.cmd("bwipeout! " .. first.buf)
  T.wait(function() return next(chat_mod.chats) == nil end, "the chat to close")
end)

T.test(":Rx sessions renames it", function()
  local n = #T.ui.select
  T.answers.select = { 1, "Rename" }
  T.answers.input = { "Walrus talk" }
  local done = false
  sessions.pick(function() done = true end)
  T.wait(function() return done end, "the rename", 15000)
  T.contains(T.ui.select[n + 1].shown[1], "remember the word walrus · " .. SMALL)
  T.eq("remember the word walrus", T.ui.input[#T.ui.input].default)
  T.eq("Walrus talk", list()[1].title)
  T.ok(T.find_note('session renamed to "Walrus talk"'), vim.inspect(T.notes))
end)

T.test(":Rx sessions resumes it in a chat: the conversation is replayed and goes on", function()
  local n = #T.ui.select
  T.answers.select = { 1, "Resume in a chat" }
  local resumed
  sessions.pick(function() resumed = select(2, next(chat_mod.chats)) end)
  T.wait(function() return resumed ~= nil end, "the resumed chat", 15000)
  T.contains(T.ui.select[n + 1].shown[1], "Walrus talk")
  T.eq(session_id, resumed.session_id)
  local text = T.buf_text(resumed.buf)
  T.contains(text, "remember the word walrus", "the replayed prompt")
  T.contains(text, "— resumed")
  vim.cmd("stopinsert")
  T.type_prompt(resumed, "and now?")
  T.wait_answer(resumed, "\nand now?")
  -- The transcript now holds both turns: the agent had its history.
  local r = vim.system({ "grep", "-c", '"sessionUpdate":"user_message_chunk"', home .. "/sessions/" .. session_id .. ".jsonl" }, { text = true }):wait()
  T.eq("2", vim.trim(r.stdout), "user messages in the transcript")
  -- Resuming a session open in a chat shows that chat.
  T.answers.select = { 1, "Resume in a chat" }
  local again
  sessions.pick(function(c) again = true end)
  T.wait(function() return again end, "the second resume", 15000)
  T.eq(resumed.buf, vim.api.nvim_get_current_buf())
  vim.cmd("stopinsert")
  vim.cmd("bwipeout! " .. resumed.buf)
  T.wait(function() return next(chat_mod.chats) == nil end, "the chat to close")
end)

T.test(":Rx sessions deletes it after asking", function()
  T.answers.select = { 1, "Delete", "Keep" }
  local done = false
  sessions.pick(function() done = true end)
  T.wait(function() return done end, "kept", 15000)
  T.eq(1, #list(), "kept when the answer is Keep")
  done = false
  T.answers.select = { 1, "Delete", "Delete" }
  sessions.pick(function() done = true end)
  T.wait(function() return done end, "the delete", 15000)
  T.eq({}, list())
  T.notes = {}
  vim.cmd("Rx sessions")
  T.wait(function() return T.find_note("no stored session") ~= nil end, "the empty list's message")
end)

T.test(":RxChatMode plan refuses an edit; the session resumed later says it is in plan mode", function()
  local chat = T.open_chat()
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  vim.cmd("RxChatMode plan")
  T.wait_answer(chat, "mode: plan", "the mode switch")
  T.type_prompt(chat, 'call apply_edit {"path": "plan.txt", "content": "x"}')
  T.wait_answer(chat, "plan mode: apply_edit is refused", "the refusal")
  T.eq(nil, vim.uv.fs_stat(client.root_dir .. "/plan.txt"), "no plan.txt")
  vim.cmd("stopinsert")
  vim.cmd("bwipeout! " .. chat.buf)
  T.wait(function() return next(chat_mod.chats) == nil end, "the chat to close")
  T.answers.select = { 1, "Resume in a chat" }
  local resumed
  sessions.pick(function() resumed = select(2, next(chat_mod.chats)) end)
  T.wait(function() return resumed ~= nil end, "the resumed chat", 15000)
  T.contains(T.buf_text(resumed.buf), "this session is in plan mode")
  vim.cmd("stopinsert")
  vim.api.nvim_set_current_win(vim.fn.bufwinid(resumed.buf))
  vim.cmd("RxChatMode normal")
  T.wait_answer(resumed, "mode: normal", "the switch back")
end)

--- The header line of a chat (its first).
local function header(chat)
  return vim.api.nvim_buf_get_lines(chat.buf, 0, 1, false)[1]
end

T.test("after gm the header, :Rx sessions and the resumed chat show the model chosen, not the first one", function()
  local chat = T.open_chat()
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  T.contains(header(chat), SMALL)
  -- gm, the picker: the large model.
  local n = #T.ui.select
  vim.api.nvim_feedkeys("gm", "xt", false)
  T.wait(function() return #T.ui.select > n end, "the model picker")
  local picker = T.ui.select[n + 1]
  local idx
  for i, item in ipairs(picker.items) do
    if item == LARGE or (type(item) == "table" and item.ref == LARGE) then
      idx = i
    end
  end
  picker.answer(assert(idx, "the picker lists " .. LARGE .. ": " .. vim.inspect(picker.shown)))
  T.wait_answer(chat, "model: ", "the switch")
  T.contains(header(chat), LARGE, "the header names the model now in use")
  T.type_prompt(chat, "which model now")
  T.wait_answer(chat, "\nwhich model now")
  local sid = chat.session_id
  -- Listed while open, and after the chat closed: the model in use.
  local function row()
    local m = #T.ui.select
    T.answers.select = { false }
    sessions.pick()
    T.wait(function() return #T.ui.select > m end, "the sessions picker")
    for i, it in ipairs(T.ui.select[m + 1].items) do
      if it.sessionId == sid then
        return T.ui.select[m + 1].shown[i]
      end
    end
  end
  T.contains(row(), LARGE, "the row of the open chat's session")
  vim.cmd("stopinsert")
  vim.cmd("bwipeout! " .. chat.buf)
  T.wait(function() return chat_mod.model_of(sid) == nil end, "the chat to close")
  T.contains(row(), LARGE, "the row of the closed session")
  -- Resumed: the header and the chat's model.
  local m = #T.ui.select
  local resumed
  sessions.pick(function(c) resumed = c end)
  T.wait(function() return #T.ui.select > m end, "the sessions picker")
  for i, it in ipairs(T.ui.select[m + 1].items) do
    if it.sessionId == sid then
      T.ui.select[m + 1].answer(i)
    end
  end
  T.wait(function() return #T.ui.select > m + 1 end, "the session's actions")
  T.ui.select[m + 2].answer("Resume in a chat")
  T.wait(function() return resumed ~= nil end, "the resumed chat", 15000)
  T.eq(LARGE, resumed.model)
  T.contains(header(resumed), LARGE, "the resumed chat's header")
  vim.cmd("stopinsert")
end)

T.run()

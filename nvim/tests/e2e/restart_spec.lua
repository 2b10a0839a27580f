-- An open :RxChat outlives its bridge, against the real `rx-bridge serve`:
-- after the bridge is killed, the next prompt restarts it and the chat
-- resumes its session (rx/session/load), so the agent has the history
-- (echo-provider answers "recap" with the earlier user messages); after a
-- restart by someone else (:LspRestart-like: stop, then a new bridge of
-- the workspace) the chat resumes on its own.
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local SMALL = "plugin/echo-provider/echo/small"
local tmp = assert(os.getenv("RX_TEST_TMP"))

local home = tmp .. "/home"
T.e2e_home(home, { "echo-provider" }, ('model = "%s"\n'):format(SMALL))

T.capture_notify()
T.stub_ui()
-- Slow answers (a word per 150 ms), so a turn surely runs when the
-- bridge is killed.
T.setup({ cmd = { bin, "serve", "--home", home }, cmd_env = { ECHO_PROVIDER_DELAY = "150ms" } })
local client = T.start()
local root = client.root_dir
local compat = require("rx_bridge.compat")
local chat_mod = require("rx_bridge.chat")
local chat

--- The bridge process of client c (the child of this Neovim running serve).
local function bridge_pid()
  for _, pid in ipairs(T.descendants(vim.fn.getpid())) do
    local f = io.open("/proc/" .. pid .. "/cmdline", "r")
    if f then
      local cmd = (f:read("*a") or ""):gsub("%z", " ")
      f:close()
      if vim.startswith(cmd, bin .. " serve") and T.alive(pid) then
        return pid
      end
    end
  end
  return nil
end

T.test("a chat's first turn", function()
  chat = T.open_chat()
  T.type_prompt(chat, "remember the word walrus")
  T.wait_answer(chat, "\nremember the word walrus\n— done", "the first answer")
end)

T.test("the bridge is killed: the chat says the next prompt resumes it", function()
  local pid = bridge_pid()
  T.ok(pid, "the bridge process")
  vim.uv.kill(pid, "sigkill")
  T.wait_answer(chat, "the bridge exited; the next prompt restarts it and resumes this session")
end)

T.test("a chat waiting for its bridge says its mode cannot change now", function()
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  vim.cmd("RxChatMode plan")
  T.wait(function() return T.find_note("the bridge of this chat is not running") ~= nil end, "the warning")
  T.ok(T.find_note("the mode is unchanged"), vim.inspect(T.notes))
end)

T.test(":Rx sessions resumes a chat waiting for its bridge in that chat, not a second one", function()
  local session = chat.session_id
  T.answers.select = { 1, "Resume in a chat" }
  local done
  require("rx_bridge.sessions").pick(function() done = true end)
  T.wait(function() return done end, "the resume", 30000)
  local open = {}
  for _, c in pairs(chat_mod.chats) do
    open[#open + 1] = c
  end
  T.eq(1, #open, "chats")
  T.eq(chat, open[1])
  T.eq(session, chat.session_id)
  T.eq(chat.buf, vim.api.nvim_get_current_buf())
  T.ok(chat.client_id and chat.client_id ~= client.id, "resumed on a new bridge")
  vim.cmd("stopinsert")
end)

T.test("recap in the same chat: the bridge restarts, the session resumes, the agent has the history", function()
  local session = chat.session_id
  T.type_prompt(chat, "recap")
  T.wait_answer(chat, '1 earlier user message: "remember the word walrus"', "the recap")
  T.shot("resumed-after-kill")
  local text = T.buf_text(chat.buf)
  T.eq(session, chat.session_id)
  T.ok(chat.client_id and chat.client_id ~= client.id, "a new bridge")
  T.contains(text, "— the bridge restarted; session " .. session .. " resumed")
  T.eq(1, select(2, text:gsub("> remember the word walrus", "")), "the replay is not shown again:\n" .. text)
  T.eq(nil, text:find("error:", 1, true), text)
end)

T.test("the bridge is killed mid-turn: the turn ends there, the next prompt resumes the session", function()
  T.type_prompt(chat, "one two three four five six seven eight nine ten eleven twelve")
  T.wait(function() return chat.busy and T.buf_text(chat.buf):find("\none ", 1, true) ~= nil end, "the turn to stream", 20000)
  vim.uv.kill(bridge_pid(), "sigkill")
  T.wait(function() return not chat.busy end, "the turn to end", 15000)
  T.eq(2, select(2, T.buf_text(chat.buf):gsub("the next prompt restarts it", "")), "the second exit")
  T.type_prompt(chat, "recap")
  T.wait_answer(chat, 'the first: "remember the word walrus"', "the third recap")
  local text = T.buf_text(chat.buf)
  T.eq(nil, text:find("error:", 1, true), text)
  T.ok(not chat.busy)
end)

T.test("a restart by someone else (stop, new bridge): the chat resumes on its own", function()
  local old = vim.lsp.get_client_by_id(chat.client_id)
  compat.stop(old)
  T.wait_answer(chat, "the next prompt restarts it", "the second exit")
  local n = select(2, T.buf_text(chat.buf):gsub("the bridge restarted", ""))
  T.wait(function() return compat.exited(old) end, "the old bridge to exit", 15000)
  local c = T.start(root)
  T.wait(function() return chat.client_id == c.id end, "the chat to resume on the new bridge", 20000)
  T.eq(n + 1, select(2, T.buf_text(chat.buf):gsub("the bridge restarted", "")))
  T.type_prompt(chat, "recap")
  -- The recaps after the first say "N earlier user messages, the first: …".
  T.wait(function()
    return not chat.busy and select(2, T.buf_text(chat.buf):gsub('the first: "remember the word walrus"', "")) == 2
  end, "the last recap", 30000)
end)

T.run()

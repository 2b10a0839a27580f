local T = require("tests.helpers")

T.capture_notify()
T.stub_ui()
T.setup()

local client = T.start()
local chat_mod = require("rx_bridge.chat")
local chat

local function type_prompt(s)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A" .. s .. "<CR>", true, false, true), "xt", false)
end

T.test(":RxChat opens a prompt buffer on a new session", function()
  T.eq({ "plugin/echo-provider/echo/small" }, vim.fn.getcompletion("RxChat plugin/", "cmdline"))
  vim.cmd("RxChat plugin/echo-provider/echo/small")
  T.wait(function() return next(chat_mod.chats) ~= nil end, "the chat")
  local _, c = next(chat_mod.chats)
  chat = c
  T.eq({ model = "plugin/echo-provider/echo/small" }, T.received(client, "rx/session/new")[1].params)
  T.eq("prompt", vim.bo[chat.buf].buftype)
  T.eq(chat.buf, vim.api.nvim_get_current_buf())
  T.contains(T.buf_text(chat.buf), "Reasonix chat · plugin/echo-provider/echo/small · session s-1")
  vim.cmd("stopinsert")
end)

T.test("/ completion: typing filters the commands, nothing is inserted until one is chosen", function()
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  -- <F2> notes the line as it is while the menu is open.
  local seen = {}
  vim.keymap.set("i", "<F2>", function()
    seen[#seen + 1] = vim.api.nvim_get_current_line()
  end, { buffer = chat.buf })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A/hello:g<F2><C-n><C-y><F2><Esc>", true, false, true), "tx", false)
  vim.keymap.del("i", "<F2>", { buffer = chat.buf })
  -- /hello:card is listed first: inserted, it would have been "> /hello:cardhello:g".
  T.eq({ "> /hello:g", "> /hello:greet" }, seen, "only what was typed, then the one chosen from the filtered list")
  vim.api.nvim_buf_set_lines(chat.buf, -2, -1, false, { "> " })
  vim.bo[chat.buf].modified = false
end)

T.test("gm offers the models by their display names, with their refs", function()
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = #T.ui.select
  vim.cmd("stopinsert")
  vim.api.nvim_feedkeys("gm", "xt", false)
  T.wait(function() return #T.ui.select > n end, "the model picker")
  local shown = T.ui.select[n + 1].shown
  T.eq(1, #shown)
  T.contains(shown[1], "Echo (small)")
  T.contains(shown[1], "plugin/echo-provider/echo/small")
  T.ui.select[n + 1].answer(false)
end)

T.test("a turn streams into the buffer with its tool call inline, above the prompt line", function()
  type_prompt("hello tool there")
  T.wait(function() return not chat.busy and T.buf_text(chat.buf):find("— done", 1, true) ~= nil end, "the turn to end")
  T.eq({ sessionId = "s-1", prompt = "hello tool there" }, T.received(client, "rx/session/prompt")[1].params)
  local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
  T.eq("> ", lines[#lines], "the prompt line stays last")
  local text = table.concat(lines, "\n")
  T.contains(text, "> hello tool there\n⚙ read_file README.md (read) [completed]\n    # rx-bridge\n    line 2\n    line 3\n    … 2 more lines\nhello tool there\n— done · 6 tokens (3 in, 3 out)\n> ")
end)

T.test("a subagent run shows one working line and its tool calls named after it, not its text", function()
  type_prompt("a subagent here")
  T.wait(function() return not chat.busy and T.buf_text(chat.buf):find("a subagent here\n— done", 1, true) ~= nil end,
    "the turn to end")
  local text = T.buf_text(chat.buf)
  T.contains(text, "> a subagent here\n  🧬 kit:agent:reviewer is working…\n⚙ kit:agent:reviewer › grep TODO (search) [completed]\n")
  T.eq(nil, text:find("SUBAGENT TEXT", 1, true), "the subagent's own text stays out of the chat")
end)

T.test("a permission question is asked inline and answered", function()
  local n = #T.ui.select
  T.answers.select = { "Allow" }
  type_prompt("permission please")
  T.wait(function() return not chat.busy and T.buf_text(chat.buf):find("permission please\n— done", 1, true) ~= nil end,
    "the turn to end")
  T.eq({ "Allow", "Deny" }, T.ui.select[n + 1].shown)
  T.eq("Reasonix asks to run: run_command go test ./...", T.ui.select[n + 1].prompt)
  T.contains(T.buf_text(chat.buf), '✓ permission: run_command go test ./... (execute) → Allow\n    {"')
  T.eq(nil, T.buf_text(chat.buf):find("? permission", 1, true), "answered: no open question")
  local answers = {}
  for _, m in ipairs(T.received(client)) do
    if m.result and m.result.outcome then
      answers[#answers + 1] = m.result.outcome
    end
  end
  T.eq({ outcome = "selected", optionId = "allow" }, answers[#answers])
end)

T.test("<C-c> cancels the running turn", function()
  type_prompt("slow answer")
  T.wait(function() return T.buf_text(chat.buf):find("slow answer w1 w2 w3", 1, true) ~= nil end, "the stream to start")
  T.ok(chat.busy, "the turn runs")
  -- In insert mode, the prompt buffer's interrupt callback.
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A<C-c>", true, false, true), "xt", false)
  T.wait(function() return not chat.busy end, "the turn to end")
  T.eq(1, #T.received(client, "rx/session/cancel"))
  T.eq({ sessionId = "s-1" }, T.received(client, "rx/session/cancel")[1].params)
  local text = T.buf_text(chat.buf)
  T.contains(text, "(cancelling…)")
  T.contains(text, "— cancelled")
  T.ok(not text:find("w90", 1, true), "the stream stopped")
end)

T.test("wiping the chat buffer closes the session", function()
  vim.cmd("stopinsert")
  vim.api.nvim_buf_delete(chat.buf, { force = true })
  T.wait(function() return #T.received(client, "rx/session/close") == 1 end, "rx/session/close")
  T.eq(nil, next(chat_mod.chats))
end)

T.run()

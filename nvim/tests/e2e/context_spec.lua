-- What a :RxChat prompt attaches reaches the agent, against the real
-- `rx-bridge serve` and echo-provider (which answers with the prompt text
-- the agent got: the prompt, then "Resource <uri>: <text>" per
-- attachment): #buffer with its unsaved text, #file:<path> (completed
-- relative to the workspace) and a selection added with :'<,'>RxChatAdd.
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local SMALL = "plugin/echo-provider/echo/small"
local tmp = assert(os.getenv("RX_TEST_TMP"))

local home = tmp .. "/home"
T.e2e_home(home, { "echo-provider" }, ('model = "%s"\n'):format(SMALL))

local ws = tmp .. "/ws"
vim.fn.mkdir(ws .. "/.git", "p")
T.write(ws .. "/notes.txt", "saved words\nline two\nline three\nline four\n")
T.write(ws .. "/sub/deep.txt", "deep file words\n")
ws = vim.uv.fs_realpath(ws)
vim.cmd("cd " .. vim.fn.fnameescape(ws))
vim.cmd("edit notes.txt")
local notes_buf = vim.api.nvim_get_current_buf()
-- Unsaved: the disk still says "saved words".
vim.api.nvim_buf_set_lines(notes_buf, 0, 1, false, { "unsaved walrus words" })

T.capture_notify()
T.stub_ui()
T.setup({ cmd = { bin, "serve", "--home", home } })
T.start(ws)
local chat

local function wait_done(n)
  T.wait(function()
    return not chat.busy and select(2, T.buf_text(chat.buf):gsub("\n— done", "")) >= n
  end, n .. " turns", 30000)
end

--- The chat's text from the last prompt line on.
local function last_turn()
  local text = T.buf_text(chat.buf)
  local at
  for i in text:gmatch("()\n> [^\n]") do
    at = i
  end
  return text:sub(at + 1)
end

local notes_uri = vim.uri_from_fname(ws .. "/notes.txt")

T.test("#buffer sends the buffer the chat was opened from, unsaved text included", function()
  chat = T.open_chat()
  T.type_prompt(chat, "explain #buffer")
  wait_done(1)
  T.shot("buffer-attached")
  local turn = last_turn()
  T.contains(turn, "📎 attached: notes.txt", "the chat line shows what was sent")
  T.contains(turn, "\nexplain #buffer Resource " .. notes_uri .. ": unsaved walrus words line two line three line four\n",
    "the answer echoes the text the agent got")
end)

T.test("#file:<path> completes relative to the workspace and sends the file", function()
  -- Typed as a user does: <C-x><C-o> completes "#b", then "#file:su"
  -- (one match, inserted), then "sub/d".
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  _G.seen = {}
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(
    "A#b<C-x><C-o><Cmd>lua table.insert(_G.seen, vim.api.nvim_get_current_line())<CR>"
      .. "<C-u>see #file:su<C-x><C-o><Cmd>lua table.insert(_G.seen, vim.api.nvim_get_current_line())<CR>"
      .. "d<C-x><C-o><Cmd>lua table.insert(_G.seen, vim.api.nvim_get_current_line())<CR><CR>",
    true, false, true), "xt", false)
  T.eq({ "> #buffer", "> see #file:sub/", "> see #file:sub/deep.txt" }, _G.seen)
  wait_done(2)
  T.shot("file-attached")
  local turn = last_turn()
  T.contains(turn, "📎 attached: sub/deep.txt")
  T.contains(turn, "\nsee #file:sub/deep.txt Resource " .. vim.uri_from_fname(ws .. "/sub/deep.txt") .. ": deep file words\n")
end)

T.test("a #file that does not exist is named in an error; nothing is sent and the prompt is kept", function()
  T.type_prompt(chat, "see #file:nope.txt")
  T.contains(T.buf_text(chat.buf), "error: #file:nope.txt: no such file in " .. ws .. " (not sent)")
  T.eq({ "> see #file:nope.txt" }, vim.api.nvim_buf_get_lines(chat.buf, -2, -1, false))
  T.ok(not chat.busy, "no turn runs")
  T.shot("file-missing")
  vim.api.nvim_buf_set_lines(chat.buf, -2, -1, false, { "> " })
end)

T.test(":'<,'>RxChatAdd attaches the selected lines with a #L fragment to the next prompt", function()
  vim.cmd("stopinsert")
  vim.api.nvim_set_current_win(vim.fn.win_findbuf(notes_buf)[1] or vim.fn.bufwinid(notes_buf))
  if vim.api.nvim_get_current_buf() ~= notes_buf then
    vim.cmd("wincmd p")
  end
  T.eq(notes_buf, vim.api.nvim_get_current_buf())
  -- Select lines 2-3 visually, then the command on the range.
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("Vj:RxChatAdd<CR>", true, false, true), "xt", false)
  T.wait(function() return #chat.pending == 1 end, "the pending selection")
  T.shot("selection-pending")
  T.type_prompt(chat, "why")
  wait_done(3)
  T.shot("selection-attached")
  local turn = last_turn()
  T.contains(turn, "📎 attached: notes.txt#L2-3")
  T.contains(turn, "\nwhy Resource " .. notes_uri .. "#L2-3: line two line three\n")
  T.eq({}, chat.pending, "sent once")
end)

T.run()

-- Review of agent edits and undo of a turn against the real `rx-bridge
-- serve` (echo-provider, tool approval "ask"): the plugin declares
-- experimental.rxBridge.reviewEdits, so an edit arrives as a diff to
-- accept or reject per file and per hunk instead of a permission question.
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local SMALL = "plugin/echo-provider/echo/small"
local tmp = assert(os.getenv("RX_TEST_TMP"))

local home = tmp .. "/review-home"
T.e2e_home(home, { "echo-provider" }, ('model = "%s"\ntool_approval = "ask"\n'):format(SMALL))

local ws = tmp .. "/review-ws"
local A = "alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\ngolf\nhotel\n"
local B = "one\ntwo\nthree\n"
T.write(ws .. "/a.txt", A)
T.write(ws .. "/b.txt", B)
vim.fn.chdir(ws)

T.capture_notify()
T.stub_ui()
T.setup({ cmd = { bin, "serve", "--home", home }, cmd_env = { ECHO_PROVIDER_DELAY = "0" } })
local client = T.start(ws)
local review = require("rx_bridge.review")
local chat_mod = require("rx_bridge.chat")
local chat

-- The files, loaded in buffers attached to the bridge.
local bufs = {}
for _, name in ipairs({ "a.txt", "b.txt" }) do
  local buf = vim.fn.bufadd(ws .. "/" .. name)
  vim.fn.bufload(buf)
  vim.bo[buf].buflisted = true
  vim.lsp.buf_attach_client(buf, client.id)
  bufs[name] = buf
end

local function text_of(name)
  return table.concat(vim.api.nvim_buf_get_lines(bufs[name], 0, -1, false), "\n") .. "\n"
end

local function edit(path, pairs)
  local edits = {}
  for i = 1, #pairs, 2 do
    edits[#edits + 1] = { oldText = pairs[i], newText = pairs[i + 1] }
  end
  return "call apply_edit " .. vim.json.encode({ path = path, edits = edits })
end

--- Waits for the next review; returns it with the tab the user was on
--- when it arrived.
local function next_review(tab_before)
  T.wait(function() return review.pending[1] ~= nil end, "a review", 20000)
  local rv = review.pending[1]
  T.eq(tab_before, vim.api.nvim_get_current_tabpage(), "the review took no focus")
  return rv
end

--- Presses keys in the review buffer with the cursor on a row of
--- (file, hunk); hunk nil is the file's header row.
local function press(rv, file, hunk, keys)
  vim.cmd("RxReview")
  T.eq(rv.buf, vim.api.nvim_get_current_buf(), ":RxReview shows the review")
  for row, ref in pairs(rv.rows) do
    if ref.file == file and ref.hunk == hunk then
      vim.api.nvim_win_set_cursor(0, { row, 0 })
      break
    end
  end
  vim.api.nvim_feedkeys(keys, "xt", false)
end

--- The chat's text with its virtual lines (the busy area above the prompt).
local function chat_screen_text()
  local out = { T.buf_text(chat.buf) }
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, -1, 0, -1, { details = true })) do
    for _, vl in ipairs(m[4].virt_lines or {}) do
      for _, chunk in ipairs(vl) do
        out[#out + 1] = chunk[1]
      end
    end
  end
  return table.concat(out, "\n")
end

--- The screen's first row (the tab line when there are tabs).
local function tabline()
  vim.cmd("redraw!")
  local cells = {}
  for c = 1, vim.o.columns do
    cells[#cells + 1] = vim.fn.screenstring(1, c)
  end
  return table.concat(cells)
end

--- Whether a file buffer is 'modified' exactly when it differs from its file on disk.
local function consistent(name)
  local disk = table.concat(vim.fn.readfile(ws .. "/" .. name), "\n") .. "\n"
  return vim.bo[bufs[name]].modified == (disk ~= text_of(name))
end

local function back_to_chat(tab)
  if vim.api.nvim_tabpage_is_valid(tab) then
    vim.api.nvim_set_current_tabpage(tab)
  end
end

T.test("the chat opens", function()
  chat_mod.open(nil, function(c) chat = c end)
  T.wait(function() return chat ~= nil end, "the chat", 15000)
  vim.cmd("stopinsert")
end)

T.test("a turn editing two files: one file accepted, the other rejected; the model is told", function()
  local tab = vim.api.nvim_get_current_tabpage()
  local asked = #T.ui.select
  chat_mod.submit(chat, edit("a.txt", { "bravo", "BRAVO" }) .. "\n" .. edit("b.txt", { "one", "ONE" }))
  local rv = next_review(tab)
  T.eq(ws .. "/a.txt", rv.files[1].path)
  T.contains(T.buf_text(rv.buf), "+BRAVO")
  -- The chat says what waits and how to get there; the tab has a readable name.
  T.wait(function() return chat_screen_text():find(":RxReview", 1, true) ~= nil end, "the chat to name :RxReview")
  T.contains(chat_screen_text(), "a.txt")
  T.contains(tabline(), "Reasonix review 1: a.txt")
  T.contains(tabline(), "Reasonix chat")
  T.ok(not tabline():find("//", 1, true), "no tab named like r//1: " .. tabline())
  T.shot("review pending")
  press(rv, 1, nil, "A")
  press(rv, 1, nil, "q")
  back_to_chat(tab)
  T.wait(function() return review.pending[1] ~= nil and review.pending[1] ~= rv end, "the second review", 20000)
  local rv2 = review.pending[1]
  T.eq(tab, vim.api.nvim_get_current_tabpage(), "the second review took no focus")
  T.eq(ws .. "/b.txt", rv2.files[1].path)
  press(rv2, 1, 1, "R")
  press(rv2, 1, 1, "q")
  back_to_chat(tab)
  T.wait(function() return not chat.busy and T.buf_text(chat.buf):find("changed files", 1, true) end, "the turn's end", 30000)
  T.eq(asked, #T.ui.select, "no permission question for the edits")
  T.eq((A:gsub("bravo", "BRAVO")), text_of("a.txt"))
  T.eq(B, text_of("b.txt"))
  T.ok(consistent("a.txt"), "a.txt accepted: 'modified' only if it differs from the disk")
  T.ok(consistent("b.txt"), "b.txt rejected: 'modified' only if it differs from the disk")
  T.ok(not chat_screen_text():find(":RxReview", 1, true), "nothing waits for review any more")
  local shown = T.buf_text(chat.buf)
  T.contains(shown, "the user rejected the edit to b.txt")
  T.contains(shown, "changed files (turn 1")
  T.contains(shown, "  a.txt")
  T.ok(not shown:find("  b.txt", 1, true), "b.txt is not listed as changed:\n" .. shown)
end)

T.test("per hunk: one hunk of two accepted", function()
  local tab = vim.api.nvim_get_current_tabpage()
  chat_mod.submit(chat, edit("a.txt", { "charlie", "CHARLIE", "golf", "GOLF" }))
  local rv = next_review(tab)
  T.eq(2, #rv.files[1].hunks, "hunks")
  press(rv, 1, 1, "a")
  press(rv, 1, 2, "r")
  T.contains(T.buf_text(rv.buf), "[accepted]")
  T.contains(T.buf_text(rv.buf), "[rejected]")
  press(rv, 1, 2, "q")
  back_to_chat(tab)
  T.wait(function() return not chat.busy and T.buf_text(chat.buf):find("changed files (turn 2", 1, true) end, "the turn's end", 30000)
  T.eq("alpha\nBRAVO\nCHARLIE\ndelta\necho\nfoxtrot\ngolf\nhotel\n", text_of("a.txt"))
  T.contains(T.buf_text(chat.buf), "the user reviewed it")
end)

T.test("gu in the chat undoes the last turn: the buffer is restored", function()
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local undone
  chat.on_undo = function(res) undone = res end
  vim.api.nvim_feedkeys("gu", "xt", false)
  T.wait(function() return undone ~= nil end, "the undo", 15000)
  T.eq(2, undone.turn)
  -- The undone turn's line says so, and offers nothing any more; turn 1's still does.
  T.contains(T.buf_text(chat.buf), "changed files (turn 2; undone)")
  T.contains(T.buf_text(chat.buf), "changed files (turn 1; gu or :RxUndoTurn undoes it)")
  T.eq(nil, T.buf_text(chat.buf):find("turn 2; gu", 1, true), "turn 2 still offers an undo")
  T.eq((A:gsub("bravo", "BRAVO")), text_of("a.txt"))
  T.ok(consistent("a.txt"), "a.txt undone: 'modified' only if it differs from the disk")
  T.contains(T.buf_text(chat.buf), "undid turn 2")
end)

T.test(":RxUndoTurn leaves a file the user changed since alone and says so", function()
  local tab = vim.api.nvim_get_current_tabpage()
  chat_mod.submit(chat, edit("a.txt", { "delta", "DELTA" }) .. "\n" .. edit("b.txt", { "two", "TWO" }))
  local rv = next_review(tab)
  press(rv, 1, nil, "ga")
  back_to_chat(tab)
  T.wait(function() return review.pending[1] ~= nil and review.pending[1] ~= rv end, "the second review", 20000)
  press(review.pending[1], 1, nil, "ga")
  back_to_chat(tab)
  T.wait(function() return not chat.busy and T.buf_text(chat.buf):find("changed files (turn 3", 1, true) end, "the turn's end", 30000)
  T.eq("one\nTWO\nthree\n", text_of("b.txt"))
  -- The user edits b.txt after the turn.
  vim.api.nvim_buf_set_lines(bufs["b.txt"], 2, 3, false, { "mine" })
  local undone
  chat.on_undo = function(res) undone = res end
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  vim.cmd("RxUndoTurn")
  T.wait(function() return undone ~= nil end, "the undo", 15000)
  T.eq(1, #undone.restored, "restored")
  T.eq(1, #undone.skipped, "skipped")
  T.eq(ws .. "/b.txt", undone.skipped[1].path)
  T.eq((A:gsub("bravo", "BRAVO")), text_of("a.txt"))
  T.eq("one\nTWO\nmine\n", text_of("b.txt"))
  T.contains(T.buf_text(chat.buf), "skipped b.txt: changed since the turn")
end)

T.test("saved, accepted, undone: the buffer equals its file again and is not 'modified', so :qa quits", function()
  vim.api.nvim_buf_call(bufs["a.txt"], function() vim.cmd("silent write") end)
  vim.api.nvim_buf_call(bufs["b.txt"], function() vim.cmd("silent write") end)
  local saved = text_of("a.txt")
  local tab = vim.api.nvim_get_current_tabpage()
  chat_mod.submit(chat, edit("a.txt", { "hotel", "HOTEL" }))
  local rv = next_review(tab)
  press(rv, 1, nil, "ga")
  back_to_chat(tab)
  T.wait(function() return not chat.busy and T.buf_text(chat.buf):find("changed files (turn 4", 1, true) end, "the turn's end", 30000)
  T.ok(vim.bo[bufs["a.txt"]].modified, "accepted, not saved yet")
  local undone
  chat.on_undo = function(res) undone = res end
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  vim.cmd("RxUndoTurn")
  T.wait(function() return undone ~= nil end, "the undo", 15000)
  T.eq(saved, text_of("a.txt"))
  T.eq(false, vim.bo[bufs["a.txt"]].modified, "undone to what the disk holds")
  T.ok(consistent("b.txt"))
  -- What :qa checks (E37/E162): no file buffer with unsaved changes.
  local unsaved = vim.tbl_filter(function(b)
    return vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == "" and vim.bo[b].modified
  end, vim.api.nvim_list_bufs())
  T.eq({}, vim.tbl_map(vim.api.nvim_buf_get_name, unsaved), "buffers :qa would refuse to leave")
end)

T.run()

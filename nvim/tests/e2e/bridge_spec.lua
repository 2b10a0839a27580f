-- Against the real `rx-bridge serve` (built by scripts/test.sh) with
-- examples/hello and examples/echo-provider installed in $RX_BRIDGE_HOME.
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local home = assert(os.getenv("RX_BRIDGE_HOME"), "RX_BRIDGE_HOME is not set")
local MODEL = "plugin/echo-provider/echo/small"

T.capture_notify()
T.stub_ui()
-- Slow words, so a turn can be cancelled half-way.
T.setup({ cmd = { bin, "serve" }, cmd_env = { ECHO_PROVIDER_DELAY = "40ms" }, trace = "verbose" })

local client, st
local chat_mod = require("rx_bridge.chat")
local chat

local function dump(what)
  if os.getenv("RX_TEST_VERBOSE") then
    io.stderr:write(what, "\n")
  end
end

T.test("the bridge starts with the installed plugins' actions", function()
  client, st = T.start()
  T.eq(1, st.info.protocolMajor)
  T.eq(home, st.info.home)
  T.ok(st.generation >= 1, "a generation is up")
  local names = {}
  for _, a in ipairs(st.actions) do
    names[#names + 1] = a.name
  end
  T.eq({ "/hello:greet" }, names)
end)

T.test(":Rx completes the actions and lists them in a picker", function()
  T.eq({ "/hello:greet" }, vim.fn.getcompletion("Rx /h", "cmdline"))
  T.eq({ "/hello:greet" }, vim.fn.getcompletion("Rx hello:", "cmdline"))
  T.answers.select = { false }
  vim.cmd("Rx actions")
  T.wait(function() return #T.ui.select == 1 end, "the picker")
  T.eq({ "/hello:greet — Greet me" }, T.ui.select[1].shown)
end)

T.test("/hello:greet asks through vim.ui and notifies the greeting", function()
  T.answers.select = { "formal" }
  T.answers.input = { "Ada" }
  vim.cmd("Rx /hello:greet")
  -- The notification, then the action's result message.
  T.wait(function()
    return #vim.tbl_filter(function(n) return n.msg:find("Good day, Ada.", 1, true) ~= nil end, T.notes) == 2
  end, "the greeting", 15000)
  local sel = T.ui.select[2]
  dump(vim.inspect(sel) .. vim.inspect(T.ui.input))
  T.eq({ "friendly", "formal", "pirate" }, sel.items)
  T.contains(sel.prompt, "How should I greet you?")
  T.contains(sel.prompt, "hello")
  T.contains(T.ui.input[1].prompt, "Your name")
  local note = T.find_note("Good day, Ada.")
  T.eq(vim.log.levels.INFO, note.level)
  T.contains(note.msg, "Greeted by the hello example plugin.")
end)

T.test("a code action runs through the plugin (vim.lsp.buf.code_action)", function()
  -- Neovim runs a code action's command only if the server lists it in
  -- its static executeCommandProvider (issue 30 item 4).
  vim.cmd.edit(st.root .. "/code-action.txt")
  vim.lsp.buf_attach_client(0, client.id)
  T.answers.select = { "pirate" }
  T.answers.input = { "Bo" }
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(a)
      return a.command ~= nil and a.command.command == "rx.runAction" and a.command.arguments[1] == "/hello:greet"
    end,
  })
  T.wait(function() return T.find_note("Ahoy, Bo!") ~= nil end, "the greeting from the code action", 15000)
  T.ok(T.find_note("does not support command") == nil, "Neovim refused the command")
end)

T.test("with trace = verbose, plugin frames land in :Rx log", function()
  local log = table.concat(require("rx_bridge.log").lines(), "\n")
  T.contains(log, "trace bridge: hello -> extension/ui/action")
  T.contains(log, "trace bridge: hello <- host/ui/request")
end)

T.test("a dismissed question cancels the action", function()
  T.answers.select = { false }
  vim.cmd("Rx /hello:greet")
  T.wait(function() return T.find_note("greeting cancelled") ~= nil end, "the plugin's message", 15000)
  dump(vim.inspect(T.find_note("greeting cancelled")))
end)

T.test(":RxChat streams a turn; session.start shows hello's status", function()
  T.eq(true, vim.tbl_contains(vim.fn.getcompletion("RxChat plugin/echo", "cmdline"), MODEL))
  vim.cmd("RxChat " .. MODEL)
  T.wait(function() return next(chat_mod.chats) ~= nil end, "the chat", 15000)
  chat = select(2, next(chat_mod.chats))
  vim.cmd("stopinsert")
  T.wait(function() return require("rx_bridge").status():find("hello: ready", 1, true) ~= nil end, "hello's status", 15000)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("Aecho these words back<CR>", true, false, true), "xt", false)
  T.wait(function() return not chat.busy and T.buf_text(chat.buf):find("\n— ", 1, true) ~= nil end, "the turn", 20000)
  local text = T.buf_text(chat.buf)
  dump(text)
  T.contains(text, "> echo these words back\necho these words back\n— done")
end)

T.test("a tool call and its permission question show inline", function()
  T.answers.select = { "Allow once" }
  local n = #T.ui.select
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('Acall run_command {"command": ["true"]}<CR>', true, false, true), "xt", false)
  T.wait(function() return not chat.busy and select(2, T.buf_text(chat.buf):gsub("\n— ", "")) >= 2 end, "the turn", 20000)
  local text = T.buf_text(chat.buf)
  dump(text)
  T.contains(text, "⚙ ")
  T.contains(text, "✓ permission: ")
  T.contains(text, "The tool returned")
  T.eq(n + 1, #T.ui.select, "one permission question")
  T.contains(T.ui.select[n + 1].prompt, "Reasonix asks to run: ")
end)

T.test("an agent edit, reviewed and accepted, lands in the open buffer (its unsaved text), with undo", function()
  local path = os.getenv("RX_TEST_TMP") .. "/notes.txt"
  vim.fn.writefile({ "hello disk" }, path)
  vim.cmd("split " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "hello buffer" })
  require("rx_bridge.client").attach(buf)
  T.ok(vim.lsp.buf_is_attached(buf, client.id), "attached")
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local turns = select(2, T.buf_text(chat.buf):gsub("\n— ", ""))
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(
    'Acall apply_edit {"path": "notes.txt", "edits": [{"oldText": "buffer", "newText": "edited"}]}<CR>', true, false, true), "xt", false)
  -- Tool approval "ask": the edit comes as a review, not a question.
  local review = require("rx_bridge.review")
  T.wait(function() return review.pending[1] ~= nil end, "the review", 20000)
  T.contains(T.buf_text(review.pending[1].buf), "+hello edited")
  review.decide(review.pending[1], "all", true)
  T.wait(function() return not chat.busy and select(2, T.buf_text(chat.buf):gsub("\n— ", "")) > turns end, "the turn", 20000)
  dump(T.buf_text(chat.buf))
  T.eq({ "hello edited" }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  T.eq({ "hello disk" }, vim.fn.readfile(path), "the file on disk is untouched until :w")
  vim.api.nvim_buf_call(buf, function() vim.cmd("silent undo") end)
  T.eq({ "hello buffer" }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  vim.api.nvim_buf_delete(buf, { force = true })
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
end)

T.test("<C-c> cancels a streaming turn", function()
  local words = {}
  for i = 1, 200 do
    words[i] = "word" .. i
  end
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A" .. table.concat(words, " ") .. "<CR>", true, false, true), "xt", false)
  T.wait(function() return T.buf_text(chat.buf):find("\nword1 word2 word3", 1, true) ~= nil end, "the stream", 20000)
  local t0 = vim.uv.hrtime()
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A<C-c>", true, false, true), "xt", false)
  T.wait(function() return not chat.busy end, "the turn to end", 20000)
  local ms = (vim.uv.hrtime() - t0) / 1e6
  T.ok(ms < 2000, ("the turn ended %d ms after <C-c>"):format(ms))
  local text = T.buf_text(chat.buf)
  dump(text)
  T.contains(text, "— cancelled")
  local answer = text:match("\n(word1 word2 word3[^\n]*)")
  T.ok(answer, "the answer streamed")
  T.ok(not answer:find("word200", 1, true), "the stream stopped: " .. answer)
end)

T.test(":checkhealth rx_bridge shows binary, version, protocol, home and plugins", function()
  vim.cmd("checkhealth rx_bridge")
  local h = T.buf_text(0)
  dump(h)
  vim.cmd("bwipeout!")
  T.contains(h, "OK found " .. bin)
  T.match("OK rx%-bridge [%w.%-]+ %(protocol reasonix%.extension%.v1%)", h)
  T.contains(h, "OK protocol major 1 (supported)")
  T.contains(h, "home: " .. home)
  T.contains(h, "hello 0.1.0: enabled, FULL TRUST runtime (copy), running")
  T.contains(h, "echo-provider 0.1.0: enabled, FULL TRUST runtime (copy), running")
  T.contains(h, "OK no startup error")
end)

T.test(":Rx plugins shows the FULL TRUST blocks", function()
  vim.cmd("Rx plugins")
  T.wait(function() return vim.api.nvim_buf_get_name(0) == "rx-bridge://plugins" end, "the view")
  local text = T.buf_text(0)
  dump(text)
  T.contains(text, "FULL TRUST")
  T.contains(text, home .. "/plugins/hello/bin/hello")
  vim.cmd("close")
end)

T.test(":Rx reload starts a new generation", function()
  local g = st.generation
  vim.cmd("Rx reload")
  T.wait(function() return T.find_note("plugins reloaded") ~= nil end, "the reload", 20000)
  T.ok(st.generation > g, "generation grew")
end)

T.test("the bridge and its plugins are gone when :qa returns", function()
  local out = os.getenv("RX_TEST_TMP") .. "/pids.json"
  local res, ms = T.child_nvim(([[
    local T = require("tests.helpers")
    T.setup({ cmd = { %q, "serve" } })
    T.start()
    local pids = T.descendants(vim.fn.getpid())
    local f = io.open(%q, "w")
    f:write(vim.json.encode(pids))
    f:close()
    vim.cmd("qa")
  ]]):format(bin, out))
  T.eq(0, res.code, "exit code; stderr: " .. tostring(res.stderr))
  local f = assert(io.open(out, "r"), "the child wrote no pids: " .. tostring(res.stderr))
  local pids = vim.json.decode(f:read("*a"))
  f:close()
  dump(vim.inspect(pids) .. " " .. ms .. " ms")
  T.ok(#pids >= 3, "the bridge and two sidecars ran: " .. vim.inspect(pids))
  for _, pid in ipairs(pids) do
    T.eq(false, T.alive(pid), "process " .. pid .. " is gone")
  end
end)

T.run()

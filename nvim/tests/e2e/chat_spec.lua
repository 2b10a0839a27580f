-- :RxChat against the real `rx-bridge serve`, in a home of its own:
-- echo-provider (naming every tool call call-1, as providers that number
-- the calls of each response do) and hello, tool approval "ask".
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local SMALL = "plugin/echo-provider/echo/small"
local LARGE = "plugin/echo-provider/echo/large"

local tmp = assert(os.getenv("RX_TEST_TMP"))

--- A home with echo-provider and hello and this config.toml.
local function make_home(dir, config)
  T.e2e_home(dir, { "echo-provider", "hello" }, config)
end

local home = tmp .. "/home"
make_home(home, ('model = "%s"\ntool_approval = "ask"\n'):format(SMALL))

T.capture_notify()
T.stub_ui()
-- verbose: the plugin frames in :Rx log show the model each turn asks for.
T.setup({ cmd = { bin, "serve", "--home", home }, trace = "verbose",
  cmd_env = { ECHO_PROVIDER_DELAY = "20ms", ECHO_PROVIDER_CALL_ID = "call-1" } })

local client, st = T.start()
local chat_mod = require("rx_bridge.chat")
local chat

local function turns()
  return select(2, T.buf_text(chat.buf):gsub("\n— ", ""))
end

local function wait_turns(n)
  T.wait(function() return not chat.busy and turns() >= n end, ("%d turns to end"):format(n), 30000)
end

--- The texts of the chat's virtual lines.
local function virt_text(buf)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, { details = true })) do
    for _, vl in ipairs(m[4].virt_lines or {}) do
      local parts = {}
      for _, chunk in ipairs(vl) do
        parts[#parts + 1] = chunk[1]
      end
      out[#out + 1] = table.concat(parts)
    end
  end
  return table.concat(out, "\n")
end

local function dump(what)
  if os.getenv("RX_TEST_VERBOSE") then
    io.stderr:write(what, "\n")
  end
end

T.test(":RxChat opens on the configured model", function()
  chat = T.open_chat()
  T.contains(T.buf_text(chat.buf), "Reasonix chat · " .. SMALL)
end)

-- ask mode asks about commands, never about reads (the engine's approval
-- table, issue 26), so the calls that wait on a question run a command.
T.test("two tool calls the provider both names call-1 show one line each, turn 1's left alone", function()
  T.answers.select = { "Allow once", "Allow once" }
  T.type_prompt(chat, 'call run_command {"command": ["true"]}')
  wait_turns(1)
  local first = T.buf_text(chat.buf)
  T.type_prompt(chat, 'call run_command {"command": ["true"]}')
  wait_turns(2)
  local text = T.buf_text(chat.buf)
  dump(text)
  T.eq(2, select(2, text:gsub("⚙ ", "")), "tool call lines in\n" .. text)
  -- Turn 1's lines (all but the prompt line then) are as they were.
  T.eq(first:sub(1, #first - 2), text:sub(1, #first - 2))
end)

T.test("a permission line sits under its tool call, before the output it guards; answered, it is no question any more", function()
  T.answers.select = { "Allow once" }
  local n = turns()
  T.type_prompt(chat, 'call run_command {"command": ["true"]}')
  wait_turns(n + 1)
  local text = T.buf_text(chat.buf)
  last = text:match(".*(\n> call run_command.-— done)")
  T.match("\n⚙ Run true %(execute%) %[completed%]\n✓ permission: Run true %(execute%) → Allow once\n    {\"command\":%[\"true\"%]}\n    %[exit status 0", last)
  T.eq(nil, last:find("? permission", 1, true), "no open question left:\n" .. last)
end)

T.test("a permission question is asked with the chat redrawn: its call and question are on screen", function()
  -- Which buffer text each redraw of the chat showed.
  local ns = vim.api.nvim_create_namespace("test.redraw")
  local drawn
  vim.api.nvim_set_decoration_provider(ns, {
    on_win = function(_, _, buf)
      if buf == chat.buf then
        drawn = vim.api.nvim_buf_get_changedtick(buf)
      end
    end,
  })
  local at_ask
  local stub = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    at_ask = { drawn = drawn, tick = vim.api.nvim_buf_get_changedtick(chat.buf), text = T.buf_text(chat.buf) }
    return stub(items, opts, on_choice)
  end
  T.answers.select = { "Allow once" }
  local n = turns()
  T.type_prompt(chat, 'call run_command {"command": ["true"]}')
  wait_turns(n + 1)
  vim.ui.select = stub
  vim.api.nvim_set_decoration_provider(ns, {})
  T.ok(at_ask, "a permission question")
  T.contains(at_ask.text, "? permission: ")
  T.eq(at_ask.tick, at_ask.drawn, "the chat as last drawn before the question (changedtick)")
end)

T.test("while a turn runs the chat says so; a prompt typed meanwhile is queued, then sent", function()
  local n = turns()
  -- The turn waits on its permission question (left open), so it surely
  -- runs while the second prompt is typed.
  T.answers.select = {}
  local asked = #T.ui.select
  T.type_prompt(chat, 'call run_command {"command": ["true"]}')
  T.wait(function() return #T.ui.select > asked end, "the permission question", 20000)
  T.ok(chat.busy, "the turn runs")
  T.match("working", virt_text(chat.buf), "the busy line")
  T.type_prompt(chat, "second prompt")
  T.ok(chat.busy, "the first turn still runs")
  T.contains(virt_text(chat.buf), "queued: second prompt")
  T.eq(nil, T.buf_text(chat.buf):find("> second prompt", 1, true), "not in the buffer while queued")
  T.ui.select[asked + 1].answer("Allow once")
  wait_turns(n + 2)
  local text = T.buf_text(chat.buf)
  dump(text)
  T.match("\n%> call run_command {\"command\": %[\"true\"%]}\n⚙ [^\n]*\n.-\nThe tool returned: [^\n]*\n— done[^\n]*\n%> second prompt\nsecond prompt\n— done", text)
  T.eq(1, select(2, text:gsub("> second prompt", "")), "the queued prompt shows once")
  T.eq("", virt_text(chat.buf), "no busy line once idle")
end)

T.test("gm switches the model at any time: the next turn runs on it; turns show their token usage", function()
  local n = turns()
  -- The turn waits on its permission question (left open), so the switch
  -- surely lands while it runs.
  T.answers.select = {}
  local asked = #T.ui.select
  T.type_prompt(chat, 'call run_command {"command": ["true"]}')
  T.wait(function() return #T.ui.select > asked end, "the permission question", 20000)
  local permission = T.ui.select[asked + 1]
  vim.cmd("stopinsert")
  vim.api.nvim_feedkeys("gm", "xt", false)
  T.wait(function() return #T.ui.select > asked + 1 end, "the model question")
  local picker = T.ui.select[asked + 2]
  local refs = vim.tbl_map(function(m) return type(m) == "table" and m.ref or m end, picker.items)
  T.ok(vim.tbl_contains(refs, SMALL), "the catalog is offered")
  for i, r in ipairs(refs) do
    if r == LARGE then
      picker.answer(i)
    end
  end
  T.wait(function() return T.buf_text(chat.buf):find("model: " .. LARGE .. " (from the next turn)", 1, true) ~= nil end,
    "the switch", 20000)
  T.ok(chat.busy, "the turn still runs")
  permission.answer("Allow once")
  wait_turns(n + 1)
  T.type_prompt(chat, "after the switch")
  wait_turns(n + 2)
  local text = T.buf_text(chat.buf)
  dump(text)
  T.match("\n> after the switch\nafter the switch\n— done · %d+ tokens %(%d+ in, %d+ out%)\n", text)
  T.eq(LARGE, chat.model)
  -- The models the provider was asked for: the running turn's two rounds
  -- kept small, the next turn ran on large.
  local models = {}
  for _, l in ipairs(require("rx_bridge.log").lines()) do
    local m = l:find("echo-provider", 1, true) and l:find('"streamId"', 1, true) and l:match('"model":"(%w+)"')
    if m then
      models[#models + 1] = m
    end
  end
  T.eq({ "small", "small", "large" }, vim.list_slice(models, #models - 2), "stream opens " .. vim.inspect(models))
end)

T.test("a card never takes focus: typing in the chat goes on; :Rx cards opens it", function()
  local win = vim.fn.bufwinid(chat.buf)
  local surface = require("rx_bridge.handlers").table()["rx/ui/surface"]
  local esc = vim.api.nvim_replace_termcodes("<Esc>", true, false, true)
  local seen = {}
  vim.v.errmsg = ""
  for i = 1, 6 do
    vim.api.nvim_set_current_win(win)
    -- In Insert mode in the chat, the card arrives; then a key is typed.
    vim.schedule(function()
      surface(nil, { plugin = "hello", surfaceId = "card-" .. (i % 3), sessionId = "", generation = st.generation, kind = "card",
        payload = { title = "Card " .. i, markdown = "Some **news**", actions = { { actionId = "greet", label = "Greet" } } } },
        { client_id = client.id, method = "rx/ui/surface" })
      seen[i] = { win = vim.api.nvim_get_current_win(), mode = vim.api.nvim_get_mode().mode }
      vim.api.nvim_feedkeys("x" .. esc, "nt", false)
    end)
    vim.api.nvim_feedkeys("A", "x!", false)
  end
  for i = 1, 6 do
    T.eq({ win = win, mode = "i" }, seen[i], "after card " .. i)
  end
  T.eq("", vim.v.errmsg)
  local lines = vim.api.nvim_buf_get_lines(chat.buf, -2, -1, false)
  T.eq({ "> xxxxxx" }, lines, "what was typed reached the prompt")
  vim.api.nvim_buf_set_lines(chat.buf, -2, -1, false, { "> " })
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    T.eq("", vim.api.nvim_win_get_config(w).relative, "no floating window")
  end
  local note = T.find_note("Card 1")
  T.ok(note, "a notification names the card")
  T.contains(note.msg, ":Rx cards")
  -- hello's own card (published at the session's start), then three
  -- (ids card-0..2), the latest of each.
  T.answers.select = { "hello: Card 6" }
  local n = #T.ui.select
  vim.cmd("Rx cards")
  T.wait(function() return #T.ui.select > n end, "the card list")
  T.eq({ "hello: Hello, plugin", "hello: Card 4", "hello: Card 5", "hello: Card 6" }, T.ui.select[n + 1].shown)
  T.wait(function() return vim.api.nvim_win_get_config(0).relative ~= "" end, "the card window")
  T.contains(T.buf_text(0), "# Card 6")
  vim.api.nvim_feedkeys("q", "x", false)
  T.eq(win, vim.api.nvim_get_current_win())
end)

T.test("stop reasons read as words: a step budget that ran out", function()
  local home2 = tmp .. "/home2"
  make_home(home2, ('model = "%s"\ntool_approval = "yolo"\nstep_budget = 1\n'):format(SMALL))
  local root = tmp .. "/other"
  vim.fn.mkdir(root .. "/.git", "p")
  T.setup({ cmd = { bin, "serve", "--home", home2 }, cmd_env = { ECHO_PROVIDER_DELAY = "0" } })
  vim.cmd("tabnew")
  vim.cmd("tcd " .. vim.fn.fnameescape(root))
  local before = vim.tbl_count(chat_mod.chats)
  vim.cmd("RxChat")
  T.wait(function() return vim.tbl_count(chat_mod.chats) > before end, "the second chat", 20000)
  vim.cmd("stopinsert")
  chat = chat_mod.for_buffer(vim.api.nvim_get_current_buf())
  T.type_prompt(chat, "call list_files {}")
  wait_turns(1)
  local text = T.buf_text(chat.buf)
  dump(text)
  T.contains(text, "\n— stopped: step limit reached")
  T.eq(nil, text:find("max_turn_requests", 1, true))
end)

T.run()

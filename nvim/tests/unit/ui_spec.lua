local T = require("tests.helpers")

T.capture_notify()
T.stub_ui()
T.setup()

local client, st = T.start()

local function req(kind, fields, extra)
  local p = { plugin = "hello", surfaceId = "q-" .. kind, sessionId = "", generation = st.generation, kind = kind,
    title = "Greeting", message = fields[1].label, fields = fields }
  for k, v in pairs(extra or {}) do
    p[k] = v
  end
  return p
end

local function answered(box)
  T.wait(function()
    return box.done
  end, "the client's answer")
  T.eq(nil, box.err)
  T.eq(nil, box.response.error)
  return box.response.result
end

T.test("an action's select, input and confirm go through vim.ui with what the plugin asked", function()
  T.answers.select = { "formal", "Yes (default)" }
  T.answers.input = { "Ada" }
  vim.cmd("Rx /hello:greet")
  T.wait(function()
    return T.find_note("Good day, Ada") ~= nil
  end, "the greeting")
  local sel = T.ui.select[1]
  T.eq("hello: Greeting — How should I greet you?", sel.prompt)
  T.eq({ "formal", "casual" }, sel.items)
  T.eq({ "formal", "casual (default)" }, sel.shown)
  T.eq("hello: Greeting — Your name?: ", T.ui.input[1].prompt)
  T.eq({ "Yes", "No" }, T.ui.select[2].items)
  T.eq("hello: Greeting — Send it?", T.ui.select[2].prompt)
  T.eq({ "Yes (default)", "No" }, T.ui.select[2].shown)
  local note = T.find_note("Good day, Ada")
  T.eq("hello: Good day, Ada", note.msg)
  T.eq(vim.log.levels.INFO, note.level)
  -- What the bridge got back, typed as the protocol says.
  local answers = {}
  for _, m in ipairs(T.received(client)) do
    if m.result and m.result.values then
      answers[#answers + 1] = m.result
    end
  end
  T.eq({ { cancelled = false, values = { value = "formal" } }, { cancelled = false, values = { value = "Ada" } },
    { cancelled = false, values = { value = true } } }, answers)
end)

T.test("a required input is asked again until it is not empty", function()
  T.ui.input = {}
  T.answers.input = { "", "", "Grace" }
  local box = T.fake_call(client, "rx/ui/request", req("input", { { key = "name", label = "Name", kind = "input", required = true } }))
  T.eq({ cancelled = false, values = { name = "Grace" } }, answered(box))
  T.eq(3, #T.ui.input)
  T.eq("hello: Greeting — Name: ", T.ui.input[1].prompt)
  T.eq("hello: Greeting — Name (required): ", T.ui.input[2].prompt)
  -- An optional input takes the empty answer.
  T.answers.input = { "" }
  box = T.fake_call(client, "rx/ui/request", req("input", { { key = "note", label = "Note", kind = "input", default = "x" } }))
  T.eq({ cancelled = false, values = { note = "" } }, answered(box))
  T.eq("x", T.ui.input[4].default)
end)

T.test("a dismissed prompt answers cancelled", function()
  T.answers.select = { false }
  local box = T.fake_call(client, "rx/ui/request", req("select", { { key = "value", label = "Pick", kind = "select", options = { "a", "b" } } }))
  T.eq({ cancelled = true }, answered(box))
  T.answers.input = { false }
  box = T.fake_call(client, "rx/ui/request", req("input", { { key = "value", label = "Name", kind = "input" } }))
  T.eq({ cancelled = true }, answered(box))
end)

T.test("confirm answers a boolean; No is false", function()
  T.answers.select = { "No" }
  local box = T.fake_call(client, "rx/ui/request", req("confirm", { { key = "value", label = "Delete?", kind = "confirm" } }))
  T.eq({ cancelled = false, values = { value = false } }, answered(box))
end)

T.test("multiselect toggles options and returns them in option order on Done", function()
  local n = #T.ui.select
  T.answers.select = { "[ ] c", "[ ] a", "Done (2 selected)" }
  local box = T.fake_call(client, "rx/ui/request", req("multiselect", { { key = "tags", label = "Tags", kind = "multiselect",
    options = { "a", "b", "c" } } }))
  T.eq({ cancelled = false, values = { tags = { "a", "c" } } }, answered(box))
  T.eq({ "Done (0 selected)", "[ ] a", "[ ] b", "[ ] c" }, T.ui.select[n + 1].shown)
  T.eq({ "Done (2 selected)", "[x] a", "[ ] b", "[x] c" }, T.ui.select[n + 3].shown)
  -- Nothing chosen is an empty array (not an object), unless required.
  T.answers.select = { "Done (1 selected)" }
  box = T.fake_call(client, "rx/ui/request", req("multiselect", { { key = "tags", label = "Tags", kind = "multiselect",
    options = { "a", "b" }, default = { "b" } } }))
  T.eq({ cancelled = false, values = { tags = { "b" } } }, answered(box))
  T.answers.select = { "[x] b", "Done (0 selected)", "[ ] a", "Done (1 selected)" }
  box = T.fake_call(client, "rx/ui/request", req("multiselect", { { key = "tags", label = "Tags", kind = "multiselect",
    options = { "a", "b" }, default = "b", required = true } }))
  T.eq({ cancelled = false, values = { tags = { "a" } } }, answered(box))
  local raw = T.fake_call(client, "rx/ui/request", req("multiselect", { { key = "t", label = "T", kind = "multiselect", options = { "a" } } }))
  T.wait(function() return #T.ui.select > 0 and T.ui.select[#T.ui.select].prompt == "hello: Greeting — T" end, "the picker")
  T.ui.select[#T.ui.select].answer(1)
  T.eq({ cancelled = false, values = { t = {} } }, answered(raw))
end)

T.test("a form's fields are asked in sequence and answered together", function()
  local n = #T.ui.select
  T.answers.input = { "Ada" }
  T.answers.select = { "casual", "Yes" }
  local box = T.fake_call(client, "rx/ui/request", req("input", {
    { key = "name", label = "Name", kind = "input", required = true },
    { key = "style", label = "Style", kind = "select", options = { "formal", "casual" } },
    { key = "ok", label = "Really?", kind = "confirm" },
  }, { title = "Profile" }))
  T.eq({ cancelled = false, values = { name = "Ada", style = "casual", ok = true } }, answered(box))
  T.eq("hello: Profile — Name (1/3): ", T.ui.input[#T.ui.input].prompt)
  T.eq("hello: Profile — Style (2/3)", T.ui.select[n + 1].prompt)
  T.eq("hello: Profile — Really? (3/3)", T.ui.select[n + 2].prompt)
  -- Dismissing a later field cancels the whole form.
  T.answers.input = { "Ada" }
  T.answers.select = { false }
  box = T.fake_call(client, "rx/ui/request", req("input", {
    { key = "name", label = "Name", kind = "input" },
    { key = "style", label = "Style", kind = "select", options = { "formal" } },
  }))
  T.eq({ cancelled = true }, answered(box))
end)

T.test("two requests at once are shown one after the other", function()
  local n = #T.ui.select
  local a = T.fake_call(client, "rx/ui/request", req("select", { { key = "value", label = "First", kind = "select", options = { "1" } } }))
  local b = T.fake_call(client, "rx/ui/request", req("select", { { key = "value", label = "Second", kind = "select", options = { "2" } } }))
  T.wait(function() return #T.ui.select == n + 1 end, "the first prompt")
  vim.wait(100)
  T.eq(n + 1, #T.ui.select, "the second waits for the first")
  T.ui.select[n + 1].answer(1)
  T.wait(function() return #T.ui.select == n + 2 end, "the second prompt")
  T.ui.select[n + 2].answer(1)
  T.eq({ cancelled = false, values = { value = "1" } }, answered(a))
  T.eq({ cancelled = false, values = { value = "2" } }, answered(b))
end)

T.test("a request of an older generation is answered cancelled without being shown", function()
  local n, m = #T.ui.select, #T.ui.input
  T.fake_notify(client, "fake/bump")
  T.wait(function() return st.generation == 2 end, "generation 2")
  local box = T.fake_call(client, "rx/ui/request", req("select", { { key = "value", label = "Old", kind = "select", options = { "x" } } },
    { generation = 1 }))
  T.eq({ cancelled = true }, answered(box))
  T.eq(n, #T.ui.select)
  T.eq(m, #T.ui.input)
end)

T.test("a prompt whose generation becomes old while it waits is not asked further", function()
  local n = #T.ui.select
  local box = T.fake_call(client, "rx/ui/request", req("select", {
    { key = "a", label = "A", kind = "select", options = { "x" } },
    { key = "b", label = "B", kind = "select", options = { "y" } },
  }))
  T.wait(function() return #T.ui.select == n + 1 end, "the first field")
  T.fake_notify(client, "fake/bump")
  T.wait(function() return st.generation == 3 end, "generation 3")
  T.ui.select[n + 1].answer(1)
  T.eq({ cancelled = true }, answered(box))
  T.eq(n + 1, #T.ui.select, "the second field is never shown")
end)

T.test("plugin text is shown, never run", function()
  vim.g.rx_pwned = nil
  T.answers.input = { "ok" }
  local label = "%{execute('let g:rx_pwned = 1')}\27[2J<script>"
  local box = T.fake_call(client, "rx/ui/request", req("input", { { key = "value", label = label, kind = "input",
    default = "]] vim.cmd('let g:rx_pwned = 2') --" } }))
  answered(box)
  T.eq(nil, vim.g.rx_pwned)
  T.eq("hello: Greeting — %{execute('let g:rx_pwned = 1')}[2J<script>: ", T.ui.input[#T.ui.input].prompt)
end)

T.run()

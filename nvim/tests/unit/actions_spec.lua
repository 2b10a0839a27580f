local T = require("tests.helpers")

T.capture_notify()
T.stub_ui()
T.setup()

local client, st

T.test("the bridge starts and reports its first generation", function()
  client, st = T.start()
  T.eq("rx_bridge", client.name)
  T.eq(1, st.generation)
  T.eq("0.0.0-fake", st.info.bridgeVersion)
  local init = T.request(client, "fake/initialize")
  local caps = init.capabilities.experimental.rxBridge
  T.eq(1, caps.version)
  T.eq(true, caps.ui.select and caps.ui.multiselect and caps.ui.input and caps.ui.confirm and caps.ui.form
    and caps.ui.notification and caps.ui.status and caps.ui.card)
  T.eq(true, caps.sessionUpdates)
  T.eq(true, init.capabilities.workspace.applyEdit)
end)

T.test(":Rx completes subcommands and /plugin:action names", function()
  T.eq({ "/hello:card", "/hello:greet" }, vim.fn.getcompletion("Rx /", "cmdline"))
  T.eq({ "/hello:greet" }, vim.fn.getcompletion("Rx /hello:g", "cmdline"))
  T.eq({ "/hello:greet" }, vim.fn.getcompletion("Rx hello:g", "cmdline"))
  T.eq({ "reload" }, vim.fn.getcompletion("Rx rel", "cmdline"))
  local all = vim.fn.getcompletion("Rx ", "cmdline")
  T.eq({ "actions", "cards", "install", "log", "models", "plugins", "reload", "sessions", "setup", "/hello:card", "/hello:greet" }, all)
  T.eq({}, vim.fn.getcompletion("Rx /hello:greet ", "cmdline"))
end)

T.test(":Rx actions lists actions in a picker and runs the chosen one", function()
  T.answers.select = { false }
  vim.cmd("Rx actions")
  T.wait(function()
    return #T.ui.select == 1
  end, "the action picker")
  local picker = T.ui.select[1]
  T.eq("Reasonix action or command", picker.prompt)
  T.eq({ "/hello:card", "/hello:greet — Greet someone" }, picker.shown)
  -- Commands and actions in one format: name, argument hint, what it does.
  local actions = require("rx_bridge.actions")
  T.eq("/kit:review <file> — Reviews a file",
    actions.label({ name = "/kit:review", kind = "command", argumentHint = "<file>", description = "Reviews a file" }))
  T.eq("/hello:greet — Greet someone", actions.label({ name = "/hello:greet", label = "Greet someone" }))

  T.answers.select = { "/hello:greet — Greet someone", false }
  vim.cmd("Rx actions")
  T.wait(function()
    return #T.ui.select == 3
  end, "the greet action's first question")
  local runs = T.received(client, "workspace/executeCommand")
  T.eq(1, #runs)
  T.eq({ command = "rx.runAction", arguments = { "/hello:greet" } }, runs[1].params)
end)

T.test(":Rx /plugin:action passes key=value args", function()
  vim.cmd("Rx /hello:card who=Ada")
  T.wait(function()
    return #T.received(client, "workspace/executeCommand") == 2
  end, "the action")
  local runs = T.received(client, "workspace/executeCommand")
  T.eq({ command = "rx.runAction", arguments = { "/hello:card", { who = "Ada" } } }, runs[2].params)
  vim.cmd("Rx /hello:card bad")
  T.ok(T.find_note('"bad" is not key=value'), "a bad argument is reported")
end)

T.test("an unknown action shows the bridge's error", function()
  vim.cmd("Rx /hello:nope")
  T.wait(function()
    return T.find_note('unknown action "/hello:nope"') ~= nil
  end, "the error")
  T.eq(vim.log.levels.ERROR, T.find_note('unknown action "/hello:nope"').level)
  vim.cmd("Rx not-an-action")
  T.ok(T.find_note("is not an action name"), "a malformed name is refused before asking the bridge")
end)

T.test(":Rx reload reports the new generation and warnings", function()
  vim.cmd("Rx reload")
  T.wait(function()
    return T.find_note("plugins reloaded") ~= nil
  end, "the reload")
  T.contains(T.find_note("plugins reloaded").msg, "generation 2")
  T.eq(2, st.generation)
  local w = T.find_note("optional plugin broken failed to start")
  T.ok(w, "the warning is shown")
  T.eq(vim.log.levels.WARN, w.level)
end)

T.test("one client per workspace root", function()
  local tmp = os.getenv("RX_TEST_TMP")
  for _, d in ipairs({ "a", "b" }) do
    vim.fn.mkdir(tmp .. "/" .. d .. "/.git", "p")
    vim.fn.mkdir(tmp .. "/" .. d .. "/sub", "p")
  end
  local a = require("rx_bridge").start(vim.uv.fs_realpath(tmp .. "/a"))
  local a2 = require("rx_bridge").start(vim.uv.fs_realpath(tmp .. "/a"))
  local b = require("rx_bridge").start(vim.uv.fs_realpath(tmp .. "/b"))
  T.eq(a.id, a2.id)
  T.ok(a.id ~= b.id, "another root has another client")
  -- A file buffer resolves to the root of its marker.
  vim.cmd("edit " .. vim.fn.fnameescape(tmp .. "/b/sub/x.txt"))
  T.eq(vim.uv.fs_realpath(tmp .. "/b"), require("rx_bridge.client").root_for(0))
  require("rx_bridge.client").attach(0)
  T.ok(vim.lsp.buf_is_attached(0, b.id), "the file is attached to its root's bridge")
  vim.cmd("bwipeout!")
end)

T.test("with autostart, opening a file attaches it to its root's bridge", function()
  local tmp = os.getenv("RX_TEST_TMP")
  vim.fn.mkdir(tmp .. "/c/.git", "p")
  T.setup({ autostart = true })
  vim.cmd("edit " .. vim.fn.fnameescape(tmp .. "/c/y.txt"))
  local buf = vim.api.nvim_get_current_buf()
  local root = vim.uv.fs_realpath(tmp .. "/c")
  T.wait(function()
    local cs = vim.lsp.get_clients({ bufnr = buf, name = "rx_bridge" })
    return #cs == 1 and cs[1].root_dir == root
  end, "the file's bridge", 10000)
  -- Commands in that buffer use the same client.
  T.eq(vim.lsp.get_clients({ bufnr = buf, name = "rx_bridge" })[1].id, require("rx_bridge").start().id)
  local opened = T.received(vim.lsp.get_clients({ bufnr = buf, name = "rx_bridge" })[1], "textDocument/didOpen")
  T.eq(1, #opened)
  T.eq(vim.uri_from_fname(vim.uv.fs_realpath(tmp .. "/c") .. "/y.txt"), opened[1].params.textDocument.uri)
end)

T.test(":Rx plugins shows a crashed plugin's state, why, since, recovery and stderr", function()
  local reason = "extension sidecar hello crashed: connection closed (exit status 2) (provider_interrupted)"
  local lines = require("rx_bridge.actions").plugin_lines({ plugins = { {
    name = "hello", version = "0.1.0", enabled = true, running = false, generation = 1, manifestKind = "reasonix", root = "/h",
    state = "crashed", reason = reason, since = "2025-06-01T09:12:44Z", recover = "reload the plugins (rx.reload)",
    details = "panic: boom\ngoroutine 1 [running]:", runtime = vim.NIL, trust = "", error = reason,
  } } }, { root = "/ws", generation = 1, info = {} })
  local text = table.concat(lines, "\n")
  T.contains(text, "  enabled: yes   running: no   generation: 1\n  state: crashed\n  why: " .. reason
    .. "\n  since: 2025-06-01T09:12:44Z\n  to recover: reload the plugins (rx.reload)")
  T.contains(text, "  details (stderr):\n    panic: boom\n    goroutine 1 [running]:")
end)

T.run()

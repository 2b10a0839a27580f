-- A bare vim.lsp client (no rx-bridge.nvim, no experimental.rxBridge) runs
-- a plugin action through a code action against the real `rx-bridge serve`
-- with examples/hello installed, as Emacs eglot or Helix would: the action
-- is a source code action, its questions come as window/showMessageRequest
-- and its outcome as window/showMessage.
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")

T.stub_ui()

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, "p")
local file = dir .. "/notes.txt"
vim.fn.writefile({ "some text" }, file)

local client_id, client
-- Neovim 0.11 made the client's functions methods (the dot forms warn).
local v11 = vim.fn.has("nvim-0.11") == 1
local function call(name, ...)
  if v11 then
    return client[name](client, ...)
  end
  return client[name](...)
end

-- What the server shows with window/showMessage: recorded, then shown by
-- Neovim's own handler as always.
local shown = {}
local show = vim.lsp.handlers["window/showMessage"]
vim.lsp.handlers["window/showMessage"] = function(err, result, ctx, config)
  shown[#shown + 1] = result.message
  return show(err, result, ctx, config)
end

local function was_shown(sub)
  for _, m in ipairs(shown) do
    if m:find(sub, 1, true) then
      return true
    end
  end
  return false
end

--- The code actions the server offers in the current buffer.
local function code_actions(only)
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.context = { diagnostics = {}, only = only }
  local res = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 10000) or {}
  local out = {}
  for _, r in pairs(res) do
    for _, a in ipairs(r.result or {}) do
      out[#out + 1] = a
    end
  end
  return out
end

local function is_greet(a)
  return a.command and a.command.command == "rx.runAction" and a.command.arguments[1] == "/hello:greet"
end

T.test("a bare vim.lsp client starts the bridge", function()
  vim.cmd.edit(file)
  client_id = vim.lsp.start({ name = "rx-bridge-plain", cmd = { bin, "serve" }, root_dir = dir })
  T.ok(client_id, "vim.lsp.start")
  client = vim.lsp.get_client_by_id(client_id)
  T.wait(function() return client.initialized end, "initialize", 20000)
  T.eq({ "source.rx" }, client.server_capabilities.codeActionProvider.codeActionKinds)
  -- The first generation comes up in the background.
  T.wait(function() return #vim.tbl_filter(is_greet, code_actions()) == 1 end, "the /hello:greet code action", 20000)
end)

T.test("the plugin action is a source code action, not a quick fix", function()
  local greet = vim.tbl_filter(is_greet, code_actions())[1]
  T.eq("source.rx", greet.kind)
  T.eq("Reasonix: Greet me (/hello:greet)", greet.title)
  T.eq({}, code_actions({ "quickfix" }))
  T.eq(1, #vim.tbl_filter(is_greet, code_actions({ "source" })))
end)

T.test("vim.lsp.buf.code_action runs it; its questions and outcome come as LSP messages", function()
  local n = #T.ui.select
  -- The select has buttons; the name (free text) cannot be asked by a
  -- plain client, so the plugin sees it cancelled and says so.
  T.answers.select = { "pirate" }
  vim.lsp.buf.code_action({ apply = true, filter = is_greet })
  T.wait(function() return was_shown("hello: greeting cancelled") end, "the action's outcome", 20000)
  local q = T.ui.select[n + 1]
  T.contains(q.prompt, "hello: How should I greet you?")
  T.eq({ "friendly", "formal", "pirate" }, q.shown)
  T.ok(was_shown('hello asked "Your name", which this editor cannot show'), vim.inspect(shown))
end)

T.test("rx.runAction without arguments asks which action", function()
  local n = #T.ui.select
  T.answers.select = { "/hello:greet", false }
  shown = {}
  call("request", "workspace/executeCommand", { command = "rx.runAction" }, function() end, 0)
  T.wait(function() return was_shown("hello: greeting cancelled") end, "the picked action to run", 20000)
  T.contains(T.ui.select[n + 1].prompt, "rx-bridge: Run which plugin action?")
  T.eq({ "/hello:greet" }, T.ui.select[n + 1].shown)
end)

T.test("the client stops cleanly", function()
  call("stop")
  T.wait(function() return call("is_stopped") end, "the client to stop", 20000)
end)

T.run()

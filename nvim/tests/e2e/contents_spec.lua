-- Against the real `rx-bridge serve`, in a home of its own: echo-provider,
-- a package "kit" with a command, and a package "tools" whose MCP server is
-- the real @modelcontextprotocol/server-everything (stdio).
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local shared = assert(os.getenv("RX_BRIDGE_HOME"), "RX_BRIDGE_HOME is not set")
local everything = assert(os.getenv("SERVER_EVERYTHING"), "SERVER_EVERYTHING is not set (nvim/scripts/test.sh runs make mcp-setup's script)")
local node = assert(vim.fn.exepath("node") ~= "" and vim.fn.exepath("node") or nil, "node is not on PATH")
local MODEL = "plugin/echo-provider/echo/small"

local tmp = assert(os.getenv("RX_TEST_TMP"))
local home = tmp .. "/home"

local function write(path, body)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local f = assert(io.open(path, "w"))
  f:write(body)
  f:close()
end

local function install(src)
  local r = vim.system({ bin, "plugin", "install", src, "--yes" }, { env = { RX_BRIDGE_HOME = home }, text = true }):wait()
  assert(r.code == 0, "install " .. src .. ": " .. r.stdout .. r.stderr)
end

install(shared .. "/plugins/echo-provider")
write(tmp .. "/kit/reasonix-plugin.json", [[{"apiVersion":"reasonix.io/plugin/v1","name":"kit","version":"1.0.0","contributes":{"commands":["commands"]}}]])
write(tmp .. "/kit/commands/review.md", "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 carefully.")
install(tmp .. "/kit")
write(tmp .. "/tools/reasonix-plugin.json", vim.json.encode({
  apiVersion = "reasonix.io/plugin/v1", name = "tools", version = "1.0.0",
  contributes = { mcpServers = { everything = { command = node, args = { everything, "stdio" } } } },
}))
install(tmp .. "/tools")
write(home .. "/config.toml", ('model = "%s"\n'):format(MODEL))

T.capture_notify()
T.stub_ui()
T.setup({ cmd = { bin, "serve", "--home", home }, trace = "verbose" })

local client, st
local chat_mod = require("rx_bridge.chat")
local chat

local function dump(what)
  if os.getenv("RX_TEST_VERBOSE") then
    io.stderr:write(what, "\n")
  end
end

local function turns(buf)
  return select(2, T.buf_text(buf):gsub("\n— ", ""))
end

T.test("rx/actions lists the package's command with its description and argument hint", function()
  client, st = T.start()
  local found
  for _, a in ipairs(T.request(client, "rx/actions").actions) do
    if a.name == "/kit:review" then
      found = a
    end
  end
  T.ok(found, "/kit:review is listed")
  T.eq("command", found.kind)
  T.eq("<file>", found.argumentHint)
  T.eq("Review a file", found.description)
  T.eq(true, vim.tbl_contains(vim.fn.getcompletion("Rx /kit", "cmdline"), "/kit:review"))
end)

T.test(":Rx actions runs /kit:review: its arguments asked, the expanded text answered in :RxChat", function()
  T.answers.select = { "/kit:review <file> — Review a file" }
  T.answers.input = { "main.go" }
  vim.cmd("Rx actions")
  T.wait(function() return next(chat_mod.chats) ~= nil end, "the chat", 15000)
  chat = select(2, next(chat_mod.chats))
  T.wait(function() return not chat.busy and turns(chat.buf) >= 1 end, "the turn", 20000)
  local text = T.buf_text(chat.buf)
  dump(text)
  T.contains(T.ui.input[1].prompt, "/kit:review <file>")
  -- The package's .mcp.json server starts with the session; the first
  -- turn may say it waits for it ("! waiting for MCP servers …") before
  -- the answer.
  T.match("\n> /kit:review main%.go\n[^\n]*\n?[^\n]*\n?Review main%.go carefully%.\n— done", text)
  for line in text:match("> /kit:review main%.go\n(.-)Review main"):gmatch("[^\n]+") do
    T.ok(line:sub(1, 2) == "! ", "only notices between the prompt and the answer: " .. line)
  end
end)

T.test("typing / at the start of the chat prompt completes the commands; the chosen one runs", function()
  vim.cmd("stopinsert")
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  T.eq("v:lua.require'rx_bridge.chat'.omnifunc_1", vim.bo[chat.buf].omnifunc)
  local items = chat_mod.complete(chat, 0, "/k")
  T.eq("/kit:review", items[1].word)
  T.eq("/kit:review <file>", items[1].abbr)
  T.eq("Review a file", items[1].info)
  -- "/" opens the menu; typing filters it, nothing is inserted until an
  -- entry is chosen (<C-n>, <C-y>).
  local n = turns(chat.buf)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A/ki<C-n><C-y> notes.txt<CR>", true, false, true), "xt", false)
  T.wait(function() return not chat.busy and turns(chat.buf) > n end, "the turn", 20000)
  local text = T.buf_text(chat.buf)
  dump(text)
  T.contains(text, "> /kit:review notes.txt\nReview notes.txt carefully.\n— done")
end)

T.test("the model calls the package's MCP tool; the call shows in :RxChat", function()
  T.wait(function()
    for _, p in ipairs(T.request(client, "rx/plugins").plugins) do
      if p.name == "tools" then
        local s = p.contents.mcpServers[1]
        return s and s.state == "ready"
      end
    end
  end, "server-everything to be ready", 30000)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  local n = turns(chat.buf)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('Acall mcp__everything__echo {"message": "hi from nvim"}<CR>', true, false, true), "xt", false)
  T.wait(function() return not chat.busy and turns(chat.buf) > n end, "the turn", 30000)
  local text = T.buf_text(chat.buf)
  dump(text)
  T.contains(text, "⚙ ")
  T.contains(text, "mcp__everything__echo")
  T.contains(text, "Echo: hi from nvim")
  T.contains(text, "The tool returned")
end)

T.test(":Rx plugins lists each package's contents", function()
  vim.cmd("Rx plugins")
  T.wait(function() return T.buf_text(0):find("MCP servers:", 1, true) ~= nil end, "the plugins view", 10000)
  local text = T.buf_text(0)
  dump(text)
  T.contains(text, "  commands:\n    /kit:review <file> - Review a file")
  T.match("everything %[stdio%] %- [^\n]*node[^\n]* %(ready, %d+ tools, %d+ prompts%)", text)
  vim.cmd("close")
end)

T.test(":checkhealth rx_bridge lists packages that have no runtime", function()
  -- kit and tools run no sidecar: their runtime is null (issue 30 item 7).
  vim.cmd("checkhealth rx_bridge")
  local health = T.buf_text(0)
  dump(health)
  T.ok(health:find("Error executing", 1, true) == nil and health:find("attempt to index", 1, true) == nil, health)
  T.match("kit 1%.0%.0: [^\n]*", health)
  T.match("tools 1%.0%.0: [^\n]*", health)
  vim.cmd("bwipeout")
end)

T.run()

-- First run from an empty bridge home, with the editor's own commands
-- only: `:Rx setup` configures an OpenAI-compatible server (the fake one in
-- testdata/fake-openai, which wants an API key), the key typed into
-- inputsecret() and handed to `rx-bridge setup --api-key-stdin`; the bridge
-- restarts and a chat streams the server's answer. Then `:Rx install`
-- previews a plugin's FULL TRUST block, installs it on confirmation and
-- reloads the plugins. The answers are given where a user gives them:
-- vim.ui.select / vim.ui.input (stubbed by tests/helpers) and the keys
-- typed into the real inputsecret().
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local shared = assert(os.getenv("RX_BRIDGE_HOME"), "RX_BRIDGE_HOME is not set")
local tmp = assert(os.getenv("RX_TEST_TMP"))
local repo = vim.fn.fnamemodify(T.nvim_dir, ":h")

local KEY = "sk-firstrun-" .. tostring(vim.uv.hrtime())
local home = tmp .. "/empty-home"
vim.fn.mkdir(home, "p")
local server_log = tmp .. "/fake-openai.log"

-- The fake server: one JSON line {"url": ...} on stdout once it listens;
-- it exits when this Neovim (its stdin) goes.
local url
local server = vim.system({ "node", repo .. "/testdata/fake-openai/server.mjs", "--key", KEY, "--log", server_log,
  "--exit-with-stdin" }, {
  stdin = true,
  stdout = function(_, data)
    local u = data and data:match('"url":"([^"]+)"')
    if u then
      url = u
    end
  end,
})
T.wait(function() return url ~= nil end, "the fake OpenAI server to listen", 15000)

-- The user's environment: an empty home, rx-bridge as the program.
vim.env.RX_BRIDGE_HOME = home
T.capture_notify()
T.stub_ui()
T.setup({ cmd = { bin, "serve" } })

-- inputsecret() is the real one; the user types the key into it.
local secret_prompts = {}
local real_inputsecret = vim.fn.inputsecret
vim.fn.inputsecret = function(prompt, ...)
  secret_prompts[#secret_prompts + 1] = prompt
  vim.api.nvim_feedkeys(KEY .. "\r", "t", true)
  return real_inputsecret(prompt, ...)
end

local chat

local function all_text_seen()
  local parts = {}
  for _, n in ipairs(T.notes) do
    parts[#parts + 1] = tostring(n.msg)
  end
  parts[#parts + 1] = vim.fn.execute("messages")
  parts[#parts + 1] = table.concat(require("rx_bridge.log").lines(), "\n")
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      parts[#parts + 1] = T.buf_text(b)
    end
  end
  for _, h in ipairs({ "cmd", "search", "expr", "input", "debug" }) do
    for i = 1, vim.fn.histnr(h) do
      parts[#parts + 1] = vim.fn.histget(h, i)
    end
  end
  for _, s in ipairs(T.ui.select) do
    parts[#parts + 1] = tostring(s.prompt) .. table.concat(s.shown, "\n")
  end
  for _, s in ipairs(T.ui.input) do
    parts[#parts + 1] = tostring(s.prompt) .. tostring(s.default)
  end
  return table.concat(parts, "\n")
end

T.test(":Rx setup from an empty home: provider, key (inputsecret), model, then the bridge restarts on it", function()
  T.answers.select = { "Any OpenAI-compatible server (its URL)", "Type the key (stored in a file only you can read)" }
  T.answers.input = { url }
  local done
  require("rx_bridge.onboard").on_done = function(ok) done = ok end
  vim.cmd("Rx setup")
  -- The model picker lists the server's models with their context windows.
  T.wait(function() return #T.ui.select >= 3 end, "the model picker", 20000)
  T.contains(table.concat(T.ui.select[3].shown, "\n"), "fake-chat")
  T.contains(table.concat(T.ui.select[3].shown, "\n"), "32768")
  T.ui.select[3].answer(1)
  T.wait(function() return done ~= nil end, ":Rx setup to finish", 30000)
  T.eq(true, done, "setup succeeded; notes: " .. vim.inspect(T.notes))
  T.eq(1, #secret_prompts, "the key was asked once, with inputsecret()")
  local cfg = table.concat(vim.fn.readfile(home .. "/config.toml"), "\n")
  T.contains(cfg, "local/fake-chat")
  T.ok(not cfg:find(KEY, 1, true), "config.toml does not hold the key")
  local key_file = home .. "/keys/local.key"
  T.eq(KEY, vim.trim(table.concat(vim.fn.readfile(key_file), "\n")))
  T.eq(tonumber("600", 8), bit.band(vim.uv.fs_stat(key_file).mode, tonumber("777", 8)), "the key file is 0600")
  T.ok(T.find_note("local/fake-chat"), "a message names the new default model: " .. vim.inspect(T.notes))
end)

T.test("a chat on the new model streams the server's answer", function()
  chat = T.open_chat()
  T.contains(T.buf_text(chat.buf), "local/fake-chat")
  T.type_prompt(chat, "hello from neovim")
  T.wait_answer(chat, "fake-openai says: hello from neovim")
  T.contains(T.buf_text(chat.buf), "— done")
  T.shot("answer")
end)

T.test("the server saw the key on every request; the key is shown and logged nowhere", function()
  local entries = {}
  for _, l in ipairs(vim.fn.readfile(server_log)) do
    entries[#entries + 1] = vim.json.decode(l)
  end
  local chats = 0
  for _, e in ipairs(entries) do
    T.eq(true, e.auth, "auth of " .. vim.inspect(e))
    if e.path == "/v1/chat/completions" then
      chats = chats + 1
    end
  end
  T.ok(chats >= 1, "the chat reached the server: " .. vim.inspect(entries))
  T.ok(not all_text_seen():find(KEY, 1, true), "the key appears in a message, log, buffer or history")
end)

T.test(":Rx setup remove-key: asks first, then the key file and its setting go; the provider stays", function()
  local key_file = home .. "/keys/local.key"
  T.ok(vim.uv.fs_stat(key_file) ~= nil, "the key file is there")
  -- Cancel changes nothing.
  local n = #T.ui.select
  local done
  require("rx_bridge.onboard").on_done = function(ok) done = ok end
  vim.cmd("Rx setup remove-key")
  T.wait(function() return #T.ui.select >= n + 1 end, "the provider picker", 20000)
  T.eq(1, #T.ui.select[n + 1].shown)
  T.contains(T.ui.select[n + 1].shown[1], "local  (key file " .. key_file)
  T.ui.select[n + 1].answer(1)
  T.wait(function() return #T.ui.select >= n + 2 end, "the confirmation", 20000)
  T.eq({ "Remove it", "Cancel" }, T.ui.select[n + 2].shown)
  T.ui.select[n + 2].answer("Cancel")
  T.wait(function() return done ~= nil end, "remove-key to finish", 20000)
  T.eq(false, done)
  T.ok(vim.uv.fs_stat(key_file) ~= nil, "the key file is still there")
  -- Named on the command line, confirmed: removed.
  n, done = #T.ui.select, nil
  require("rx_bridge.onboard").on_done = function(ok) done = ok end
  vim.cmd("Rx setup remove-key local")
  T.wait(function() return #T.ui.select >= n + 1 end, "the confirmation", 20000)
  T.contains(T.ui.select[n + 1].prompt, "Remove the API key of local")
  T.ui.select[n + 1].answer("Remove it")
  T.wait(function() return done ~= nil end, "remove-key to finish", 30000)
  T.eq(true, done, vim.inspect(T.notes))
  T.eq(nil, vim.uv.fs_stat(key_file), "the key file is deleted")
  local cfg = table.concat(vim.fn.readfile(home .. "/config.toml"), "\n")
  T.ok(not cfg:find("api_key_file", 1, true), cfg)
  T.contains(cfg, 'name = "local"')
  T.ok(T.find_note("the API key of local is removed"), vim.inspect(T.notes))
  -- Nothing left: a provider named that has no key is an error naming it.
  done = nil
  require("rx_bridge.onboard").on_done = function(ok) done = ok end
  vim.cmd("Rx setup remove-key local")
  T.wait(function() return done ~= nil end, "remove-key to finish", 20000)
  T.eq(false, done)
  T.ok(T.find_note('provider "local" has no stored API key'), vim.inspect(T.notes))
  T.ok(not all_text_seen():find(KEY, 1, true), "the key appears in a message, log, buffer or history")
end)

T.test(":Rx setup again, the key in an environment variable: it asks before replacing the provider", function()
  vim.env.RX_FIRSTRUN_KEY = KEY
  local n = #T.ui.select
  T.answers.select = { "Any OpenAI-compatible server (its URL)", "Read it from an environment variable" }
  T.answers.input = { url, "RX_FIRSTRUN_KEY" }
  local done
  require("rx_bridge.onboard").on_done = function(ok) done = ok end
  vim.cmd("Rx setup")
  T.wait(function() return #T.ui.select >= n + 3 end, "the model picker", 20000)
  T.ui.select[n + 3].answer(1)
  T.wait(function() return #T.ui.select >= n + 4 end, "the replace question", 20000)
  T.contains(T.ui.select[n + 4].prompt, '"local"')
  T.eq({ "Replace it", "Cancel" }, T.ui.select[n + 4].shown)
  T.ui.select[n + 4].answer("Replace it")
  T.wait(function() return done ~= nil end, ":Rx setup to finish", 30000)
  T.eq(true, done, vim.inspect(T.notes))
  T.eq(1, #secret_prompts, "no key typed this time")
  local cfg = table.concat(vim.fn.readfile(home .. "/config.toml"), "\n")
  T.contains(cfg, "RX_FIRSTRUN_KEY")
  T.ok(not cfg:find(KEY, 1, true), "config.toml does not hold the key")
  T.ok(T.find_note("$RX_FIRSTRUN_KEY"), "says where the key is read from: " .. vim.inspect(T.notes))
  -- The restarted bridge reads the key from the variable.
  chat = T.open_chat()
  T.type_prompt(chat, "env key works")
  T.wait_answer(chat, "fake-openai says: env key works")
  T.ok(not all_text_seen():find(KEY, 1, true), "the key appears in a message, log, buffer or history")
end)

T.test(":Rx install shows the FULL TRUST preview, installs on yes and reloads the plugins", function()
  local src = shared .. "/plugins/hello"
  local before = #T.ui.select
  local done
  require("rx_bridge.onboard").on_done = function(ok) done = ok end
  vim.cmd("Rx install " .. vim.fn.fnameescape(src))
  T.wait(function() return #T.ui.select > before end, "the install question", 20000)
  local preview = vim.fn.bufnr("rx-bridge://install-preview")
  T.ok(preview ~= -1, "a preview buffer")
  local ptext = T.buf_text(preview)
  T.contains(ptext, "FULL TRUST")
  T.contains(ptext, "hello")
  T.ok(vim.fn.bufwinid(preview) ~= -1, "the preview is on screen while asked")
  T.shot("install preview")
  T.ok(vim.fn.isdirectory(home .. "/plugins/hello") == 0, "nothing installed before the answer")
  T.ui.select[before + 1].answer(1)
  T.wait(function() return done ~= nil end, ":Rx install to finish", 30000)
  T.eq(true, done)
  T.ok(vim.fn.isdirectory(home .. "/plugins/hello") == 1, "installed into the home")
  -- The running bridge has the plugin's action after the reload.
  local c = require("rx_bridge.client").current()
  T.wait(function()
    local names = {}
    local res = require("rx_bridge.compat").request_sync(c, "rx/actions", vim.empty_dict(), 5000)
    for _, a in ipairs(res and res.result and res.result.actions or {}) do
      names[a.name] = true
    end
    return names["/hello:greet"]
  end, "/hello:greet after the reload", 20000)
end)

T.test(":Rx install answered No installs nothing", function()
  local src = shared .. "/plugins/echo-provider"
  local before = #T.ui.select
  local done
  require("rx_bridge.onboard").on_done = function(ok) done = ok end
  vim.cmd("Rx install " .. vim.fn.fnameescape(src))
  T.wait(function() return #T.ui.select > before end, "the install question", 20000)
  T.ui.select[before + 1].answer(2)
  T.wait(function() return done ~= nil end, ":Rx install to finish", 30000)
  T.eq(false, done)
  T.ok(vim.fn.isdirectory(home .. "/plugins/echo-provider") == 0, "nothing installed")
  T.eq(-1, vim.fn.bufwinid(vim.fn.bufnr("rx-bridge://install-preview")), "the preview closed")
end)

T.run()

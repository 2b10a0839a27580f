local T = require("tests.helpers")

T.capture_notify()
T.stub_ui()

local function health_text()
  vim.cmd("checkhealth rx_bridge")
  local text = T.buf_text(0)
  if os.getenv("RX_TEST_VERBOSE") then
    io.stderr:write(text, "\n")
  end
  vim.cmd("bwipeout!")
  return text
end

T.test("plugin/rx_bridge.lua defines the commands without starting anything", function()
  T.eq(2, vim.fn.exists(":Rx"))
  T.eq(2, vim.fn.exists(":RxChat"))
  T.eq({}, require("rx_bridge.client").all())
end)

T.test("packadd loads the plugin from a package", function()
  local site = os.getenv("RX_TEST_TMP") .. "/site"
  vim.fn.mkdir(site .. "/pack/rx/opt", "p")
  vim.uv.fs_symlink(T.nvim_dir, site .. "/pack/rx/opt/rx_bridge")
  local res = vim.system({ os.getenv("RX_TEST_NVIM"), "--headless", "--clean", "-i", "NONE", "-n",
    "--cmd", "set packpath^=" .. site,
    "-c", "packadd rx_bridge",
    "-c", "lua io.stdout:write(vim.fn.exists(':Rx'), vim.fn.exists(':RxChat'), type(require('rx_bridge').setup))",
    "-c", "qa!" }, { text = true, stdin = false }):wait()
  T.eq("22function", res.stdout)
end)

T.test("an invalid option is refused with its name", function()
  T.eq(false, require("rx_bridge").setup({ trace = "loud" }))
  T.contains(T.find_note("invalid setup option").msg, "trace: expected off|messages|verbose")
  T.eq(false, require("rx_bridge").setup({ colour = true }))
  T.contains(T.notes[#T.notes].msg, "colour: unknown option")
  T.eq(false, require("rx_bridge").setup({ cmd = {} }))
  T.eq(false, require("rx_bridge").setup({ chat = { open = "float" } }))
end)

T.test("a missing binary gives one clear message, and :checkhealth shows it", function()
  T.notes = {}
  T.eq(true, require("rx_bridge").setup({ cmd = { "rx-bridge-not-installed", "serve" }, autostart = false }))
  T.eq(nil, require("rx_bridge").start())
  T.eq(nil, require("rx_bridge").start())
  T.eq(1, #T.notes, "notified once")
  T.contains(T.notes[1].msg, 'cannot start "rx-bridge-not-installed": it is not an executable on $PATH')
  T.eq(vim.log.levels.ERROR, T.notes[1].level)
  vim.cmd("Rx actions")
  T.wait(function() return #T.notes >= 2 end, "the command's error")
  local h = health_text()
  T.contains(h, 'ERROR cannot start "rx-bridge-not-installed"')
  T.contains(h, "last startup error")
end)

T.test(":Rx before rx-bridge is installed says so once", function()
  T.notes = {}
  T.eq(true, require("rx_bridge").setup({ cmd = { "rx-bridge-never-installed", "serve" }, autostart = false }))
  vim.cmd("Rx")
  T.eq(1, #T.notes, "one message: " .. vim.inspect(T.notes))
  T.contains(T.notes[1].msg, 'cannot start "rx-bridge-never-installed"')
  -- The next command says it again, once.
  vim.cmd("Rx plugins")
  T.eq(2, #T.notes, "one more message: " .. vim.inspect(T.notes))
end)

T.test(":checkhealth rx_bridge reports binary, version, protocol, home and plugins", function()
  T.setup()
  local client = T.start()
  local h = health_text()
  T.contains(h, "OK found " .. T.fake_bin)
  T.contains(h, "OK rx-bridge 0.0.0-fake (protocol reasonix.extension.v1)")
  T.contains(h, "OK protocol major 1 (supported)")
  T.contains(h, "home: /tmp/fake-home")
  T.contains(h, "hello 0.1.0: enabled, FULL TRUST runtime (copy), running; command /tmp/fake-home/plugins/hello/bin/hello")
  T.contains(h, "generation 1, 2 actions")
  T.contains(h, "WARNING last startup error")
  T.contains(h, "before a bridge started fine")
  T.ok(client, "client")
end)

T.test(":Rx plugins shows each plugin with its FULL TRUST block", function()
  vim.cmd("Rx plugins")
  T.wait(function() return vim.api.nvim_buf_get_name(0) == "rx-bridge://plugins" end, "the plugins view")
  local text = T.buf_text(0)
  T.contains(text, "hello 0.1.0\n  Greets you\n  enabled: yes   running: yes   generation: 1")
  T.contains(text, "  runtime: /tmp/fake-home/plugins/hello/bin/hello")
  T.contains(text, "  | runtime: FULL TRUST\n  |   command: /tmp/fake-home/plugins/hello/bin/hello")
  T.eq(false, vim.bo.modifiable)
  vim.cmd("close")
end)

T.test(":Rx models lists models; <CR> opens a chat with one", function()
  vim.cmd("Rx models")
  T.wait(function() return vim.api.nvim_buf_get_name(0) == "rx-bridge://models" end, "the models view")
  T.contains(T.buf_text(0), "* plugin/echo-provider/echo/small  (Echo (small); plugin echo-provider; context 8192; tools)")
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)
  T.wait(function() return next(require("rx_bridge.chat").chats) ~= nil end, "the chat")
  vim.cmd("stopinsert")
end)

T.test("a server speaking another editor protocol version is stopped with a message", function()
  for _, c in ipairs(vim.lsp.get_clients({ name = "rx_bridge" })) do
    require("rx_bridge.compat").stop(c)
  end
  T.wait(function() return #require("rx_bridge.client").all() == 0 end, "the old client to stop")
  T.setup({ cmd_env = { FAKE_PROTOCOL_VERSION = "2" } })
  require("rx_bridge").start()
  T.wait(function() return T.find_note("editor protocol version 2") ~= nil end, "the message")
  T.wait(function() return #require("rx_bridge.client").all() == 0 end, "the client to stop")
end)

T.test("the help file has tags for the commands and the API", function()
  local dir = os.getenv("RX_TEST_TMP") .. "/doc"
  vim.fn.mkdir(dir, "p")
  vim.fn.writefile(vim.fn.readfile(T.nvim_dir .. "/doc/rx_bridge.txt"), dir .. "/rx_bridge.txt")
  vim.cmd("helptags " .. vim.fn.fnameescape(dir))
  local tags = {}
  for _, l in ipairs(vim.fn.readfile(dir .. "/tags")) do
    tags[l:match("^[^\t]+")] = true
  end
  for _, t in ipairs({ "rx_bridge", ":Rx", ":RxChat", ":Rx-plugins", "rx_bridge.setup()", "rx_bridge.status()",
    "RxBridgeStatus", "rx_bridge-health", "rx_bridge-chat" }) do
    T.ok(tags[t], "tag " .. t)
  end
  vim.opt.rtp:prepend(vim.fn.fnamemodify(dir, ":h"))
  -- Without the vimdoc parser (Debian ships parsers apart) a help buffer's
  -- ftplugin fails; the tag lookup is what is tested here.
  local ok = pcall(vim.cmd, "help :RxChat")
  T.eq("rx_bridge.txt", vim.fn.expand("%:t"))
  if ok then
    T.contains(vim.api.nvim_get_current_line(), "*:RxChat*")
  end
  vim.cmd("helpclose")
end)

T.run()

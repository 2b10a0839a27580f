-- A plugin's sidecar crashes while a chat is open, against the real
-- `rx-bridge serve`: hello's process is killed. One message names
-- :Rx reload (not one per later turn or action), hello's status item, :Rx
-- plugins and :checkhealth say crashed, and chat turns on echo-provider's
-- model go on; :Rx reload brings hello back.
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local SMALL = "plugin/echo-provider/echo/small"
local tmp = assert(os.getenv("RX_TEST_TMP"))

local home = tmp .. "/home"
T.e2e_home(home, { "echo-provider", "hello" }, ('model = "%s"\n'):format(SMALL))

T.capture_notify()
T.stub_ui()
T.setup({ cmd = { bin, "serve", "--home", home } })
local client, st = T.start()
local chat

--- The pid of the process whose command line contains sub, under this Neovim.
local function find_process(sub)
  for _, pid in ipairs(T.descendants(vim.fn.getpid())) do
    local f = io.open("/proc/" .. pid .. "/cmdline", "r")
    if f then
      local cmd = (f:read("*a") or ""):gsub("%z", " ")
      f:close()
      if cmd:find(sub, 1, true) and T.alive(pid) then
        return pid
      end
    end
  end
  return nil
end

local function crash_notes()
  local n = 0
  for _, note in ipairs(T.notes) do
    if type(note.msg) == "string" and note.msg:find("hello", 1, true) and note.level >= vim.log.levels.WARN then
      n = n + 1
    end
  end
  return n
end

T.test("a chat runs; hello's status item says it is ready", function()
  chat = T.open_chat()
  T.type_prompt(chat, "before the crash")
  T.wait_answer(chat, "\nbefore the crash\n")
  T.wait(function() return require("rx_bridge").status({ raw = true }):find("hello: ready", 1, true) ~= nil end,
    "hello's status item", 15000)
end)

T.test("hello's sidecar is killed: one message naming :Rx reload; its status says crashed", function()
  local pid = find_process(home .. "/plugins/hello/")
  T.ok(pid, "hello's process")
  T.notes = {}
  vim.uv.kill(pid, "sigkill")
  T.wait(function() return crash_notes() > 0 end, "the crash message", 15000)
  local note = T.notes[#T.notes]
  T.contains(note.msg, "hello crashed")
  T.contains(note.msg, ":Rx reload")
  T.eq(vim.log.levels.ERROR, note.level)
  T.eq("hello: ready (crashed)", require("rx_bridge").status({ raw = true }))
end)

T.test("later turns on echo-provider's model go on; no further crash message", function()
  T.type_prompt(chat, "after the crash")
  T.wait_answer(chat, "\nafter the crash\n")
  T.type_prompt(chat, "and again")
  T.wait_answer(chat, "\nand again\n")
  -- An action of the crashed plugin says so in one short line, not the
  -- crash again.
  local before = #T.notes
  vim.cmd("Rx /hello:greet")
  T.wait(function() return #T.notes > before end, "the action's failure", 15000)
  T.eq("rx-bridge: /hello:greet: hello crashed; :Rx reload starts it again", T.notes[#T.notes].msg)
  T.eq(1, crash_notes() - 1, "messages about hello: " .. vim.inspect(T.notes))
  T.shot("turns-after-crash")
  local text = T.buf_text(chat.buf)
  T.eq(nil, text:find("error:", 1, true), "no turn failed:\n" .. text)
  -- The crash was told once (the message above); the chat does not repeat
  -- it in the next turn's notices. They are in :Rx log.
  T.eq(nil, text:find("crashed", 1, true), "the crash again in the chat:\n" .. text)
  T.contains(table.concat(require("rx_bridge.log").lines(), "\n"), "sidecar hello")
end)

T.test(":Rx plugins and :checkhealth say hello crashed", function()
  vim.cmd("Rx plugins")
  T.wait(function() return T.buf_text(0):find("state: crashed", 1, true) ~= nil end, ":Rx plugins", 15000)
  T.shot("rx-plugins")
  vim.cmd("close")
  vim.cmd("checkhealth rx_bridge")
  local health = T.buf_text(0)
  T.match("hello [^\n]*, crashed[^\n]*", health, ":checkhealth")
  T.contains(health, ":Rx reload starts it again")
  T.shot("checkhealth")
  vim.cmd("bwipeout")
end)

T.test(":Rx reload brings hello back: its status is ready again", function()
  local g = st.generation
  vim.cmd("Rx reload")
  T.wait(function() return st.generation > g end, "the new generation", 20000)
  T.ok(find_process(home .. "/plugins/hello/"), "a new hello process")
  T.eq(nil, require("rx_bridge").status({ raw = true }):find("crashed", 1, true), "the crashed mark is gone")
  T.eq({}, st.plugin_states)
end)

T.run()

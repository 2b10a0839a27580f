-- A home of its own (the `home` option) with a plugin whose runtime cannot
-- start: the warning, :Rx plugins and :checkhealth say so.
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local shared_home = assert(os.getenv("RX_BRIDGE_HOME"), "RX_BRIDGE_HOME is not set")
local tmp = os.getenv("RX_TEST_TMP")
local home = tmp .. "/home"
local src = tmp .. "/broken"

vim.fn.mkdir(src, "p")
vim.fn.writefile({ vim.json.encode({
  apiVersion = "reasonix.io/plugin/v1", name = "broken", version = "0.0.1", description = "cannot start",
  runtime = { command = "/bin/false", capabilities = { "ui" } },
}) }, src .. "/reasonix-plugin.json")
for _, dir in ipairs({ shared_home .. "/plugins/hello", src }) do
  local res = vim.system({ bin, "plugin", "install", dir, "--yes" }, { env = { RX_BRIDGE_HOME = home }, text = true }):wait()
  assert(res.code == 0, res.stderr)
end

T.capture_notify()
T.stub_ui()
T.setup({ cmd = { bin, "serve" }, home = home })

T.test("an optional plugin that cannot start is a warning; the others run", function()
  local _, st = T.start()
  T.eq(home, st.info.home)
  T.eq({ "/hello:greet" }, vim.tbl_map(function(a) return a.name end, st.actions))
  local w = T.find_note("broken: optional extension runtime failed to start")
  T.ok(w, "the warning is shown: " .. vim.inspect(T.notes))
  T.eq(vim.log.levels.WARN, w.level)
end)

T.test(":Rx plugins and :checkhealth name the start failure", function()
  vim.cmd("Rx plugins")
  T.wait(function() return vim.api.nvim_buf_get_name(0) == "rx-bridge://plugins" end, "the view")
  T.match("broken 0%.0%.1\n.-running: no.-\n  error: broken: optional extension runtime failed to start", T.buf_text(0))
  vim.cmd("close")
  vim.cmd("checkhealth rx_bridge")
  local h = T.buf_text(0)
  vim.cmd("bwipeout!")
  T.contains(h, "home: " .. home)
  T.contains(h, "WARNING broken 0.0.1: enabled, FULL TRUST runtime (copy), failed to start")
  T.contains(h, "start failed: broken: optional extension runtime failed to start")
  T.contains(h, "OK hello 0.1.0: enabled, FULL TRUST runtime (copy), running")
end)

T.run()

-- With autostart, against the real `rx-bridge serve`: on Neovim 0.11+ the
-- plugin registers rx_bridge with vim.lsp.config/vim.lsp.enable, and
-- opening a file starts the bridge of its root and attaches the buffer;
-- on 0.10 its own autocommands do it with vim.lsp.start.
local T = require("tests.helpers")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
local tmp = assert(os.getenv("RX_TEST_TMP"))

T.capture_notify()
T.stub_ui()
T.setup({ cmd = { bin, "serve" }, autostart = true })

T.test("opening a file starts its root's bridge and attaches the buffer", function()
  vim.fn.mkdir(tmp .. "/proj/.git", "p")
  vim.fn.writefile({ "hello" }, tmp .. "/proj/a.txt")
  if vim.fn.has("nvim-0.11") == 1 then
    T.eq("function", type(vim.lsp.config.rx_bridge.root_dir), "the vim.lsp.config entry")
  end
  vim.cmd("edit " .. vim.fn.fnameescape(tmp .. "/proj/a.txt"))
  local buf = vim.api.nvim_get_current_buf()
  local root = vim.uv.fs_realpath(tmp .. "/proj")
  T.wait(function()
    local cs = vim.lsp.get_clients({ bufnr = buf, name = "rx_bridge" })
    local st = cs[1] and require("rx_bridge.state").get(cs[1].id)
    return #cs == 1 and cs[1].root_dir == root and st and st.generation > 0
  end, "the bridge of the file's root", 20000)
  local c = vim.lsp.get_clients({ bufnr = buf, name = "rx_bridge" })[1]
  T.eq(c.id, require("rx_bridge").start().id, "commands in the buffer use that bridge")
  T.eq({ c }, vim.tbl_filter(function(x) return x.root_dir == root end, require("rx_bridge.client").all()))
  T.answers.select = { false }
  vim.cmd("Rx actions")
  T.wait(function() return #T.ui.select == 1 end, "the picker")
  T.eq({ "/hello:greet — Greet me" }, T.ui.select[1].shown)
end)

T.run()

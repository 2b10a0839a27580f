local T = require("tests.helpers")

T.test("the bridge process is gone when :qa returns", function()
  local out = os.getenv("RX_TEST_TMP") .. "/pids.json"
  local res, ms = T.child_nvim(([[
    local T = require("tests.helpers")
    T.setup()
    T.start()
    local pids = T.descendants(vim.fn.getpid())
    local f = io.open(%q, "w")
    f:write(vim.json.encode(pids))
    f:close()
    vim.cmd("qa")
  ]]):format(out))
  T.eq(0, res.code, "exit code; stderr: " .. tostring(res.stderr))
  local f = assert(io.open(out, "r"), "the child wrote no pids: " .. tostring(res.stderr))
  local pids = vim.json.decode(f:read("*a"))
  f:close()
  T.ok(#pids >= 1, "the bridge ran as a child")
  for _, pid in ipairs(pids) do
    T.eq(false, T.alive(pid), "process " .. pid .. " is gone")
  end
  T.ok(ms < 10000, "quitting took " .. ms .. " ms")
end)

T.run()

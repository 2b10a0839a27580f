local T = require("tests.helpers")

T.capture_notify()
T.setup({ trace = "verbose" })

T.test("trace = verbose sends $/setTrace; $/logTrace lands in :Rx log", function()
  local client = T.start()
  T.eq({ { value = "verbose" } }, vim.tbl_map(function(m) return m.params end, T.received(client, "$/setTrace")))
  T.fake_notify(client, "$/logTrace", { message = "hello -> extension/ui/action id=3", verbose = '{"actionId":"greet"}' })
  T.wait(function()
    return table.concat(require("rx_bridge.log").lines(), "\n"):find('trace bridge: hello -> extension/ui/action id=3\n    {"actionId":"greet"}', 1, true) ~= nil
  end, "the trace in the log")
end)

T.run()

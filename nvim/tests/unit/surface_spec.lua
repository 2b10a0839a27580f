local T = require("tests.helpers")

T.capture_notify()
T.stub_ui()
T.setup()

local client, st = T.start()

local function surface(kind, payload, extra)
  local p = { plugin = "hello", surfaceId = "s-" .. kind, sessionId = "", generation = st.generation, kind = kind, payload = payload }
  for k, v in pairs(extra or {}) do
    p[k] = v
  end
  T.fake_notify(client, "rx/ui/surface", p)
end

T.test("notifications go to vim.notify with their severity", function()
  surface("notification", { title = "Saved", body = "3 files" })
  surface("notification", { title = "Careful", severity = "warn" })
  surface("notification", { title = "Broken", body = "it failed", severity = "error" })
  T.wait(function() return T.find_note("Broken") ~= nil end, "the notifications")
  T.eq("hello: Saved\n3 files", T.find_note("Saved").msg)
  T.eq(vim.log.levels.INFO, T.find_note("Saved").level)
  T.eq(vim.log.levels.WARN, T.find_note("Careful").level)
  T.eq(vim.log.levels.ERROR, T.find_note("Broken").level)
  T.eq("rx-bridge: hello", T.find_note("Broken").opts.title)
end)

T.test("status items feed status() and fire User RxBridgeStatus", function()
  -- The fake publishes hello-status right after its first generation.
  T.wait(function() return require("rx_bridge").status() ~= "" end, "the first status")
  T.eq("hello ready", require("rx_bridge").status())
  local events = {}
  vim.api.nvim_create_autocmd("User", { pattern = "RxBridgeStatus", callback = function(ev) events[#events + 1] = ev.data end })
  surface("status", { label = "indexing", detail = "12 files", progress = 0.5 }, { surfaceId = "idx" })
  T.wait(function() return #events == 1 end, "the autocmd")
  T.eq("indexing", events[1].label)
  T.eq("idx", events[1].surface_id)
  T.eq("hello ready | indexing 50%%", require("rx_bridge").status())
  T.eq("hello ready | indexing 50%", require("rx_bridge").status({ raw = true }))
  T.eq("hello ready: 1 greeting | indexing: 12 files 50%%", require("rx_bridge").status({ detail = true }))
  -- Re-publishing updates in place.
  surface("status", { label = "indexed", severity = "warn" }, { surfaceId = "idx" })
  T.wait(function() return #events == 2 end, "the second autocmd")
  T.eq("hello ready | indexed", require("rx_bridge").status())
  local items = require("rx_bridge").status_items()
  T.eq(2, #items)
  T.eq("warn", items[2].severity)
end)

T.test("status text cannot become a statusline expression", function()
  vim.g.rx_pwned = nil
  surface("status", { label = "%{execute('let g:rx_pwned = 1')}%!x" }, { surfaceId = "zz" })
  T.wait(function() return require("rx_bridge").status():find("execute", 1, true) ~= nil end, "the status")
  vim.o.statusline = "%!v:lua.require'rx_bridge'.status()"
  vim.o.laststatus = 2
  vim.cmd("redrawstatus!")
  local rendered = vim.api.nvim_eval_statusline(require("rx_bridge").status(), {}).str
  T.contains(rendered, "%{execute('let g:rx_pwned = 1')}%!x")
  T.eq(nil, vim.g.rx_pwned)
  vim.o.statusline = ""
end)

T.test("surfaces of an older generation are dropped; a new generation forgets old ones", function()
  local before = #T.notes
  surface("notification", { title = "Stale" }, { generation = st.generation - 1 })
  T.fake_notify(client, "fake/bump")
  T.wait(function() return st.generation == 2 end, "generation 2")
  T.eq(nil, T.find_note("Stale"))
  T.eq(before, #T.notes)
  T.eq("", require("rx_bridge").status(), "status items of generation 1 are gone")
  T.contains(table.concat(require("rx_bridge.log").lines(), "\n"), "dropped a notification surface of old generation 0")
end)

T.test("a card is announced, not opened; :Rx cards opens it read-only in a float; its action runs /<plugin>:<actionId>", function()
  local win = vim.api.nvim_get_current_win()
  vim.cmd("Rx /hello:card")
  local card = require("rx_bridge.card")
  T.wait(function() return next(card.cards) ~= nil end, "the card")
  T.eq(win, vim.api.nvim_get_current_win(), "no window taken")
  T.eq(nil, next(card.open_cards))
  T.contains(T.find_note("A card").msg, ":Rx cards")
  T.answers.select = { 1 }
  vim.cmd("Rx cards")
  T.wait(function() return next(card.open_cards) ~= nil end, "the card window")
  local _, c = next(card.open_cards)
  T.eq(c.win, vim.api.nvim_get_current_win())
  T.ok(vim.api.nvim_win_get_config(c.win).relative ~= "", "a floating window")
  T.eq("markdown", vim.bo[c.buf].filetype)
  T.eq(false, vim.bo[c.buf].modifiable)
  T.eq(false, vim.bo[c.buf].modeline)
  local text = T.buf_text(c.buf)
  T.contains(text, "# A card")
  T.contains(text, "Some **markdown**")
  T.contains(text, "- **k**: v")
  T.contains(text, "[1] Greet again")
  -- The modeline in the plugin's markdown is not applied.
  T.eq("markdown", vim.bo[c.buf].filetype)
  local n = #T.received(client, "workspace/executeCommand")
  T.answers.select = { false }
  vim.api.nvim_feedkeys("1", "x", false)
  T.wait(function() return #T.received(client, "workspace/executeCommand") == n + 1 end, "the card action")
  local runs = T.received(client, "workspace/executeCommand")
  T.eq({ command = "rx.runAction", arguments = { "/hello:greet" } }, runs[#runs].params)
  -- Re-publishing updates the same window.
  surface("card", { title = "Updated", text = "plain\27]52;c;evil\7 text" }, { surfaceId = "c-1" })
  T.wait(function() return T.buf_text(c.buf):find("Updated", 1, true) ~= nil end, "the update")
  T.ok(vim.api.nvim_win_is_valid(c.win), "same window")
  T.contains(T.buf_text(c.buf), "plain]52;c;evil text")
  vim.api.nvim_set_current_win(c.win)
  vim.api.nvim_feedkeys("q", "x", false)
  T.eq(false, vim.api.nvim_win_is_valid(c.win))
end)

T.test("a form surface is asked and submitted with rx/ui/submit", function()
  T.answers.input = { "Ada" }
  T.answers.select = { "Yes" }
  surface("form", { title = "Sign up", fields = {
    { key = "name", label = "Name", kind = "input", required = true },
    { key = "news", label = "Newsletter?", kind = "confirm" },
  } }, { surfaceId = "f-1" })
  T.wait(function() return #T.received(client, "rx/ui/submit") == 1 end, "the submission")
  T.eq({ plugin = "hello", surfaceId = "f-1", generation = st.generation, values = { name = "Ada", news = true } },
    T.received(client, "rx/ui/submit")[1].params)
end)

T.test("bridge log messages land in :Rx log without control characters", function()
  vim.cmd("Rx log")
  local buf = vim.api.nvim_get_current_buf()
  T.eq("rx-bridge://log", vim.api.nvim_buf_get_name(buf))
  T.contains(T.buf_text(buf), "fake bridge up[31m")
  T.ok(not T.buf_text(buf):find("\27", 1, true), "no escape character")
  T.fake_notify(client, "window/logMessage", { type = 2, message = "late warning" })
  T.wait(function() return T.buf_text(buf):find("late warning", 1, true) ~= nil end, "the log to follow")
end)

T.run()

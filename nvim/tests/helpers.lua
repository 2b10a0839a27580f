-- A small test harness for headless Neovim. A spec file registers tests
-- with T.test and ends with T.run(); tests/run.lua runs each spec in its own
-- Neovim and collects the results it writes to $RX_TEST_RESULTS.
local T = {}

T.nvim_dir = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
T.fake_bin = T.nvim_dir .. "/tests/fake/rx-bridge"

local tests = {}

function T.test(name, fn)
  tests[#tests + 1] = { name = name, fn = fn }
end

local function fmt(v)
  return vim.inspect(v, { newline = " ", indent = "" })
end

function T.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(("%sexpected %s, got %s"):format(what and (what .. ": ") or "", fmt(expected), fmt(actual)), 2)
  end
end

function T.ok(cond, what)
  if not cond then
    error(what or "assertion failed", 2)
  end
  return cond
end

function T.match(pattern, s, what)
  if type(s) ~= "string" or not s:find(pattern) then
    error(("%s%s does not match %q"):format(what and (what .. ": ") or "", fmt(s), pattern), 2)
  end
end

--- Text contains plain substring.
function T.contains(s, sub, what)
  if type(s) ~= "string" or not s:find(sub, 1, true) then
    error(("%s%s does not contain %q"):format(what and (what .. ": ") or "", fmt(s), sub), 2)
  end
end

function T.wait(cond, what, timeout)
  local ok = vim.wait(timeout or 5000, cond, 10)
  if not ok then
    error("timed out waiting for " .. (what or "a condition"), 2)
  end
end

--- Records vim.notify calls in T.notes ({msg, level, opts}).
T.notes = {}
function T.capture_notify()
  T.notes = {}
  vim.notify = function(msg, level, opts)
    T.notes[#T.notes + 1] = { msg = msg, level = level or vim.log.levels.INFO, opts = opts }
  end
end

function T.find_note(sub)
  for _, n in ipairs(T.notes) do
    if type(n.msg) == "string" and n.msg:find(sub, 1, true) then
      return n
    end
  end
  return nil
end

--- Stubs vim.ui.select / vim.ui.input. Every call is recorded in
--- T.ui.select / T.ui.input with what it showed; answers come from the
--- queues T.answers.select / T.answers.input, in order:
---   select: an index, a shown string, false (dismiss)
---   input: a string, false (dismiss)
--- A call without a queued answer stays pending: answer it later with
--- entry.answer(x). Answers are delivered on the next loop tick, as real
--- UIs do.
function T.stub_ui()
  T.ui = { select = {}, input = {} }
  T.answers = { select = {}, input = {} }
  vim.ui.select = function(items, opts, on_choice)
    opts = opts or {}
    local shown = {}
    for i, it in ipairs(items) do
      shown[i] = opts.format_item and opts.format_item(it) or tostring(it)
    end
    local entry = { items = items, shown = shown, prompt = opts.prompt, kind = opts.kind }
    entry.answer = function(a)
      vim.schedule(function()
        if a == false or a == nil then
          return on_choice(nil, nil)
        end
        local idx = a
        if type(a) == "string" then
          idx = nil
          for i, s in ipairs(shown) do
            if s == a then
              idx = i
            end
          end
          assert(idx, ("no item shown as %q in %s"):format(a, vim.inspect(shown)))
        end
        on_choice(items[idx], idx)
      end)
    end
    T.ui.select[#T.ui.select + 1] = entry
    if #T.answers.select > 0 then
      entry.answer(table.remove(T.answers.select, 1))
    end
  end
  vim.ui.input = function(opts, on_confirm)
    opts = opts or {}
    local entry = { prompt = opts.prompt, default = opts.default, kind = opts.kind }
    entry.answer = function(a)
      vim.schedule(function()
        on_confirm(a ~= false and a or nil)
      end)
    end
    T.ui.input[#T.ui.input + 1] = entry
    if #T.answers.input > 0 then
      entry.answer(table.remove(T.answers.input, 1))
    end
  end
end

--- Writes body to path, making its folder.
function T.write(path, body)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local f = assert(io.open(path, "w"))
  f:write(body)
  f:close()
end

--- e2e: a bridge home in dir with these plugins installed (by the real
--- $RX_E2E_BIN, from the shared $RX_BRIDGE_HOME test.sh made) and config
--- as its config.toml.
function T.e2e_home(dir, plugins, config)
  local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run nvim/scripts/test.sh e2e)")
  local shared = assert(os.getenv("RX_BRIDGE_HOME"), "RX_BRIDGE_HOME is not set")
  for _, p in ipairs(plugins) do
    local r = vim.system({ bin, "plugin", "install", shared .. "/plugins/" .. p, "--yes" },
      { env = { RX_BRIDGE_HOME = dir }, text = true }):wait()
    assert(r.code == 0, "install " .. p .. ": " .. r.stdout .. r.stderr)
  end
  T.write(dir .. "/config.toml", config)
end

--- e2e: opens a chat with :RxChat and returns it, out of insert mode.
function T.open_chat()
  local chats = require("rx_bridge.chat").chats
  vim.cmd("RxChat")
  T.wait(function() return next(chats) ~= nil end, "the chat", 15000)
  vim.cmd("stopinsert")
  return select(2, next(chats))
end

--- e2e: types s into chat's prompt and sends it.
function T.type_prompt(chat, s)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.buf))
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A" .. s .. "<CR>", true, false, true), "xt", false)
end

--- e2e: waits until chat is idle with sub in its buffer.
function T.wait_answer(chat, sub, what)
  T.wait(function() return not chat.busy and T.buf_text(chat.buf):find(sub, 1, true) ~= nil end,
    what or ("the answer " .. sub), 30000)
end

--- setup() against the fake bridge (or opts.cmd), without autostart.
function T.setup(opts)
  opts = vim.tbl_deep_extend("force", { cmd = { T.fake_bin, "serve" }, autostart = false }, opts or {})
  assert(require("rx_bridge").setup(opts), "setup failed")
end

--- Starts the bridge of the current root; waits for the first generation.
function T.start(root)
  local client = assert(require("rx_bridge").start(root), "no client started")
  local state = require("rx_bridge.state")
  T.wait(function()
    local st = state.get(client.id)
    return st and st.initialized and st.generation > 0
  end, "the bridge's first generation", 20000)
  return client, state.get(client.id)
end

function T.request(client, method, params, timeout)
  local res, err = require("rx_bridge.compat").request_sync(client, method, params or vim.empty_dict(), timeout or 10000)
  assert(res, "request " .. method .. " failed: " .. tostring(err))
  assert(res.err == nil, "request " .. method .. " failed: " .. vim.inspect(res.err))
  return res.result
end

--- Messages the fake server received, optionally only those of a method.
function T.received(client, method)
  local all = T.request(client, "fake/received")
  local out = {}
  for _, m in ipairs(all) do
    if method == nil or m.method == method then
      out[#out + 1] = m
    end
  end
  return out
end

--- Makes the fake send a S->C request without blocking the test: the
--- answer lands in the returned table's `response` field.
function T.fake_call(client, method, params)
  local box = {}
  require("rx_bridge.compat").request(client, "fake/call", { method = method, params = params }, function(err, res)
    box.err = err
    box.response = res
    box.done = true
  end)
  return box
end

function T.fake_notify(client, method, params)
  return T.request(client, "fake/notify", { method = method, params = params })
end

function T.buf_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false), "\n")
end

--- Runs `body` (Lua source) in a child headless Neovim with this plugin,
--- the way tests/run.lua runs specs; returns the vim.system result and the
--- elapsed ms. The child can write to $RX_CHILD_OUT.
function T.child_nvim(body, env)
  local dir = os.getenv("RX_TEST_TMP") or vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local script = dir .. "/child-" .. vim.uv.hrtime() .. ".lua"
  local f = assert(io.open(script, "w"))
  f:write(body)
  f:close()
  local start = vim.uv.hrtime()
  local res = vim.system({
    os.getenv("RX_TEST_NVIM"), "--headless", "--clean", "-i", "NONE", "-n",
    "--cmd", "set rtp^=" .. vim.fn.fnameescape(T.nvim_dir),
    "--cmd", "lua package.path = " .. vim.inspect(T.nvim_dir .. "/?.lua;") .. " .. package.path",
    "-c", "luafile " .. vim.fn.fnameescape(script),
  }, { env = env, text = true, timeout = 30000, stdin = false }):wait()
  return res, math.floor((vim.uv.hrtime() - start) / 1e6)
end

--- Whether a process is alive (a zombie counts as gone).
function T.alive(pid)
  local f = io.open("/proc/" .. pid .. "/stat", "r")
  if not f then
    return false
  end
  local stat = f:read("*a")
  f:close()
  local st = stat:match("^%d+ %b() (%a)")
  return st ~= nil and st ~= "Z" and st ~= "X"
end

--- Every descendant pid of pid, from the ppid fields in /proc (the
--- per-thread children files miss processes a Go program starts from
--- another thread).
function T.descendants(pid)
  local children = {}
  for name in vim.fs.dir("/proc") do
    local p = tonumber(name)
    if p then
      local f = io.open("/proc/" .. name .. "/stat", "r")
      if f then
        local stat = f:read("*a") or ""
        f:close()
        local ppid = tonumber(stat:match("^%d+ %b() %a (%d+)"))
        if ppid then
          children[ppid] = children[ppid] or {}
          table.insert(children[ppid], p)
        end
      end
    end
  end
  local out = {}
  local function walk(p)
    for _, c in ipairs(children[p] or {}) do
      out[#out + 1] = c
      walk(c)
    end
  end
  walk(pid)
  return out
end

--- Saves a text screenshot of the screen grid (what a UI would show:
--- windows, status lines, virtual lines, floats, the message line) as
--- $RX_TEST_SHOTS/<nn>-<name>.txt, numbered in the order taken. Headless
--- Neovim keeps the grid without a UI; screenstring() reads it.
local shots = 0
function T.shot(name)
  local dir = os.getenv("RX_TEST_SHOTS")
  if not dir then
    return
  end
  vim.fn.mkdir(dir, "p")
  vim.cmd("redraw!")
  local rows = {}
  for r = 1, vim.o.lines do
    local cells = {}
    for c = 1, vim.o.columns do
      cells[#cells + 1] = vim.fn.screenstring(r, c)
    end
    rows[#rows + 1] = (table.concat(cells):gsub("%s+$", ""))
  end
  shots = shots + 1
  local slug = name:gsub("[^%w_.-]+", "-"):sub(1, 60):gsub("^-+", ""):gsub("-+$", "")
  local file = ("%s/%02d-%s.txt"):format(dir, shots, slug)
  local f = assert(io.open(file, "w"))
  f:write(table.concat(rows, "\n"), "\n")
  f:close()
end

local function write_result(r)
  local path = os.getenv("RX_TEST_RESULTS")
  local line = vim.json.encode(r)
  if path then
    local f = assert(io.open(path, "a"))
    f:write(line, "\n")
    f:close()
  else
    io.stdout:write(line, "\n")
  end
end

--- Runs the registered tests in order, then quits Neovim.
function T.run()
  local failed = 0
  for _, t in ipairs(tests) do
    local start = vim.uv.hrtime()
    local ok, err = xpcall(t.fn, debug.traceback)
    local ms = math.floor((vim.uv.hrtime() - start) / 1e6)
    -- The screen as the test left it (e2e specs keep them).
    pcall(T.shot, (ok and "" or "FAILED-") .. t.name)
    if not ok then
      failed = failed + 1
    end
    write_result({ name = t.name, ok = ok, err = not ok and tostring(err) or nil, ms = ms })
  end
  if os.getenv("RX_TEST_KEEP") then
    return
  end
  vim.cmd(failed == 0 and "qa!" or "cquit! 1")
end

return T

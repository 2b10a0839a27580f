-- Coroutine helpers. Server requests run in a coroutine in vim.lsp, so a
-- handler can wait for a callback-style UI (vim.ui.select, a picker) and
-- then return its answer as the response.
local M = {}

local function pack(...)
  return { n = select("#", ...), ... }
end

local function resume(co, ...)
  local ok, err = coroutine.resume(co, ...)
  if not ok then
    local msg = debug.traceback(co, tostring(err))
    require("rx_bridge.log").add("error", "rx_bridge", msg)
    vim.notify("rx-bridge: " .. tostring(err), vim.log.levels.ERROR)
  end
end

--- Runs fn in a new coroutine (errors are logged and notified).
function M.run(fn, ...)
  local co = coroutine.create(fn)
  resume(co, ...)
end

--- Waits, inside a coroutine, until `start` calls the callback it is given;
--- returns what the callback was called with. A callback called before
--- `start` returns is fine; a second call is ignored.
function M.await(start)
  local co = coroutine.running()
  assert(co, "rx_bridge.async.await called outside a coroutine")
  local done, waiting, result = false, false, nil
  start(function(...)
    if done then
      return
    end
    done = true
    result = pack(...)
    if waiting then
      -- Resume from the main loop, never inside a picker's own call stack.
      vim.schedule(function()
        resume(co)
      end)
    end
  end)
  if not done then
    waiting = true
    coroutine.yield()
  end
  return unpack(result, 1, result.n)
end

--- Sleeps inside a coroutine.
function M.sleep(ms)
  M.await(function(cb)
    vim.defer_fn(cb, ms)
  end)
end

--- A request to the bridge that returns (err, result) in a coroutine.
function M.request(client, method, params)
  local compat = require("rx_bridge.compat")
  return M.await(function(cb)
    local ok = compat.request(client, method, params, function(err, result)
      cb(err, result)
    end)
    if not ok then
      cb({ code = -32603, message = "rx-bridge is not running" }, nil)
    end
  end)
end

-- One prompt at a time: plugins may ask concurrently, the user answers in turn.
local busy = false
local waiters = {}

--- Runs fn (in the current coroutine) once no other exclusive fn runs.
function M.exclusive(fn, ...)
  if busy then
    waiters[#waiters + 1] = coroutine.running()
    coroutine.yield() -- resumed with `busy` handed over
  else
    busy = true
  end
  local res = pack(pcall(fn, ...))
  local nxt = table.remove(waiters, 1)
  if nxt then
    vim.schedule(function()
      resume(nxt)
    end)
  else
    busy = false
  end
  if not res[1] then
    error(res[2], 0)
  end
  return unpack(res, 2, res.n)
end

return M

-- What the plugin knows per bridge client: the initialize result, the
-- newest generation, the action list, status items and open cards. Also the
-- last startup error for :checkhealth.
local M = {}

---@class rx_bridge.ClientState
---@field client_id integer
---@field root string
---@field info table experimental.rxBridge of the initialize result
---@field generation integer newest generation told (initialize, rx/actions, rx/actionsChanged)
---@field actions table[]
---@field hook_points string[]
---@field warnings string[]
---@field models table[]|nil cached rx/models result
---@field initialized boolean
---@field waiters function[] called on every generation change
---@field plugin_states table<string, table> rx/pluginStateChanged per plugin ({state, reason, since, generation}), this generation

---@type table<integer, rx_bridge.ClientState>
M.clients = {}

--- {message, time, root, at} of the last failure to start a bridge, or nil.
M.last_error = nil
--- os.time() of the last bridge that initialized.
M.last_start = nil

function M.new(client_id, root)
  local st = {
    client_id = client_id,
    root = root,
    info = {},
    generation = 0,
    actions = {},
    hook_points = {},
    warnings = {},
    models = nil,
    initialized = false,
    waiters = {},
    plugin_states = {},
  }
  M.clients[client_id] = st
  return st
end

function M.get(client_id)
  return M.clients[client_id]
end

function M.remove(client_id)
  local st = M.clients[client_id]
  M.clients[client_id] = nil
  if st then
    for _, w in ipairs(st.waiters) do
      w()
    end
    st.waiters = {}
  end
end

function M.set_error(msg, root)
  M.last_error = { message = msg, time = os.date("%Y-%m-%d %H:%M:%S"), root = root, at = os.time() }
  require("rx_bridge.log").add("error", "startup", msg)
end

--- A request or surface of `generation` is stale when an newer one is known.
function M.is_stale(st, generation)
  return type(generation) == "number" and generation < st.generation
end

--- Records a generation that the bridge told; returns true if it is new.
function M.bump(st, generation)
  if type(generation) ~= "number" or generation <= st.generation then
    return false
  end
  st.generation = generation
  local waiters = st.waiters
  st.waiters = {}
  for _, w in ipairs(waiters) do
    w()
  end
  return true
end

--- Waits (in a coroutine) until the first generation is up, at most
--- timeout ms. Returns true if it is.
function M.wait_generation(st, timeout)
  if st.generation > 0 then
    return true
  end
  require("rx_bridge.async").await(function(cb)
    st.waiters[#st.waiters + 1] = cb
    vim.defer_fn(cb, timeout)
  end)
  return st.generation > 0
end

--- Waits (in a coroutine) until the client is initialized.
function M.wait_initialized(st, timeout)
  if st.initialized then
    return true
  end
  local deadline = vim.uv.now() + timeout
  while not st.initialized and M.clients[st.client_id] and vim.uv.now() < deadline do
    require("rx_bridge.async").sleep(20)
  end
  return st.initialized
end

return M

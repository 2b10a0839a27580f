-- Status items published by plugins (rx/ui/surface kind status): one per
-- (client, plugin, surfaceId), updated in place, forgotten with their
-- generation. require("rx_bridge").status() formats them for statuslines.
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

-- key -> item
local items = {}

local function key(client_id, plugin, surface_id)
  return table.concat({ client_id, plugin, surface_id }, "\0")
end

local function fire(data)
  vim.api.nvim_exec_autocmds("User", { pattern = "RxBridgeStatus", modeline = false, data = data })
  vim.cmd.redrawstatus({ bang = true })
end

---@param params rx.UISurface
function M.publish(client_id, params)
  ---@type rx.StatusPayload
  local p = type(params.payload) == "table" and params.payload or {}
  local item = {
    client_id = client_id,
    plugin = text.line(params.plugin),
    surface_id = text.line(params.surfaceId),
    session_id = type(params.sessionId) == "string" and params.sessionId or nil,
    generation = params.generation,
    label = text.line(p.label),
    detail = p.detail ~= nil and text.line(p.detail) or nil,
    severity = (p.severity == "warn" or p.severity == "error") and p.severity or "info",
    progress = type(p.progress) == "number" and p.progress or nil,
  }
  items[key(client_id, params.plugin, params.surfaceId)] = item
  fire(vim.deepcopy(item))
end

--- Marks every item of a plugin with its runtime's state (rx/pluginStateChanged:
--- "crashed"); a plugin without an item gets one saying so. The next
--- generation's forget drops them.
function M.mark(client_id, plugin, runtime_state, generation)
  local found = false
  for _, it in pairs(items) do
    if it.client_id == client_id and it.plugin == plugin then
      it.runtime_state = runtime_state
      it.severity = "error"
      found = true
    end
  end
  if not found then
    items[key(client_id, plugin, "")] = { client_id = client_id, plugin = plugin, surface_id = "", generation = generation,
      label = plugin, severity = "error", runtime_state = runtime_state }
  end
  fire({ client_id = client_id, plugin = plugin, runtime_state = runtime_state })
end

--- Drops the items of a client (all of them, or those older than `generation`).
function M.forget(client_id, generation)
  local changed = false
  for k, it in pairs(items) do
    if it.client_id == client_id and (generation == nil or (type(it.generation) == "number" and it.generation < generation)) then
      items[k] = nil
      changed = true
    end
  end
  if changed then
    fire({ client_id = client_id, cleared = true })
  end
end

--- The items, sorted by plugin then surface id.
function M.items()
  local out = {}
  for _, it in pairs(items) do
    out[#out + 1] = vim.deepcopy(it)
  end
  table.sort(out, function(a, b)
    if a.plugin ~= b.plugin then
      return a.plugin < b.plugin
    end
    if a.surface_id ~= b.surface_id then
      return a.surface_id < b.surface_id
    end
    return a.client_id < b.client_id
  end)
  return out
end

--- One line for a statusline. `opts.raw` skips %-escaping (only for callers
--- that do not treat the result as a statusline format string);
--- `opts.detail` adds each item's detail; `opts.separator` joins items.
function M.format(opts)
  opts = opts or {}
  local esc = opts.raw and text.line or text.statusline
  local parts = {}
  for _, it in ipairs(M.items()) do
    local s = esc(it.label)
    if it.runtime_state then
      s = s .. " " .. esc(it.runtime_state == "crashed" and t_("status.crashed") or ("(" .. it.runtime_state .. ")"))
    end
    if opts.detail and it.detail and it.detail ~= "" then
      s = s .. ": " .. esc(it.detail)
    end
    if it.progress then
      s = s .. (opts.raw and " %d%%" or " %d%%%%"):format(math.floor(it.progress * 100 + 0.5))
    end
    parts[#parts + 1] = s
  end
  return table.concat(parts, opts.separator or " | ")
end

return M

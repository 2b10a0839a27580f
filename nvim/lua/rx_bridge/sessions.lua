-- :Rx sessions: the stored agent sessions of the workspace (the bridge's
-- rx/session/list, shared with VS Code and `rx-bridge acp`), to resume in
-- a chat, rename or delete.
local async = require("rx_bridge.async")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

--- "3 min ago" for an RFC 3339 time, "" when it cannot be read.
function M.age(stamp, now)
  if type(stamp) ~= "string" then
    return ""
  end
  local y, mo, d, h, mi, s = stamp:match("^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)")
  if not y then
    return ""
  end
  -- os.time reads a table as local time; the offset makes it UTC.
  local utc = os.time({ year = y, month = mo, day = d, hour = h, min = mi, sec = s })
  local offset = os.time() - os.time(os.date("!*t"))
  local ago = (now or os.time()) - (utc + offset)
  if ago < 60 then
    return t_("sessions.just_now")
  elseif ago < 3600 then
    return t_("sessions.min_ago", math.floor(ago / 60))
  elseif ago < 86400 then
    return t_("sessions.h_ago", math.floor(ago / 3600))
  end
  return t_("sessions.days_ago", math.floor(ago / 86400))
end

--- One row of the picker.
function M.row(s, now)
  local parts = { text.line(s.title ~= "" and s.title or t_("sessions.no_prompt")) }
  -- A session open in a chat here: the model that chat uses (gm may have
  -- switched it since the record was written).
  local model = require("rx_bridge.chat").model_of(s.sessionId) or s.model
  if model and model ~= "" then
    parts[#parts + 1] = text.line(model)
  end
  local age = M.age(s.updatedAt, now)
  if age ~= "" then
    parts[#parts + 1] = age
  end
  return table.concat(parts, " · ")
end

local function select(items, opts)
  return async.await(function(cb)
    vim.ui.select(items, opts, cb)
  end)
end

local function input(opts)
  return async.await(function(cb)
    vim.ui.input(opts, cb)
  end)
end

--- Runs one of the session's actions; on_done() after (tests).
local function act(c, s, on_done)
  local actions = require("rx_bridge.actions")
  local what = select({ "resume", "rename", "delete" }, { prompt = M.row(s) .. ": ", format_item = function(w)
    return t_("sessions." .. w)
  end })
  if what == "resume" then
    require("rx_bridge.chat").resume(s.sessionId, s.model, on_done and function(chat) on_done(chat) end or nil)
    return
  elseif what == "rename" then
    local title = input({ prompt = t_("sessions.title_prompt"), default = s.title })
    if title ~= nil then
      local err = async.request(c, "rx/session/rename", { sessionId = s.sessionId, title = title })
      if err then
        vim.notify("rx-bridge: " .. t_("sessions.rename_failed", actions.err_text(err)), vim.log.levels.ERROR)
      else
        vim.notify("rx-bridge: " .. t_("sessions.renamed", title ~= "" and title or t_("sessions.first_prompt")))
      end
    end
  elseif what == "delete" then
    local sure = select({ "delete", "keep" }, { prompt = t_("sessions.delete_prompt", text.line(s.title)), format_item = function(w)
      return t_("sessions." .. w)
    end })
    if sure == "delete" then
      local err = async.request(c, "rx/session/delete", { sessionId = s.sessionId })
      if err then
        vim.notify("rx-bridge: " .. t_("sessions.delete_failed", actions.err_text(err)), vim.log.levels.ERROR)
      else
        vim.notify("rx-bridge: " .. t_("sessions.deleted", text.line(s.title)))
      end
    end
  end
  if on_done then
    on_done()
  end
end

--- :Rx sessions. on_done() runs when the chosen action is over (tests).
function M.pick(on_done)
  async.run(function()
    local actions = require("rx_bridge.actions")
    local c = actions.ready({ generation = false })
    if not c then
      return
    end
    local err, res = async.request(c, "rx/session/list", vim.empty_dict())
    if err then
      vim.notify("rx-bridge: " .. t_("sessions.list_failed", actions.err_text(err)), vim.log.levels.ERROR)
      return
    end
    local list = type(res) == "table" and res.sessions or {}
    if #list == 0 then
      vim.notify("rx-bridge: " .. t_("sessions.none"))
      return
    end
    local now = os.time()
    local s = select(list, {
      prompt = t_("sessions.pick_prompt"),
      kind = "rx_bridge.session",
      format_item = function(item)
        return M.row(item, now)
      end,
    })
    if s then
      act(c, s, on_done)
    end
  end)
end

return M

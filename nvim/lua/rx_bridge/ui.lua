-- Asking the user what a plugin asks (rx/ui/request, form surfaces): each
-- field in turn through vim.ui.select / vim.ui.input / the multiselect
-- picker. Runs inside a coroutine; one prompt is shown at a time.
local async = require("rx_bridge.async")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

-- An input that stays empty this many times in a row is taken as dismissed,
-- so a misbehaving vim.ui.input replacement cannot loop forever.
local MAX_EMPTY_ANSWERS = 10

function M.select(items, opts)
  return async.await(function(cb)
    vim.ui.select(items, opts, function(item, idx)
      cb(item, idx)
    end)
  end)
end

function M.input(opts)
  return async.await(function(cb)
    vim.ui.input(opts, function(value)
      cb(value)
    end)
  end)
end

local function truthy(v)
  return v == true or v == "true" or v == "yes" or v == "Yes"
end

--- The prompt text for a field: who asks, the form title, the question.
---@param req rx.UIRequest
---@param field rx.UIField
local function prompt_for(req, field, index, count)
  local plugin = text.line(req.plugin)
  local title = text.line(req.title)
  local label = text.line(field.label)
  if label == "" then
    label = text.line(req.message)
  end
  if label == "" then
    label = text.line(field.key)
  end
  local parts = {}
  if plugin ~= "" then
    parts[#parts + 1] = plugin .. ": "
  end
  if title ~= "" and title ~= label then
    parts[#parts + 1] = title .. " — "
  end
  parts[#parts + 1] = label
  if count > 1 then
    parts[#parts + 1] = (" (%d/%d)"):format(index, count)
  end
  return table.concat(parts)
end

---@param field rx.UIField
local function options_of(field)
  local out = {}
  if type(field.options) == "table" then
    for _, o in ipairs(field.options) do
      if type(o) == "string" then
        out[#out + 1] = o
      end
    end
  end
  return out
end

---@param field rx.UIField
local function ask_confirm(prompt, field)
  local default_yes = field.default ~= nil and truthy(field.default)
  local default_no = field.default ~= nil and not default_yes
  local choice = M.select({ "Yes", "No" }, {
    prompt = prompt,
    kind = "rx_bridge.confirm",
    format_item = function(item)
      local shown = t_(item == "Yes" and "ui.yes" or "ui.no")
      if (item == "Yes" and default_yes) or (item == "No" and default_no) then
        return shown .. " " .. t_("ui.default")
      end
      return shown
    end,
  })
  if choice == nil then
    return nil
  end
  return choice == "Yes"
end

---@param field rx.UIField
local function ask_select(prompt, field)
  local options = options_of(field)
  if #options == 0 then
    return nil
  end
  local default = type(field.default) == "string" and field.default or nil
  local choice = M.select(options, {
    prompt = prompt,
    kind = "rx_bridge.select",
    format_item = function(item)
      local shown = text.line(item)
      if item == default then
        return shown .. " (default)"
      end
      return shown
    end,
  })
  return choice
end

---@param field rx.UIField
local function ask_input(prompt, field)
  local default = type(field.default) == "string" and text.line(field.default) or nil
  local p = prompt .. ": "
  for _ = 1, MAX_EMPTY_ANSWERS do
    local value = M.input({ prompt = p, default = default, kind = "rx_bridge.input" })
    if value == nil then
      return nil
    end
    if value ~= "" or not field.required then
      return value
    end
    p = prompt .. " (required): "
  end
  return nil
end

---@param field rx.UIField
local function ask_multiselect(prompt, field)
  local options = options_of(field)
  if #options == 0 then
    return nil
  end
  local preset = {}
  if type(field.default) == "table" then
    for _, v in ipairs(field.default) do
      preset[v] = true
    end
  elseif type(field.default) == "string" then
    preset[field.default] = true
  end
  local p = prompt
  for _ = 1, MAX_EMPTY_ANSWERS do
    local chosen = async.await(function(cb)
      require("rx_bridge.picker").multiselect(options, { prompt = p, selected = preset }, cb)
    end)
    if chosen == nil then
      return nil
    end
    if #chosen > 0 or not field.required then
      return chosen
    end
    p = prompt .. " (choose at least one)"
    preset = {}
  end
  return nil
end

local askers = {
  confirm = ask_confirm,
  select = ask_select,
  input = ask_input,
  multiselect = ask_multiselect,
}

--- Asks every field of a request or form. `is_stale()` is checked before
--- each field: a request whose generation became old is not asked further.
--- Returns {cancelled=false, values={...}} or {cancelled=true}.
---@param req rx.UIRequest
---@return rx.UIAnswer
function M.ask(req, is_stale)
  local fields = {}
  if type(req.fields) == "table" then
    for _, f in ipairs(req.fields) do
      if type(f) == "table" and type(f.key) == "string" then
        fields[#fields + 1] = f
      end
    end
  end
  if #fields == 0 then
    -- The bridge always sends fields; a form surface might not. Ask it as
    -- one field, the way the bridge would.
    fields = { { key = "value", label = req.message, kind = req.kind } }
  end
  local values = vim.empty_dict()
  for i, field in ipairs(fields) do
    if is_stale and is_stale() then
      return { cancelled = true }
    end
    local kind = field.kind or req.kind
    local asker = askers[kind]
    if not asker then
      require("rx_bridge.log").add("warn", text.line(req.plugin), t_("log.cannot_ask", tostring(kind)))
      return { cancelled = true }
    end
    local value = asker(prompt_for(req, field, i, #fields), field)
    if value == nil then
      return { cancelled = true }
    end
    values[field.key] = value
  end
  if is_stale and is_stale() then
    return { cancelled = true }
  end
  return { cancelled = false, values = values }
end

return M

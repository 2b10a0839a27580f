-- Multiselect: telescope, snacks or fzf-lua when installed (config
-- `picker`), else repeated vim.ui.select with a Done entry. Every picker
-- calls on_done exactly once: with the chosen options (in option order) or
-- nil when dismissed.
local config = require("rx_bridge.config")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

local function ordered(options, set)
  local out = {}
  for _, o in ipairs(options) do
    if set[o] then
      out[#out + 1] = o
    end
  end
  return out
end

local function once(fn)
  local called = false
  return function(...)
    if called then
      return
    end
    called = true
    fn(...)
  end
end

--- Repeated vim.ui.select: every option toggles, Done returns the choice.
function M.builtin(options, opts, on_done)
  local set = {}
  for k, v in pairs(opts.selected or {}) do
    set[k] = v
  end
  local DONE = {}
  local function step()
    local items = { DONE }
    vim.list_extend(items, options)
    vim.ui.select(items, {
      prompt = opts.prompt,
      kind = "rx_bridge.multiselect",
      format_item = function(item)
        if item == DONE then
          local n = #ordered(options, set)
          return t_("picker.done", n)
        end
        return (set[item] and "[x] " or "[ ] ") .. text.line(item)
      end,
    }, function(item)
      if item == nil then
        on_done(nil)
      elseif item == DONE then
        on_done(ordered(options, set))
      else
        set[item] = not set[item] or nil
        vim.schedule(step)
      end
    end)
  end
  step()
end

function M.telescope(options, opts, on_done)
  local pickers = require("telescope.pickers")
  local finders = require("telescope.finders")
  local tconf = require("telescope.config").values
  local actions = require("telescope.actions")
  local action_state = require("telescope.actions.state")
  local finish = once(on_done)
  pickers
    .new({}, {
      prompt_title = opts.prompt .. " (<Tab> marks, <CR> accepts)",
      finder = finders.new_table({
        results = options,
        entry_maker = function(o)
          return { value = o, display = text.line(o), ordinal = o }
        end,
      }),
      sorter = tconf.generic_sorter({}),
      attach_mappings = function(prompt_bufnr)
        actions.select_default:replace(function()
          local picker = action_state.get_current_picker(prompt_bufnr)
          local set = {}
          for _, e in ipairs(picker:get_multi_selection()) do
            set[e.value] = true
          end
          if next(set) == nil then
            local e = action_state.get_selected_entry()
            if e then
              set[e.value] = true
            end
          end
          finish(ordered(options, set))
          actions.close(prompt_bufnr)
        end)
        -- Any other way out (Esc, <C-c>, :q) wipes the prompt buffer.
        vim.api.nvim_create_autocmd("BufWipeout", {
          buffer = prompt_bufnr,
          once = true,
          callback = function()
            vim.schedule(function()
              finish(nil)
            end)
          end,
        })
        return true
      end,
    })
    :find()
end

function M.snacks(options, opts, on_done)
  local finish = once(on_done)
  local items = {}
  for i, o in ipairs(options) do
    items[i] = { text = text.line(o), value = o }
  end
  require("snacks").picker.pick({
    title = opts.prompt,
    items = items,
    format = "text",
    confirm = function(picker)
      local set = {}
      for _, it in ipairs(picker:selected({ fallback = true })) do
        set[it.value] = true
      end
      finish(ordered(options, set))
      picker:close()
    end,
    on_close = function()
      vim.schedule(function()
        finish(nil)
      end)
    end,
  })
end

function M.fzf_lua(options, opts, on_done)
  local finish = once(on_done)
  local shown, back = {}, {}
  for i, o in ipairs(options) do
    -- fzf shows one line per entry; a number keeps duplicates apart.
    shown[i] = ("%d. %s"):format(i, text.line(o))
    back[shown[i]] = o
  end
  require("fzf-lua").fzf_exec(shown, {
    prompt = text.line(opts.prompt) .. "> ",
    fzf_opts = { ["--multi"] = true },
    actions = {
      ["default"] = function(selected)
        local set = {}
        for _, s in ipairs(selected or {}) do
          if back[s] then
            set[back[s]] = true
          end
        end
        finish(ordered(options, set))
      end,
    },
    winopts = {
      on_close = function()
        -- Actions run right after the window closes; only a close without
        -- one is a dismissal.
        vim.defer_fn(function()
          finish(nil)
        end, 200)
      end,
    },
  })
end

local native = {
  telescope = { module = "telescope", fn = M.telescope },
  snacks = { module = "snacks", fn = M.snacks },
  ["fzf-lua"] = { module = "fzf-lua", fn = M.fzf_lua },
}

local function available(name)
  local ok = pcall(require, native[name].module)
  return ok
end

--- Which picker `config.picker` resolves to now.
function M.resolve()
  local p = config.values.picker
  if type(p) == "function" then
    return p
  end
  if p == "auto" then
    for _, name in ipairs({ "telescope", "snacks", "fzf-lua" }) do
      if available(name) then
        return native[name].fn, name
      end
    end
    return M.builtin, "builtin"
  end
  if p == "builtin" or not native[p] or not available(p) then
    return M.builtin, "builtin"
  end
  return native[p].fn, p
end

function M.multiselect(options, opts, on_done)
  local fn, name = M.resolve()
  local ok, err = pcall(fn, options, opts, on_done)
  if not ok then
    require("rx_bridge.log").add("warn", "picker", t_("log.picker_failed", tostring(name), tostring(err)))
    M.builtin(options, opts, on_done)
  end
end

return M

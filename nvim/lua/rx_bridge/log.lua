-- The in-memory log behind :Rx log: bridge diagnostics (window/logMessage,
-- window/showMessage, $/logTrace), warnings of reloads, dropped stale
-- surfaces and startup failures.
local config = require("rx_bridge.config")
local text = require("rx_bridge.text")

local M = {}

local entries = {}
local bufnr = nil

local function refresh()
  if bufnr and vim.api.nvim_buf_is_valid(bufnr) then
    vim.bo[bufnr].modifiable = true
    vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, M.lines())
    vim.bo[bufnr].modifiable = false
    vim.bo[bufnr].modified = false
  end
end

local refresh_pending = false

--- Adds an entry. level is one of "error", "warn", "info", "log", "trace".
function M.add(level, source, msg)
  local lines = text.lines(msg)
  local stamp = os.date("%H:%M:%S")
  for i, l in ipairs(lines) do
    local head = i == 1 and ("%s %-5s %s: "):format(stamp, level, text.line(source)) or "    "
    entries[#entries + 1] = head .. l
  end
  local excess = #entries - config.values.log_max
  if excess > 0 then
    for _ = 1, excess do
      table.remove(entries, 1)
    end
  end
  if bufnr and not refresh_pending then
    refresh_pending = true
    vim.schedule(function()
      refresh_pending = false
      refresh()
    end)
  end
end

function M.lines()
  if #entries == 0 then
    return { require("rx_bridge.i18n").t("log.empty") }
  end
  return vim.list_slice(entries, 1, #entries)
end

function M.clear()
  entries = {}
  refresh()
end

--- Opens the log in a scratch window; it follows new entries.
function M.open()
  bufnr = require("rx_bridge.view").scratch("log", M.lines(), { filetype = "rxbridgelog" })
  local last = vim.api.nvim_buf_line_count(bufnr)
  pcall(vim.api.nvim_win_set_cursor, 0, { last, 0 })
  return bufnr
end

return M

-- Read-only scratch buffers (:Rx plugins, :Rx models, :Rx log).
local M = {}

--- Shows `lines` in the buffer rx-bridge://<name>, reusing its window when
--- it is visible, else in a new split. Returns the buffer.
function M.scratch(name, lines, opts)
  opts = opts or {}
  local bufname = "rx-bridge://" .. name
  local buf = vim.fn.bufnr(bufname)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, bufname)
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "hide"
    vim.bo[buf].swapfile = false
    vim.bo[buf].modeline = false
    vim.keymap.set("n", "q", "<cmd>close<cr>", { buffer = buf, nowait = true, desc = require("rx_bridge.i18n").t("map.close") })
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if opts.filetype then
    vim.bo[buf].filetype = opts.filetype
  end
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, buf)
  end
  vim.wo.wrap = false
  return buf
end

return M

local M = {}
local replaced
M.select_default = setmetatable({ replace = function(_, fn) replaced = fn end }, {
  __call = function() replaced() end,
})
function M.close(buf)
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_delete(buf, { force = true })
  end
end
return M

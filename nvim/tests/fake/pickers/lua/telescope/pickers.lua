local M = {}
function M.new(_, spec)
  local picker = { spec = spec }
  function picker:find()
    local buf = vim.api.nvim_create_buf(false, true)
    _G.fake_picker.current = { buf = buf, spec = spec, picker = self }
    spec.attach_mappings(buf, function() end)
    local choose = _G.fake_picker.choose
    vim.schedule(function()
      if choose == false then
        vim.api.nvim_buf_delete(buf, { force = true })
      else
        self.multi = {}
        for _, v in ipairs(choose) do
          self.multi[#self.multi + 1] = { value = v }
        end
        require("telescope.actions").select_default()
      end
    end)
  end
  function picker:get_multi_selection()
    return self.multi or {}
  end
  return picker
end
return M

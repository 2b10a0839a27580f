local M = { picker = {} }
function M.picker.pick(opts)
  local choose = _G.fake_picker.choose
  local picker = {}
  function picker:selected()
    local out = {}
    for _, it in ipairs(opts.items) do
      if vim.tbl_contains(choose, it.value) then
        out[#out + 1] = it
      end
    end
    return out
  end
  function picker:close()
    opts.on_close()
  end
  vim.schedule(function()
    if choose == false then
      opts.on_close()
    else
      opts.confirm(picker)
    end
  end)
end
return M

local M = {}
function M.fzf_exec(shown, opts)
  local choose = _G.fake_picker.choose
  vim.schedule(function()
    opts.winopts.on_close()
    if choose ~= false then
      local sel = {}
      for _, s in ipairs(shown) do
        for _, c in ipairs(choose) do
          if s:match("^%d+%. (.*)$") == c then
            sel[#sel + 1] = s
          end
        end
      end
      opts.actions.default(sel)
    end
  end)
end
return M

-- rx_bridge.nvim: the :Rx, :RxChat, :RxChatAdd, :RxReview, :RxUndoTurn and :RxInstall commands. Loading this
-- file starts nothing; require("rx_bridge").setup() (or the first command) does.
if vim.g.loaded_rx_bridge then
  return
end
vim.g.loaded_rx_bridge = true

if vim.fn.has("nvim-0.10") ~= 1 then
  vim.api.nvim_err_writeln("rx_bridge.nvim needs Neovim 0.10 or newer")
  return
end

vim.api.nvim_create_user_command("Rx", function(opts)
  require("rx_bridge.commands").rx(opts)
end, {
  nargs = "*",
  desc = "Reasonix: run /<plugin>:<action>, or actions | setup | install | reload | plugins | models | sessions | log",
  complete = function(arglead, cmdline)
    return require("rx_bridge.commands").complete_rx(arglead, cmdline)
  end,
})

vim.api.nvim_create_user_command("RxChat", function(opts)
  require("rx_bridge.commands").chat(opts)
end, {
  nargs = "?",
  desc = "Reasonix: open an agent chat [model]",
  complete = function(arglead)
    return require("rx_bridge.commands").complete_chat(arglead)
  end,
})

vim.api.nvim_create_user_command("RxChatAdd", function(opts)
  require("rx_bridge").ensure_setup()
  require("rx_bridge.chat").add_selection(vim.api.nvim_get_current_buf(), opts.line1, opts.line2)
end, { range = true, desc = "Reasonix: attach the lines (visual selection) to the chat's next prompt" })

vim.api.nvim_create_user_command("RxReview", function()
  require("rx_bridge.review").open()
end, { desc = "Reasonix: go to the agent edit waiting for review" })

vim.api.nvim_create_user_command("RxUndoTurn", function(opts)
  require("rx_bridge.chat").undo_turn(nil, opts.bang)
end, { bang = true, desc = "Reasonix: undo the files of the chat's last turn (! also files changed since)" })

vim.api.nvim_create_user_command("RxInstall", function(opts)
  local from = opts.fargs[1]
  if from and from ~= "release" and from ~= "source" then
    vim.notify("rx-bridge: " .. require("rx_bridge.i18n").t("install.bad_arg", from), vim.log.levels.ERROR)
    return
  end
  require("rx_bridge.install").install({ from = from })
end, {
  nargs = "?",
  desc = "Reasonix: install rx-bridge into stdpath('data') [release|source]",
  complete = function()
    return { "release", "source" }
  end,
})

-- Calls into vim.lsp that changed shape between Neovim 0.10 and 0.11
-- (client methods became `client:method()`).
local M = {}

M.has_011 = vim.fn.has("nvim-0.11") == 1

function M.request(client, method, params, handler, bufnr)
  if M.has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.request_sync(client, method, params, timeout, bufnr)
  if M.has_011 then
    return client:request_sync(method, params, timeout, bufnr)
  end
  return client.request_sync(method, params, timeout, bufnr)
end

function M.notify(client, method, params)
  if M.has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

function M.stop(client, force)
  if M.has_011 then
    return client:stop(force)
  end
  return client.stop(force)
end

function M.is_stopped(client)
  if M.has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- Whether the bridge process's pipes are closed (it exited). Unlike
--- is_stopped() on 0.12, this is not true as soon as a stop was requested.
function M.exited(client)
  return client.rpc.is_closing()
end

return M

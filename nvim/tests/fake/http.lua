-- A static HTTP server on 127.0.0.1 for the installer tests: serves the
-- files of a folder (GET only, 404 otherwise) from the test's own event
-- loop, so curl in a child process talks to it while the test waits.
local M = {}

--- Starts serving `root`; returns { port, url, requests, stop() }.
function M.serve(root)
  local server = assert(vim.uv.new_tcp())
  assert(server:bind("127.0.0.1", 0))
  local self = { requests = {} }
  server:listen(16, function(err)
    assert(not err, err)
    local sock = vim.uv.new_tcp()
    server:accept(sock)
    local buf = ""
    sock:read_start(function(rerr, chunk)
      if rerr or not chunk then
        sock:close()
        return
      end
      buf = buf .. chunk
      if not buf:find("\r\n\r\n", 1, true) then
        return
      end
      sock:read_stop()
      local method, path = buf:match("^(%u+) (%S+) HTTP/")
      self.requests[#self.requests + 1] = path or "?"
      local body, status
      if method == "GET" and path and not path:find("..", 1, true) then
        local f = io.open(root .. path, "rb")
        if f then
          body = f:read("*a")
          f:close()
          status = "200 OK"
        end
      end
      if not body then
        status, body = "404 Not Found", "not found\n"
      end
      sock:write(("HTTP/1.1 %s\r\nContent-Length: %d\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")
        :format(status, #body))
      sock:write(body, function()
        sock:shutdown(function()
          sock:close()
        end)
      end)
    end)
  end)
  self.port = server:getsockname().port
  self.url = ("http://127.0.0.1:%d"):format(self.port)
  function self.stop()
    if not server:is_closing() then
      server:close()
    end
  end
  return self
end

return M

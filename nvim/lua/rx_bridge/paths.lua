-- File paths and program names on every OS the plugin runs on. Paths are
-- kept with forward slashes (Windows accepts them; vim.fs.normalize makes
-- them), Windows drive letters upper case and compared without case.
-- `windows` is a field so tests can simulate Windows on any machine.
local M = {}

M.windows = vim.fn.has("win32") == 1

--- Forward slashes, no "." or ".." or trailing slash, upper-case drive letter.
function M.normalize(path)
  path = vim.fs.normalize(path, { win = M.windows, expand_env = false })
  if M.windows then
    path = path:gsub("^%a:", string.upper)
  end
  return path
end

--- The path with symlinks resolved (when it exists), normalized.
function M.real(path)
  path = M.normalize(path)
  return M.normalize(vim.uv.fs_realpath(path) or path)
end

--- Whether a normalized path is a root ("/", "C:/", "//server/share/").
local function is_root(path)
  if path == "/" then
    return true
  end
  return M.windows and (path:match("^%a:/?$") ~= nil or path:match("^//[^/]+/[^/]+/?$") ~= nil)
end

--- The folder holding a normalized path; nil for a root.
function M.parent(path)
  if is_root(path) then
    return nil
  end
  local dir = path:match("^(.*)/[^/]*$")
  if dir == nil then
    return nil
  end
  if dir == "" then
    return "/"
  end
  if M.windows and dir:match("^%a:$") then
    return dir .. "/"
  end
  if M.windows and dir:match("^//[^/]+$") then
    return nil
  end
  return dir
end

function M.join(dir, name)
  return (dir:sub(-1) == "/" and dir or dir .. "/") .. name
end

--- Whether normalized `path` is `dir` or inside it.
function M.is_under(path, dir)
  if M.windows then
    path, dir = path:lower(), dir:lower()
  end
  return path == dir or vim.startswith(path, dir:sub(-1) == "/" and dir or dir .. "/")
end

--- The nearest folder from `start` upwards that holds one of `markers`,
--- else nil. `exists(path)` defaults to a stat.
function M.find_root(start, markers, exists)
  exists = exists or function(p)
    return vim.uv.fs_stat(p) ~= nil
  end
  local dir = M.normalize(start)
  while dir do
    for _, m in ipairs(markers) do
      if exists(M.join(dir, m)) then
        return dir
      end
    end
    dir = M.parent(dir)
  end
  return nil
end

--- Whether a program name is a path (then $PATH is not searched).
function M.is_path(name)
  if M.windows then
    return name:find("[/\\]") ~= nil or name:match("^%a:") ~= nil
  end
  return name:find("/") ~= nil
end

--- A program's file name: `name.exe` on Windows.
function M.exe(name)
  if M.windows and not name:lower():match("%.exe$") then
    return name .. ".exe"
  end
  return name
end

return M

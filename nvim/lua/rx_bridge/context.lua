-- What a chat prompt attaches (rx/session/prompt's resources, EDITOR_PROTOCOL
-- §5): `#buffer` (the buffer the chat was opened from, unsaved text
-- included), `#file:<path>` (relative to the workspace root) and selections
-- added with :'<,'>RxChatAdd (a `#L<first>-<last>` uri fragment). Text is
-- sent as the editor has it; a file too large or not text goes as a link.
local paths = require("rx_bridge.paths")

local t_ = require("rx_bridge.i18n").t
local M = {}

-- Larger files go as a link the model reads with its tools (VS Code's
-- limit too).
M.MAX_TEXT = 256 * 1024

local function is_text(s)
  return not s:find("%z")
end

--- A buffer's text as its lines join (unsaved changes included).
local function buf_text(buf)
  local s = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  if vim.bo[buf].eol and s ~= "" then
    s = s .. "\n"
  end
  return s
end

local function uri_of(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" then
    return ("untitled:buffer-%d"):format(buf)
  end
  return vim.uri_from_fname(paths.real(name))
end

--- A shown name for a path: relative to root when under it.
local function short(path, root)
  path = paths.real(path)
  if root and paths.is_under(path, root) and path ~= root then
    return path:sub(#root + 2)
  end
  return vim.fn.fnamemodify(path, ":~")
end

--- Whether buf is an ordinary buffer worth attaching.
function M.is_source(buf)
  return type(buf) == "number" and buf > 0 and vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].buftype == ""
end

--- The resource of a whole buffer.
function M.buffer(buf, root)
  local name = vim.api.nvim_buf_get_name(buf)
  local s = buf_text(buf)
  local label = name ~= "" and short(name, root) or ("[No Name] %d"):format(buf)
  local res = { uri = uri_of(buf) }
  if #s <= M.MAX_TEXT and is_text(s) then
    res.text = s
  else
    label = label .. " (link)"
  end
  return res, label
end

--- The resource of lines first..last (1-based) of buf.
function M.selection(buf, first, last, root)
  local lines = vim.api.nvim_buf_get_lines(buf, first - 1, last, false)
  local name = vim.api.nvim_buf_get_name(buf)
  local frag = ("#L%d-%d"):format(first, last)
  local label = (name ~= "" and short(name, root) or ("[No Name] %d"):format(buf)) .. frag
  return { uri = uri_of(buf) .. frag, text = table.concat(lines, "\n") .. "\n" }, label
end

--- The resource of a file named relative to root (or absolute); a loaded
--- buffer of it gives its unsaved text. Returns resource, label or nil,
--- error.
function M.file(path, root)
  local absolute = path:sub(1, 1) == "/" or path:match("^%a:[/\\]") ~= nil
  local abs = paths.real(absolute and path or paths.join(root, path))
  local buf = vim.fn.bufnr(abs)
  if buf > 0 and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" then
    return M.buffer(buf, root)
  end
  local stat = vim.uv.fs_stat(abs)
  if not stat then
    return nil, t_("context.no_file", path, root)
  end
  if stat.type ~= "file" then
    return nil, t_("context.not_file", path, stat.type)
  end
  local res, label = { uri = vim.uri_from_fname(abs) }, short(abs, root)
  if stat.size <= M.MAX_TEXT then
    local f = io.open(abs, "rb")
    if not f then
      return nil, t_("context.unreadable", path)
    end
    local s = f:read("*a") or ""
    f:close()
    if is_text(s) then
      res.text = s
    end
  end
  if not res.text then
    label = label .. " (link)"
  end
  return res, label
end

--- The attachments a prompt names, in order of appearance, then the
--- pending ones (selections). from is the buffer #buffer means. Returns
--- resources, labels or nil, error.
function M.resolve(prompt, from, root, pending)
  local resources, labels = {}, {}
  local function add(r, l)
    resources[#resources + 1] = r
    labels[#labels + 1] = l
  end
  for word in prompt:gmatch("%S+") do
    if word == "#buffer" then
      if not M.is_source(from) then
        return nil, t_("context.no_buffer")
      end
      add(M.buffer(from, root))
    elseif vim.startswith(word, "#file:") then
      local p = word:sub(#"#file:" + 1)
      if p == "" then
        return nil, t_("context.needs_path", root)
      end
      local r, l = M.file(p, root)
      if not r then
        return nil, l
      end
      add(r, l)
    end
  end
  for _, a in ipairs(pending or {}) do
    add(a.resource, a.label)
  end
  return resources, labels
end

--- Completion of the word before the cursor in a chat prompt: `#buffer`,
--- `#file:` and the paths after `#file:` (relative to root). Returns the
--- start column (0-based) and items, or nil.
function M.complete(before, root)
  local dir_part = before:match("#file:(%S*)$")
  if dir_part then
    local start = #before - #dir_part
    local dir, base = dir_part:match("^(.*/)([^/]*)$")
    if not dir then
      dir, base = "", dir_part
    end
    local items = {}
    local full = root .. "/" .. dir
    for name, kind in vim.fs.dir(full) do
      if vim.startswith(name, base) and (base ~= "" or name:sub(1, 1) ~= ".") then
        items[#items + 1] = dir .. name .. (kind == "directory" and "/" or "")
      end
    end
    table.sort(items)
    return start, items
  end
  local tag = before:match("#%w*$")
  if tag then
    local items = {}
    for _, w in ipairs({ "#buffer", "#file:" }) do
      if vim.startswith(w, tag) then
        items[#items + 1] = w
      end
    end
    return #before - #tag, items
  end
  return nil
end

return M

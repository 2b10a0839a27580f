-- Turning plugin-supplied text into something safe to display. The bridge
-- has already redacted it; here it only loses control characters (so no
-- terminal escape reaches a headless stderr or a message area) and gets
-- split into buffer lines. Nothing here ever evaluates it.
local M = {}

--- Any value to a display string: non-strings become "", control
--- characters other than newline and tab are dropped.
function M.clean(s)
  if type(s) == "number" then
    s = tostring(s)
  end
  if type(s) ~= "string" then
    return ""
  end
  s = s:gsub("\r\n", "\n"):gsub("[%z\1-\8\11-\31\127]", "")
  -- C1 controls (U+0080..U+009F) in UTF-8.
  s = s:gsub("\194[\128-\159]", "")
  return s
end

--- One line: newlines and tabs become spaces.
function M.line(s)
  return (M.clean(s):gsub("[\n\t]", " "))
end

--- Buffer lines of a text.
function M.lines(s)
  return vim.split(M.clean(s), "\n", { plain = true })
end

--- Text for a statusline: every % doubled, so the text cannot become a
--- statusline item (%{...}, %!) wherever it is inserted.
function M.statusline(s)
  return (M.line(s):gsub("%%", "%%%%"))
end

return M

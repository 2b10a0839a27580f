-- Review of agent edits: a workspace/applyEdit whose change annotations
-- need confirmation (the bridge sends those to a client declaring
-- experimental.rxBridge.reviewEdits, for an edit the user would have been
-- asked about) opens a review tab with the diff of every file, hunk by
-- hunk. The tab is made in the background: focus stays where it is and a
-- message names :RxReview. Keys in the review buffer:
--   a / r   accept / reject the hunk under the cursor
--   A / R   accept / reject every hunk of the file under the cursor
--   ga / gr accept / reject everything and finish
--   q       finish: hunks not decided are rejected
-- Accepted hunks are applied to the files' buffers (undoable there); the
-- request is answered applied = true when anything was accepted.
local async = require("rx_bridge.async")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

local ns = vim.api.nvim_create_namespace("rx_bridge_review")
local counter = 0
-- The reviews waiting for an answer, oldest first.
M.pending = {}

-- The chats show what waits for review.
local function tell_chats()
  local ok, chat = pcall(require, "rx_bridge.chat")
  if ok then
    chat.refresh_all()
  end
end


local function diff(a, b)
  local fn = (vim.text and vim.text.diff) or vim.diff
  return fn(a, b, { result_type = "indices" })
end

local function needs_confirmation(edit)
  for _, a in pairs(type(edit.changeAnnotations) == "table" and edit.changeAnnotations or {}) do
    if type(a) == "table" and a.needsConfirmation then
      return true
    end
  end
  return false
end

--- Whether a workspace/applyEdit asks for a review.
function M.wanted(params)
  return type(params) == "table" and type(params.edit) == "table" and needs_confirmation(params.edit)
end

local function lines_of(path)
  local buf = vim.fn.bufnr(path)
  if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false), true
  end
  if vim.fn.filereadable(path) == 1 then
    return vim.fn.readfile(path), true
  end
  return {}, false
end

-- The text edits applied to a copy of lines, in a scratch buffer.
local function proposed(lines, edits, encoding)
  local scratch = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
  -- Plain text edits: the annotation is this review (Neovim 0.12 wants
  -- the annotations with annotated edits).
  local plain = {}
  for i, e in ipairs(edits) do
    plain[i] = { range = e.range, newText = e.newText }
  end
  vim.lsp.util.apply_text_edits(plain, scratch, encoding)
  local out = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
  vim.api.nvim_buf_delete(scratch, { force = true })
  return out
end

local function joined(lines)
  return #lines == 0 and "" or table.concat(lines, "\n") .. "\n"
end

-- The files of a WorkspaceEdit: {path, created, old, new, hunks}.
local function files_of(edit, encoding)
  local files, by = {}, {}
  local function file(uri)
    local path = vim.uri_to_fname(uri)
    if not by[path] then
      local old, exists = lines_of(path)
      by[path] = { path = path, created = not exists, old = old, new = old }
      files[#files + 1] = by[path]
    end
    return by[path]
  end
  for _, ch in ipairs(edit.documentChanges or {}) do
    if ch.kind == "create" then
      file(ch.uri)
    elseif ch.kind == nil and type(ch.textDocument) == "table" then
      local f = file(ch.textDocument.uri)
      f.new = proposed(f.new, ch.edits or {}, encoding)
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    local f = file(uri)
    f.new = proposed(f.new, edits, encoding)
  end
  for _, f in ipairs(files) do
    f.hunks = {}
    for _, h in ipairs(diff(joined(f.old), joined(f.new))) do
      f.hunks[#f.hunks + 1] = { sa = h[1], ca = h[2], sb = h[3], cb = h[4] }
    end
  end
  return files
end

local MARK = { [true] = "[accepted]", [false] = "[rejected]" }

local function render(rv)
  local lines, rows = {}, {}
  local function add(s, ref)
    lines[#lines + 1] = s
    rows[#lines] = ref
  end
  add(t_("review.head", text.line(rv.label)))
  if rv.description ~= "" then
    add(text.line(rv.description))
  end
  for fi, f in ipairs(rv.files) do
    add("")
    add(("%s %s%s"):format(fi == 1 and "==" or "==", text.line(vim.fn.fnamemodify(f.path, ":~:.")), f.created and (" " .. t_("review.new_file")) or ""), { file = fi })
    for hi, h in ipairs(f.hunks) do
      add(("@@ -%d,%d +%d,%d @@ %s"):format(h.sa, h.ca, h.sb, h.cb, MARK[h.ok] or "[?]"), { file = fi, hunk = hi })
      for i = 0, h.ca - 1 do
        add("-" .. (f.old[(h.ca > 0 and h.sa or h.sa + 1) + i] or ""), { file = fi, hunk = hi })
      end
      for i = 0, h.cb - 1 do
        add("+" .. (f.new[(h.cb > 0 and h.sb or h.sb + 1) + i] or ""), { file = fi, hunk = hi })
      end
    end
  end
  rv.rows = rows
  if vim.api.nvim_buf_is_valid(rv.buf) then
    vim.bo[rv.buf].modifiable = true
    vim.api.nvim_buf_set_lines(rv.buf, 0, -1, false, lines)
    vim.bo[rv.buf].modifiable = false
    vim.bo[rv.buf].modified = false
    vim.api.nvim_buf_clear_namespace(rv.buf, ns, 0, -1)
    for i, l in ipairs(lines) do
      local group = (l:sub(1, 1) == "+" and "DiffAdd") or (l:sub(1, 1) == "-" and "DiffDelete") or (l:sub(1, 2) == "@@" and "DiffChange") or (l:sub(1, 2) == "==" and "Title") or nil
      if group then
        vim.api.nvim_buf_set_extmark(rv.buf, ns, i - 1, 0, { end_col = #l, hl_group = group })
      end
    end
  end
end

-- The hunks the cursor's row belongs to: one hunk, or a whole file's.
local function target(rv, whole_file)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local ref = rv.rows[row]
  if not ref then
    return {}
  end
  local f = rv.files[ref.file]
  if whole_file or not ref.hunk then
    return f.hunks
  end
  return { f.hunks[ref.hunk] }
end

--- Decides hunks: which = "hunk" | "file" | "all"; ok = true/false.
function M.decide(rv, which, ok)
  local hunks
  if which == "all" then
    hunks = {}
    for _, f in ipairs(rv.files) do
      vim.list_extend(hunks, f.hunks)
    end
  else
    hunks = target(rv, which == "file")
  end
  for _, h in ipairs(hunks) do
    h.ok = ok
  end
  render(rv)
  if which == "all" then
    M.finish(rv)
  end
end

-- Applies a file's accepted hunks to its buffer, last hunk first.
local function apply(f)
  local any = false
  for _, h in ipairs(f.hunks) do
    any = any or h.ok == true
  end
  if not any then
    return false
  end
  if f.created then
    vim.fn.mkdir(vim.fn.fnamemodify(f.path, ":h"), "p")
    if vim.fn.filereadable(f.path) == 0 then
      vim.fn.writefile({}, f.path)
    end
  end
  local buf = vim.fn.bufadd(f.path)
  vim.fn.bufload(buf)
  vim.bo[buf].buflisted = true
  for i = #f.hunks, 1, -1 do
    local h = f.hunks[i]
    if h.ok then
      local new = {}
      for k = 0, h.cb - 1 do
        new[#new + 1] = f.new[h.sb + k]
      end
      local start = h.ca > 0 and h.sa - 1 or h.sa
      vim.api.nvim_buf_set_lines(buf, start, start + h.ca, false, new)
    end
  end
  return true
end

--- Ends a review: applies what was accepted and answers the request.
function M.finish(rv)
  if rv.done then
    return
  end
  rv.done = true
  local applied = false
  for _, f in ipairs(rv.files) do
    applied = apply(f) or applied
  end
  -- A file whose accepted hunks leave it as its disk holds has nothing to save.
  M.sync_modified()
  for i, p in ipairs(M.pending) do
    if p == rv then
      table.remove(M.pending, i)
      break
    end
  end
  if vim.api.nvim_buf_is_valid(rv.buf) then
    for _, win in ipairs(vim.fn.win_findbuf(rv.buf)) do
      if #vim.api.nvim_list_tabpages() > 1 or #vim.api.nvim_list_wins() > 1 then
        pcall(vim.api.nvim_win_close, win, true)
      end
    end
    pcall(vim.api.nvim_buf_delete, rv.buf, { force = true })
  end
  rv.answer(applied)
  tell_chats()
end

--- The reviews waiting of bridge client_id.
function M.pending_of(client_id)
  return vim.tbl_filter(function(rv)
    return rv.client_id == nil or rv.client_id == client_id
  end, M.pending)
end

--- Clears 'modified' of the loaded file buffers under root (all when nil)
--- whose text is what their file on disk holds: after a turn's edits were
--- written, or undone, they have nothing to save (and :qa would refuse).
function M.sync_modified(root)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" and vim.bo[buf].modified then
      local path = vim.api.nvim_buf_get_name(buf)
      if path ~= "" and (root == nil or vim.startswith(path, root .. "/")) and vim.fn.filereadable(path) == 1 then
        local ok, disk = pcall(vim.fn.readfile, path)
        if ok and vim.deep_equal(disk, vim.api.nvim_buf_get_lines(buf, 0, -1, false)) then
          vim.bo[buf].modified = false
        end
      end
    end
  end
end

--- :RxReview — goes to the oldest pending review.
function M.open()
  local rv = M.pending[1]
  if not rv then
    vim.notify("rx-bridge: " .. t_("review.none"), vim.log.levels.INFO)
    return
  end
  local win = vim.fn.win_findbuf(rv.buf)[1]
  if win then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd("tab sbuffer " .. rv.buf)
  end
end

--- The files of a review, by name, for messages and its tab: "a.txt, b.txt".
function M.names(rv)
  local names = vim.tbl_map(function(f)
    return text.line(vim.fn.fnamemodify(f.path, ":t"))
  end, rv.files)
  if #names > 3 then
    names = vim.list_extend(vim.list_slice(names, 1, 3), { ("+%d"):format(#names - 3) })
  end
  return table.concat(names, ", ")
end

local function make_buffer(rv)
  counter = counter + 1
  local buf = vim.api.nvim_create_buf(false, true)
  rv.buf = buf
  -- No slash in the name: the tab line shows it whole, not "r//1".
  vim.api.nvim_buf_set_name(buf, t_("review.bufname", counter, M.names(rv)))
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = "rxbridgereview"
  local function map(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, desc = desc })
  end
  map("a", function() M.decide(rv, "hunk", true) end, t_("map.accept_hunk"))
  map("r", function() M.decide(rv, "hunk", false) end, t_("map.reject_hunk"))
  map("A", function() M.decide(rv, "file", true) end, t_("map.accept_file"))
  map("R", function() M.decide(rv, "file", false) end, t_("map.reject_file"))
  map("ga", function() M.decide(rv, "all", true) end, t_("map.accept_all"))
  map("gr", function() M.decide(rv, "all", false) end, t_("map.reject_all"))
  map("q", function() M.finish(rv) end, t_("map.finish"))
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      vim.schedule(function() M.finish(rv) end)
    end,
  })
end

--- Opens a review of params (a workspace/applyEdit); calls answer(applied)
--- once the user finished it. The review tab is made without leaving the
--- current window.
function M.start(params, encoding, answer, client_id)
  local edit = params.edit
  local desc = {}
  for _, a in pairs(edit.changeAnnotations or {}) do
    if type(a) == "table" and type(a.description) == "string" then
      desc[#desc + 1] = a.description
    end
  end
  local rv = {
    label = params.label or "Reasonix: apply_edit",
    description = table.concat(desc, "; "),
    files = files_of(edit, encoding),
    answer = answer,
    client_id = client_id,
  }
  make_buffer(rv)
  render(rv)
  M.pending[#M.pending + 1] = rv
  local cur = vim.api.nvim_get_current_tabpage()
  vim.cmd("noautocmd tab sbuffer " .. rv.buf)
  vim.wo.wrap = false
  vim.api.nvim_set_current_tabpage(cur)
  vim.notify("rx-bridge: " .. t_("review.wants", M.names(rv)), vim.log.levels.INFO)
  tell_chats()
  return rv
end

--- The workspace/applyEdit handler: a review when the edit asks for one,
--- else Neovim's own handler.
function M.handle(err, params, ctx, cfg)
  if not M.wanted(params) then
    return vim.lsp.handlers["workspace/applyEdit"](err, params, ctx, cfg)
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = client and client.offset_encoding or "utf-16"
  local applied = async.await(function(cb)
    M.start(params, encoding, cb, ctx.client_id)
  end)
  if applied then
    return { applied = true }
  end
  return { applied = false, failureReason = "the user rejected the edit" } -- for the model, not shown
end

return M

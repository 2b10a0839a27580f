-- Runs spec files, each in a fresh headless Neovim with this plugin on
-- 'runtimepath', and prints one line per test and a closing summary.
--   nvim -l tests/run.lua [--timeout SECONDS] spec.lua...
-- Needs RX_TEST_NVIM (the Neovim launcher, passed on to the specs).
local nvim = assert(os.getenv("RX_TEST_NVIM"), "RX_TEST_NVIM is not set")
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local plugin_dir = vim.fn.fnamemodify(here, ":h")

local timeout = 60
local specs = {}
local i = 1
while i <= #arg do
  if arg[i] == "--timeout" then
    timeout = tonumber(arg[i + 1])
    i = i + 2
  else
    specs[#specs + 1] = arg[i]
    i = i + 1
  end
end

local function out(s)
  io.stdout:write(s, "\n")
  io.stdout:flush()
end

local passed, failed = 0, 0
local t0 = vim.uv.hrtime()
for _, spec in ipairs(specs) do
  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp, "p")
  local results = tmp .. "/results.jsonl"
  local env = {
    RX_TEST_RESULTS = results,
    RX_TEST_TMP = tmp,
    XDG_CONFIG_HOME = tmp .. "/config",
    XDG_STATE_HOME = tmp .. "/state",
    XDG_DATA_HOME = tmp .. "/data",
    XDG_CACHE_HOME = tmp .. "/cache",
    -- The specs read the plugin's English messages (language "auto"
    -- follows the locale); i18n_spec.lua switches languages itself.
    LANG = "C.UTF-8",
    LC_ALL = "C.UTF-8",
  }
  -- The e2e specs' screenshots (T.shot, one after each test and those a
  -- test takes) go to $RX_TEST_SHOTS_ROOT/<spec>/ when set.
  local shots_root = os.getenv("RX_TEST_SHOTS_ROOT")
  if shots_root and spec:find("/e2e/", 1, true) then
    env.RX_TEST_SHOTS = shots_root .. "/" .. vim.fn.fnamemodify(spec, ":t:r")
    vim.fn.delete(env.RX_TEST_SHOTS, "rf")
  end
  local start = vim.uv.hrtime()
  local res = vim.system({
    nvim, "--headless", "--clean", "-i", "NONE", "-n",
    "--cmd", "set rtp^=" .. vim.fn.fnameescape(plugin_dir),
    "--cmd", "lua package.path = " .. vim.inspect(plugin_dir .. "/?.lua;") .. " .. package.path",
    "-c", ("lua local ok, e = xpcall(dofile, debug.traceback, %s) if not ok then io.stderr:write(tostring(e), '\\n') vim.cmd('cquit! 2') end")
      :format(vim.inspect(vim.fn.fnamemodify(spec, ":p"))),
  }, { env = env, text = true, timeout = timeout * 1000, cwd = tmp, stdin = false }):wait()
  local ms = math.floor((vim.uv.hrtime() - start) / 1e6)
  local seen, spec_failed = 0, 0
  local f = io.open(results, "r")
  if f then
    for line in f:lines() do
      local r = vim.json.decode(line)
      seen = seen + 1
      if r.ok then
        passed = passed + 1
        out(("  ok    %s (%d ms)"):format(r.name, r.ms))
      else
        failed = failed + 1
        spec_failed = spec_failed + 1
        out(("  FAIL  %s (%d ms)\n%s"):format(r.name, r.ms, r.err:gsub("\n", "\n        ")))
      end
    end
    f:close()
  end
  local name = vim.fn.fnamemodify(spec, ":t")
  if (res.code ~= 0 and spec_failed == 0) or res.signal ~= 0 then
    failed = failed + 1
    out(("  FAIL  %s: Neovim exited with code %d signal %d%s"):format(name, res.code, res.signal,
      res.signal == 9 and (" (timeout after " .. timeout .. " s)") or ""))
  end
  if res.code ~= 0 or os.getenv("RX_TEST_VERBOSE") then
    local log = (res.stdout or "") .. (res.stderr or "")
    if log ~= "" then
      out("  output of " .. name .. ":\n    " .. log:gsub("\n", "\n    "))
    end
  end
  out(("%s: %d ms"):format(name, ms))
  vim.fn.delete(tmp, "rf")
end
out(("nvim tests took %.1f s"):format((vim.uv.hrtime() - t0) / 1e9))
out(("nvim: %d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and passed > 0 and 0 or 1)

-- Installing the rx-bridge program for this plugin (:RxInstall, and the
-- build step of plugin managers) into stdpath("data")/rx-bridge/bin: the
-- release archive of this platform, verified against the release's
-- SHA256SUMS, or, when it cannot be downloaded, a build from source. The
-- new program is assembled in a temporary folder beside bin/ and renamed
-- into place only once it is verified and runs, so a failed install leaves
-- the previous program (or none) as it was.
local async = require("rx_bridge.async")
local paths = require("rx_bridge.paths")
local text = require("rx_bridge.text")
local t_ = require("rx_bridge.i18n").t

local M = {}

M.DEFAULT_URL = "https://github.com/rx-bridge/rx-bridge/releases/latest/download"
M.MODULE = "github.com/rx-bridge/rx-bridge"

-- Replaceable by tests.
M.uname = vim.uv.os_uname
M.executable = function(name)
  return vim.fn.executable(name) == 1
end
-- The plugin's folder (nvim/ of an rx-bridge checkout, when it is one).
-- Symlinks are resolved: a plugin folder linked into pack/*/start is
-- still found to be the nvim/ folder of its checkout.
M.plugin_dir = paths.real(vim.fn.fnamemodify(paths.real(debug.getinfo(1, "S").source:sub(2)), ":p:h:h:h"))

local goos_of = { linux = "linux", darwin = "darwin", windows_nt = "windows" }
local goarch_of = { x86_64 = "amd64", amd64 = "amd64", x64 = "amd64", aarch64 = "arm64", arm64 = "arm64" }

--- The release archive for a vim.uv.os_uname() result: { goos, goarch,
--- archive, folder, exe }, or nil and why there is none.
function M.platform(uname)
  local sys = (uname.sysname or ""):lower()
  local goos = goos_of[sys]
  if not goos and (sys:find("^mingw") or sys:find("^msys") or sys:find("^cygwin")) then
    goos = "windows"
  end
  local goarch = goarch_of[(uname.machine or ""):lower()]
  if not (goos and goarch) then
    return nil, t_("install.no_archive", tostring(uname.sysname), tostring(uname.machine))
  end
  local folder = ("rx-bridge_%s_%s"):format(goos, goarch)
  return {
    goos = goos,
    goarch = goarch,
    folder = folder,
    archive = folder .. (goos == "windows" and ".zip" or ".tar.gz"),
    exe = goos == "windows" and "rx-bridge.exe" or "rx-bridge",
  }
end

--- Where releases are downloaded from: $RX_BRIDGE_RELEASE_URL or GitHub's latest release.
function M.base_url()
  local url = vim.env.RX_BRIDGE_RELEASE_URL
  if url == nil or url == "" then
    url = M.DEFAULT_URL
  end
  return (url:gsub("/+$", ""))
end

--- stdpath("data")/rx-bridge, the installer's folder.
function M.dir()
  return paths.join(paths.normalize(vim.fn.stdpath("data")), "rx-bridge")
end

--- Where the program is installed.
function M.bin_path()
  return paths.join(M.dir(), "bin/" .. paths.exe("rx-bridge"))
end

--- The installed program, or nil.
function M.installed()
  local p = M.bin_path()
  return M.executable(p) and p or nil
end

--- The SHA-256 that a SHA256SUMS text (`sha256sum` format) gives `name`,
--- lower case; or nil and why not.
function M.sum_for(sums, name)
  for line in sums:gmatch("[^\r\n]+") do
    local h, file = line:match("^\\?(%x+) [ *](.-)%s*$")
    if h and file == name then
      if #h ~= 64 then
        return nil, t_("install.sums_malformed", name)
      end
      return h:lower()
    end
  end
  return nil, t_("install.sums_missing", name)
end

--- The SHA-256 in the output of a hashing tool (sha256sum, shasum, certutil
--- -- which may space the hex -- or Get-FileHash), lower case; or nil.
function M.parse_hash(out)
  for line in (out or ""):gmatch("[^\r\n]+") do
    local h = line:match("^\\?(%x+)%s") or line:match("^%s*(%x+)%s*$")
    if h and #h == 64 then
      return h:lower()
    end
    local squeezed = line:gsub("%s", "")
    if #squeezed == 64 and squeezed:match("^%x+$") then
      return squeezed:lower()
    end
  end
  return nil
end

--- The command computing a file's SHA-256 with the first tool available,
--- as { cmd, env }; or nil.
function M.hasher(file)
  if M.executable("sha256sum") then
    return { cmd = { "sha256sum", file } }
  elseif M.executable("shasum") then
    return { cmd = { "shasum", "-a", "256", file } }
  elseif M.executable("certutil") then
    return { cmd = { "certutil", "-hashfile", file, "SHA256" } }
  end
  for _, ps in ipairs({ "pwsh", "powershell" }) do
    if M.executable(ps) then
      -- The path travels in the environment, so no quoting can break it.
      return {
        cmd = { ps, "-NoProfile", "-NonInteractive", "-Command",
          "(Get-FileHash -Algorithm SHA256 -LiteralPath $env:RX_HASH_FILE).Hash" },
        env = { RX_HASH_FILE = file },
      }
    end
  end
  return nil
end

--- The command downloading url to file, or nil.
function M.downloader(url, file)
  if M.executable("curl") then
    return { "curl", "-fsSL", "--retry", "2", "--connect-timeout", "20", "-o", file, url }
  elseif M.executable("wget") then
    return { "wget", "-q", "-O", file, url }
  end
  return nil
end

--- The command unpacking an archive into dir, or nil and why not. A zip
--- goes to unzip, else to tar (Windows 10 and later ship a tar that reads zip).
function M.extractor(archive, dir)
  if archive:match("%.zip$") then
    if M.executable("unzip") then
      return { "unzip", "-q", "-o", archive, "-d", dir }
    elseif M.executable("tar") then
      return { "tar", "-xf", archive, "-C", dir }
    end
    return nil, t_("install.no_unzip", archive)
  end
  if M.executable("tar") then
    return { "tar", "-xzf", archive, "-C", dir }
  end
  return nil, t_("install.no_tar", archive)
end

--- The rx-bridge checkout holding a plugin folder, or nil.
function M.repo_of(plugin_dir)
  local repo = paths.parent(paths.normalize(plugin_dir))
  if not repo or not vim.uv.fs_stat(paths.join(repo, "cmd/rx-bridge")) then
    return nil
  end
  local f = io.open(paths.join(repo, "go.mod"), "r")
  if not f then
    return nil
  end
  local mod = f:read("*a")
  f:close()
  if not mod:match("^%s*module%s+" .. vim.pesc(M.MODULE) .. "%s") then
    return nil
  end
  return repo
end

--- How to build rx-bridge from source into out_dir: `go build` in the
--- plugin's own checkout (the version matching the plugin), else `go
--- install …@latest`. Returns { cmd, cwd, env, what }.
function M.source_build(plugin_dir, out_dir, go)
  go = go or "go"
  local repo = M.repo_of(plugin_dir)
  if repo then
    return {
      cmd = { go, "build", "-o", paths.join(out_dir, paths.exe("rx-bridge")), "./cmd/rx-bridge" },
      cwd = repo,
      what = "go build ./cmd/rx-bridge in " .. repo,
    }
  end
  local target = M.MODULE .. "/cmd/rx-bridge@latest"
  return { cmd = { go, "install", target }, env = { GOBIN = out_dir }, what = "go install " .. target }
end

local function note(msg, level)
  vim.notify("rx-bridge: " .. msg, level or vim.log.levels.INFO)
end

-- Runs a command in the coroutine; returns the vim.system result (code -1
-- when it could not start).
local function sh(cmd, opts)
  return async.await(function(cb)
    local o = vim.tbl_extend("force", { text = true, stdin = false }, opts or {})
    local ok, err = pcall(vim.system, cmd, o, cb)
    if not ok then
      cb({ code = -1, signal = 0, stdout = "", stderr = tostring(err) })
    end
  end)
end

local function why(res, last_line)
  local out = res.stderr ~= "" and res.stderr or res.stdout or ""
  if last_line then
    -- curl and wget print a warning per retry before the error itself.
    local lines = vim.tbl_filter(function(l) return vim.trim(l) ~= "" end, vim.split(text.clean(out), "\n", { plain = true }))
    out = lines[#lines] or ""
  end
  local s = vim.trim(text.line(out))
  if s == "" then
    s = ("exit code %d"):format(res.code)
  end
  return s
end

local function read(file)
  local f = io.open(file, "rb")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

-- The release archive, verified and unpacked in tmp. Returns the program's
-- path, or nil, why, and whether building from source may follow.
local function from_release(tmp)
  local plat, perr = M.platform(M.uname())
  if not plat then
    return nil, perr, true
  end
  local base = M.base_url()
  local sums_file, archive = paths.join(tmp, "SHA256SUMS"), paths.join(tmp, plat.archive)
  for _, get in ipairs({ { base .. "/SHA256SUMS", sums_file }, { base .. "/" .. plat.archive, archive } }) do
    local cmd = M.downloader(get[1], get[2])
    if not cmd then
      return nil, t_("install.no_curl", get[1]), true
    end
    note(t_("install.downloading", get[1]))
    local res = sh(cmd)
    if res.code ~= 0 then
      return nil, t_("install.cannot_download", get[1], why(res, true)), true
    end
  end
  local want, serr = M.sum_for(read(sums_file) or "", plat.archive)
  if not want then
    return nil, t_("install.sums_refused", serr, base)
  end
  local h = M.hasher(archive)
  if not h then
    return nil, t_("install.no_hasher", plat.archive)
  end
  local res = sh(h.cmd, { env = h.env })
  local got = res.code == 0 and M.parse_hash(res.stdout) or nil
  if not got then
    return nil, t_("install.hash_failed", plat.archive, h.cmd[1], why(res))
  end
  if got ~= want then
    return nil, t_("install.mismatch", plat.archive, want, got)
  end
  note(t_("install.verified", plat.archive, got))
  local out = paths.join(tmp, "unpacked")
  vim.fn.mkdir(out, "p")
  local cmd, xerr = M.extractor(archive, out)
  if not cmd then
    return nil, xerr
  end
  res = sh(cmd)
  if res.code ~= 0 then
    return nil, t_("install.cannot_unpack", plat.archive, why(res))
  end
  local bin = paths.join(out, plat.folder .. "/" .. plat.exe)
  if not vim.uv.fs_stat(bin) then
    return nil, t_("install.archive_lacks", plat.archive, plat.folder, plat.exe)
  end
  return bin
end

local function from_source(tmp)
  local go = "go"
  if not M.executable(go) then
    return nil, t_("install.no_go")
  end
  local b = M.source_build(M.plugin_dir, tmp, go)
  note(t_("install.building", b.what))
  local res = sh(b.cmd, { cwd = b.cwd, env = b.env })
  if res.code ~= 0 then
    return nil, t_("install.build_failed", b.what, why(res))
  end
  return paths.join(tmp, paths.exe("rx-bridge"))
end

-- Renames bin to dest. Windows cannot replace a running .exe, but it can
-- rename it, so the old one is moved aside first when needed.
local function place(bin, dest)
  local ok, err = vim.uv.fs_rename(bin, dest)
  if not ok and paths.windows and vim.uv.fs_stat(dest) then
    os.remove(dest .. ".old")
    if vim.uv.fs_rename(dest, dest .. ".old") then
      ok, err = vim.uv.fs_rename(bin, dest)
    end
  end
  return ok, err
end

local function install(opts)
  local dest = M.bin_path()
  local dir = M.dir()
  vim.fn.mkdir(paths.join(dir, "bin"), "p")
  local tmp, terr = vim.uv.fs_mkdtemp(paths.join(dir, ".install-XXXXXX"))
  if not tmp then
    return nil, t_("install.no_tmp", dir, tostring(terr))
  end
  local function done(...)
    vim.fn.delete(tmp, "rf")
    return ...
  end
  local bin, err, may_fall_back, how
  if opts.from ~= "source" then
    bin, err, may_fall_back = from_release(tmp)
    how = t_("install.how_release")
  end
  local release_err
  if opts.from == "source" or (not bin and may_fall_back and opts.from ~= "release") then
    -- Why the release was not used is told once: with the outcome.
    if err then
      release_err = err
      note(t_("install.fallback"))
    end
    local serr
    bin, serr = from_source(tmp)
    how = t_("install.how_source")
    if not bin then
      err = err and t_("install.and", err, serr) or serr
    end
  end
  if not bin then
    return done(nil, err)
  end
  if not paths.windows then
    vim.uv.fs_chmod(bin, 493) -- 0755
  end
  local res = sh({ bin, "version" })
  if res.code ~= 0 then
    return done(nil, t_("install.does_not_run", why(res)))
  end
  local ok, perr = place(bin, dest)
  if not ok then
    return done(nil, t_("install.cannot_move", dest, tostring(perr)))
  end
  return done({ path = dest, version = vim.trim(text.line(vim.split(res.stdout, "\n")[1])), how = how,
    release_error = release_err })
end

local running = false

--- Whether an install runs now.
function M.is_running()
  return running
end

--- Installs rx-bridge asynchronously. opts.from: nil (the release, else
--- source), "release" or "source". on_done(ok, result) gets { path,
--- version, how } or the error message; progress and the outcome are
--- notified either way.
function M.install(opts, on_done)
  opts = opts or {}
  on_done = on_done or function() end
  if running then
    local msg = t_("install.running")
    note(msg, vim.log.levels.WARN)
    return on_done(false, msg)
  end
  running = true
  async.run(function()
    local res, err = install(opts)
    running = false
    if res then
      note(t_("install.installed", res.path, res.version, res.how,
        res.release_error and ("; " .. res.release_error) or ""))
      local ok_init, init = pcall(require, "rx_bridge")
      if ok_init then
        init.refresh()
      end
      on_done(true, res)
    else
      -- The build step (opts.quiet_failure) raises it instead: told once.
      if not opts.quiet_failure then
        note(t_("install.install_failed", err), vim.log.levels.ERROR)
      end
      on_done(false, err)
    end
  end)
end

--- install() that waits for the outcome and raises on failure: the build
--- step of plugin managers (lazy.nvim's `build`).
function M.build(opts)
  local finished, ok, res = false, false, nil
  opts = vim.tbl_extend("force", opts or {}, { quiet_failure = true })
  M.install(opts, function(o, r)
    finished, ok, res = true, o, r
  end)
  vim.wait(30 * 60 * 1000, function()
    return finished
  end, 50)
  if not finished then
    error("rx-bridge: " .. t_("install.unfinished"), 0)
  end
  if not ok then
    error("rx-bridge: " .. t_("install.install_failed", tostring(res)), 0)
  end
  return res
end

return M

-- :RxInstall against release archives this test builds in the release
-- layout from the freshly built rx-bridge ($RX_E2E_BIN), served over HTTP
-- on 127.0.0.1; then the plugin starts the installed bridge. Also: a
-- checksum mismatch and a missing entry are refused without installing
-- anything, a Windows zip (simulated) installs rx-bridge.exe, a server
-- that is down makes it build from this checkout, and the lazy.nvim spec
-- of nvim/README.md works the way lazy.nvim calls it.
local T = require("tests.helpers")
local http = require("tests.fake.http")
local install = require("rx_bridge.install")
local paths = require("rx_bridge.paths")

local bin = assert(os.getenv("RX_E2E_BIN"), "RX_E2E_BIN is not set (run scripts/test.sh e2e)")
local tmp = os.getenv("RX_TEST_TMP")
local repo = vim.fs.dirname(T.nvim_dir)
local host = assert(install.platform(vim.uv.os_uname()))
local win = assert(install.platform({ sysname = "Windows_NT", machine = "x86_64" }))

T.capture_notify()

local function run(cmd, opts)
  local res = vim.system(cmd, vim.tbl_extend("force", { text = true }, opts or {})):wait()
  assert(res.code == 0, ("%s: exit %d: %s%s"):format(table.concat(cmd, " "), res.code, res.stdout, res.stderr))
  return res.stdout
end

local function sha256(file)
  return run({ "sha256sum", file }):match("^(%x+)")
end

-- An archive of the layout: <folder>/{<exe>, LICENSE, README.md}.
local function stage(folder, exe)
  local d = tmp .. "/stage/" .. folder
  vim.fn.mkdir(d, "p")
  assert(vim.uv.fs_copyfile(bin, d .. "/" .. exe))
  vim.uv.fs_chmod(d .. "/" .. exe, 493)
  vim.fn.writefile({ "license text" }, d .. "/LICENSE")
  vim.fn.writefile({ "# rx-bridge" }, d .. "/README.md")
end
stage(host.folder, host.exe)
stage(win.folder, win.exe)

local good = tmp .. "/release"
vim.fn.mkdir(good, "p")
run({ "tar", "-czf", good .. "/" .. host.archive, "-C", tmp .. "/stage", host.folder })
run({ "zip", "-qr", good .. "/" .. win.archive, win.folder }, { cwd = tmp .. "/stage" })
local names = { host.archive, win.archive }
table.sort(names)
local sums = run(vim.list_extend({ "sha256sum" }, names), { cwd = good })
vim.fn.writefile(vim.split(vim.trim(sums), "\n"), good .. "/SHA256SUMS")

-- The same archives with a SHA256SUMS that lies about the host's, and one without its entry.
local function release_with(name, sums_lines)
  local d = tmp .. "/" .. name
  vim.fn.mkdir(d, "p")
  for _, n in ipairs(names) do
    assert(vim.uv.fs_copyfile(good .. "/" .. n, d .. "/" .. n))
  end
  vim.fn.writefile(sums_lines, d .. "/SHA256SUMS")
  return d
end
local wrong = sha256(good .. "/" .. win.archive)
local bad = release_with("bad", { wrong .. "  " .. host.archive, wrong .. "  " .. win.archive })
local partial = release_with("partial", { wrong .. "  " .. win.archive })

local good_srv, bad_srv, partial_srv = http.serve(good), http.serve(bad), http.serve(partial)

local function run_install(url, opts)
  vim.env.RX_BRIDGE_RELEASE_URL = url
  T.notes = {}
  local box = {}
  install.install(opts, function(ok, res)
    box.ok, box.res, box.done = ok, res, true
  end)
  T.wait(function() return box.done end, "the install", 120000)
  return box.ok, box.res
end

local function leftovers()
  return vim.fn.glob(install.dir() .. "/.install-*", true, true)
end

local function notes_text()
  local out = {}
  for _, n in ipairs(T.notes) do
    out[#out + 1] = n.msg
  end
  return table.concat(out, "\n")
end

local dest = vim.fn.stdpath("data") .. "/rx-bridge/bin/rx-bridge"

T.test("a checksum mismatch is refused: nothing installed, no source build", function()
  local ok, err = run_install(bad_srv.url)
  T.eq(false, ok)
  T.contains(err, ("checksum mismatch for %s: SHA256SUMS says %s, the download has %s; refusing to install it")
    :format(host.archive, wrong, sha256(good .. "/" .. host.archive)))
  T.eq(vim.log.levels.ERROR, T.notes[#T.notes].level)
  T.contains(T.notes[#T.notes].msg, "rx-bridge: install failed: checksum mismatch")
  T.eq(nil, notes_text():find("building from source", 1, true), "no fallback: " .. notes_text())
  T.eq(nil, vim.uv.fs_stat(dest), "nothing installed")
  T.eq({}, leftovers(), "the temporary folder is gone")
  T.eq({ "/SHA256SUMS", "/" .. host.archive }, bad_srv.requests)
end)

T.test("an archive missing from SHA256SUMS is refused", function()
  local ok, err = run_install(partial_srv.url)
  T.eq(false, ok)
  T.contains(err, ("SHA256SUMS has no entry for %s (%s/SHA256SUMS); refusing to install it"):format(host.archive, partial_srv.url))
  T.eq(nil, vim.uv.fs_stat(dest))
  T.eq({}, leftovers())
end)

T.test(":RxInstall downloads, verifies and installs; the plugin then starts that bridge", function()
  vim.env.RX_BRIDGE_RELEASE_URL = good_srv.url
  T.notes = {}
  vim.cmd("RxInstall")
  T.wait(function()
    return T.find_note("installed ") or T.find_note("install failed")
  end, ":RxInstall", 120000)
  local text = notes_text()
  T.contains(text, "rx-bridge: downloading " .. good_srv.url .. "/SHA256SUMS")
  T.contains(text, "rx-bridge: downloading " .. good_srv.url .. "/" .. host.archive)
  T.contains(text, ("rx-bridge: verified %s (sha256 %s)"):format(host.archive, sha256(good .. "/" .. host.archive)))
  local version = vim.split(run({ bin, "version" }), "\n")[1]
  T.contains(text, ("rx-bridge: installed %s (%s, from the release archive)"):format(dest, version))
  T.eq({}, leftovers())
  T.eq(sha256(bin), sha256(dest), "the program of the archive")
  T.eq(1, vim.fn.executable(dest))

  -- No cmd configured: the installed program is the one started.
  T.eq(true, require("rx_bridge").setup({ autostart = false }))
  local client, st = T.start()
  T.eq({ dest, "serve" }, client.config.cmd)
  T.ok(st.info.bridgeVersion and version:find(st.info.bridgeVersion, 1, true), "bridge version " .. tostring(st.info.bridgeVersion))

  vim.cmd("checkhealth rx_bridge")
  local h = T.buf_text(0)
  vim.cmd("bwipeout!")
  T.contains(h, "installed by :RxInstall: " .. dest)
  T.contains(h, "OK found " .. dest)
  require("rx_bridge.compat").stop(client)
  T.wait(function() return require("rx_bridge.compat").exited(client) end, "the bridge to stop")
end)

T.test("a failed update leaves the installed program as it was", function()
  local before = vim.uv.fs_stat(dest)
  local ok = run_install(bad_srv.url)
  T.eq(false, ok)
  local after = vim.uv.fs_stat(dest)
  T.eq(before.ino, after.ino)
  T.eq(before.mtime, after.mtime)
  T.eq(sha256(bin), sha256(dest))
  T.eq({}, leftovers())
end)

T.test("Windows (simulated): the zip is unpacked and rx-bridge.exe installed", function()
  paths.windows = true
  local uname = install.uname
  install.uname = function()
    return { sysname = "Windows_NT", machine = "x86_64" }
  end
  local ok, res = run_install(good_srv.url)
  paths.windows = false
  install.uname = uname
  T.eq(true, ok, tostring(res))
  T.eq(dest .. ".exe", res.path)
  T.contains(good_srv.requests[#good_srv.requests], win.archive)
  T.eq(sha256(bin), sha256(res.path))
  T.match("^rx%-bridge ", res.version)
  os.remove(res.path)
end)

T.test("the release server down: it builds from this checkout instead", function()
  local down = http.serve(good)
  down.stop()
  local before = vim.uv.fs_stat(dest)
  local ok, res = run_install(down.url)
  T.eq(true, ok, tostring(res))
  local text = notes_text()
  T.contains(text, "rx-bridge: the release cannot be downloaded; building from source instead")
  -- Why, once, with the outcome.
  T.contains(text, "built from source; cannot download " .. down.url .. "/SHA256SUMS: curl: (7)")
  T.eq(1, select(2, text:gsub("curl: %(7%)", "")), "curl's error once in\n" .. text)
  T.contains(text, "rx-bridge: building from source: go build ./cmd/rx-bridge in " .. repo)
  T.eq(dest, res.path)
  T.eq("built from source", res.how)
  T.ok(vim.uv.fs_stat(dest).ino ~= before.ino, "a new program was put in place")
  T.match("^rx%-bridge ", res.version)
  T.contains(run({ dest, "version", "--json" }), '"protocolMajor": 1')
  T.eq({}, leftovers())
end)

-- The ```lua block after the marker in nvim/README.md.
local function readme_spec()
  local readme = table.concat(vim.fn.readfile(T.nvim_dir .. "/README.md"), "\n")
  local block = readme:match("<!%-%- lazy%.nvim spec, tested by tests/e2e/install_spec%.lua %-%->%s*```lua\n(.-)\n```")
  return assert(block, "nvim/README.md has no marked lazy.nvim spec")
end

T.test("the lazy.nvim spec of nvim/README.md: config loads the plugin from nvim/, build installs", function()
  -- What lazy.nvim clones: the repository; here its nvim/ and go.mod are enough.
  local clone = tmp .. "/lazy/rx-bridge"
  vim.fn.mkdir(clone, "p")
  run({ "cp", "-R", T.nvim_dir, clone .. "/nvim" })
  run({ "cp", repo .. "/go.mod", clone .. "/go.mod" })
  local spec_file = tmp .. "/lazy/spec.lua"
  vim.fn.writefile(vim.split("return " .. readme_spec(), "\n"), spec_file)
  local out = tmp .. "/lazy/out.json"
  local script = tmp .. "/lazy/child.lua"
  vim.fn.writefile(vim.split(([[
    local spec = dofile(%q)
    local plugin = { dir = %q, name = "rx-bridge" }
    local r = { url = spec[1], before = pcall(require, "rx_bridge") }
    -- lazy.nvim loads a plugin (its config, with the merged opts) before running its build.
    spec.config(plugin, vim.deepcopy(spec.opts or {}))
    r.commands = { vim.fn.exists(":Rx"), vim.fn.exists(":RxChat"), vim.fn.exists(":RxInstall") }
    r.setup = require("rx_bridge.config").values.autostart
    local ok, res = pcall(spec.build, plugin)
    r.build_ok, r.build = ok, tostring(res)
    r.installed = require("rx_bridge.install").installed()
    r.tags = vim.uv.fs_stat(plugin.dir .. "/nvim/doc/tags") ~= nil
    vim.cmd("checkhealth rx_bridge")
    r.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    local f = io.open(%q, "w")
    f:write(vim.json.encode(r))
    f:close()
    vim.cmd("qa!")
  ]]):format(spec_file, clone, out), "\n"), script)
  local data = tmp .. "/lazy/data"
  local box = {}
  -- Not on 'runtimepath' here: the spec has to put it there.
  vim.system({ os.getenv("RX_TEST_NVIM"), "--headless", "--clean", "-i", "NONE", "-n", "-c", "luafile " .. script },
    { text = true, stdin = false, env = { XDG_DATA_HOME = data, RX_BRIDGE_RELEASE_URL = good_srv.url } },
    function(res)
      box.res = res
    end)
  T.wait(function() return box.res ~= nil end, "the child Neovim", 120000)
  local f = io.open(out, "r")
  T.ok(f, "the child wrote no result: " .. box.res.stdout .. box.res.stderr)
  local r = vim.json.decode(f:read("*a"))
  f:close()
  T.eq("rx-bridge/rx-bridge", r.url)
  T.eq(false, r.before, "the plugin is not reachable before config")
  T.eq({ 2, 2, 2 }, r.commands)
  T.eq(true, r.setup)
  T.eq(true, r.build_ok, tostring(r.build))
  local want = data .. "/nvim/rx-bridge/bin/rx-bridge"
  T.eq(want, r.installed)
  T.eq(sha256(bin), sha256(want))
  T.eq(true, r.tags, ":help rx_bridge works: the build wrote doc/tags")
  T.contains(r.health, "installed by :RxInstall: " .. want)
  T.eq(0, box.res.code, box.res.stderr)
end)

T.test(":help rx_bridge-setup shows the same lazy.nvim spec", function()
  local function code(s)
    return (s:gsub("%-%-[^\n]*", ""):gsub("%s+", ""))
  end
  local help = table.concat(vim.fn.readfile(T.nvim_dir .. "/doc/rx_bridge.txt"), "\n")
  local block = assert(help:match("With lazy%.nvim, from the repository.-: >lua\n(.-)\n<"), "no spec in the help")
  T.eq(code(readme_spec()), code(block))
end)

T.test("the lazy.nvim build raises when the install fails, so lazy.nvim reports it", function()
  vim.env.RX_BRIDGE_RELEASE_URL = bad_srv.url
  local ok, err = pcall(install.build)
  T.eq(false, ok)
  T.contains(err, "rx-bridge: install failed: checksum mismatch for " .. host.archive)
end)

T.run()

-- :RxInstall with the plugin's folder linked into pack/*/start (as
-- :help rx_bridge-setup says: "put (or link)"): it finds its checkout
-- through the link and builds from it when the download fails; a failed
-- install says why in one message, once. Each case runs in a child
-- Neovim that loads the plugin the way a user's does, from the package.
local T = require("tests.helpers")

local tmp = assert(os.getenv("RX_TEST_TMP"))
local repo = vim.fs.dirname(T.nvim_dir)

-- A child Neovim loading the plugin from pack/rx/start/rx_bridge (a link
-- to plugin_dir), running :RxInstall; returns the notifications and result.
local function child_install(name, plugin_dir, env)
  local site = tmp .. "/" .. name .. "/site"
  vim.fn.mkdir(site .. "/pack/rx/start", "p")
  assert(vim.uv.fs_symlink(plugin_dir, site .. "/pack/rx/start/rx_bridge"))
  local out = tmp .. "/" .. name .. "/out.json"
  local script = tmp .. "/" .. name .. "/child.lua"
  T.write(script, ([[
local notes = {}
vim.notify = function(msg, level) notes[#notes + 1] = { msg = msg, level = level or vim.log.levels.INFO } end
local ok, err = pcall(vim.cmd, "RxInstall")
if not ok then notes[#notes + 1] = { msg = "error: " .. tostring(err), level = 4 } end
local install = require("rx_bridge.install")
vim.wait(120000, function() return not install.is_running() end, 50)
local f = io.open(%q, "w")
f:write(vim.json.encode({ notes = notes, plugin_dir = install.plugin_dir, installed = install.installed() or vim.NIL }))
f:close()
vim.cmd("qa!")
]]):format(out))
  local res = vim.system({ os.getenv("RX_TEST_NVIM"), "--headless", "--clean", "-i", "NONE", "-n",
    "--cmd", "set packpath^=" .. site,
    "-c", "luafile " .. script,
  }, { text = true, stdin = false, timeout = 150000,
    env = vim.tbl_extend("force", {
      XDG_DATA_HOME = tmp .. "/" .. name .. "/data",
      RX_BRIDGE_RELEASE_URL = "http://127.0.0.1:9/down",
      GOPROXY = "off",
      GOFLAGS = "-mod=mod",
    }, env or {}) }):wait()
  assert(vim.uv.fs_stat(out), "the child wrote no result: " .. res.stdout .. res.stderr)
  return vim.json.decode(table.concat(vim.fn.readfile(out), "\n"))
end

local function count(notes, sub)
  local n = 0
  for _, x in ipairs(notes) do
    if x.msg:find(sub, 1, true) then
      n = n + 1
    end
  end
  return n
end

T.test("linked into pack/*/start: the download fails, it builds from its checkout", function()
  local r = child_install("linked", T.nvim_dir)
  T.eq(vim.uv.fs_realpath(T.nvim_dir), r.plugin_dir, "the plugin's folder, the link resolved")
  local all = table.concat(vim.tbl_map(function(n) return n.msg end, r.notes), "\n")
  T.contains(all, "building from source: go build ./cmd/rx-bridge in " .. vim.uv.fs_realpath(repo))
  T.ok(r.installed ~= vim.NIL, "installed: " .. all)
  T.eq(1, count(r.notes, "curl: (7)"), "curl's error, once:\n" .. all)
end)

T.test("a failed install says why in one message, once", function()
  -- The plugin outside any checkout (a copy of nvim/): go install …@latest,
  -- which cannot fetch with GOPROXY=off.
  local copy = tmp .. "/copy/rx_bridge"
  vim.fn.mkdir(copy, "p")
  vim.system({ "cp", "-r", T.nvim_dir .. "/lua", T.nvim_dir .. "/plugin", copy }):wait()
  local r = child_install("failing", copy)
  local all = table.concat(vim.tbl_map(function(n) return n.msg end, r.notes), "\n")
  T.eq(vim.NIL, r.installed)
  local errors = vim.tbl_filter(function(n) return n.level >= vim.log.levels.WARN end, r.notes)
  T.eq(1, #errors, "one warning or error:\n" .. all)
  T.eq(1, count(r.notes, "curl: (7)"), "curl's error, once:\n" .. all)
  T.contains(errors[1].msg, "install failed")
  T.ok(not errors[1].msg:find("\n"), "one line (no hit-enter prompt): " .. errors[1].msg)
end)

T.run()

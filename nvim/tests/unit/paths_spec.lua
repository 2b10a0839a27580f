-- Path and program-name logic on Windows, simulated here (paths.windows)
-- since the tests run on Linux, and on Unix.
local T = require("tests.helpers")
local paths = require("rx_bridge.paths")

T.capture_notify()

local function on_windows(fn)
  return function()
    paths.windows = true
    local ok, err = pcall(fn)
    paths.windows = false
    if not ok then
      error(err, 0)
    end
  end
end

T.test("Windows paths: backslashes, drive letter case, dots and trailing slashes", on_windows(function()
  for _, c in ipairs({
    { [[c:\Users\me\proj\]], "C:/Users/me/proj" },
    { [[C:\Users\me\.\proj\src\..]], "C:/Users/me/proj" },
    { "d:/work//x", "D:/work/x" },
    { [[C:\]], "C:/" },
    { [[\\server\share\dir\]], "//server/share/dir" },
  }) do
    T.eq(c[2], paths.normalize(c[1]), c[1])
  end
end))

T.test("Windows paths: parents stop at the drive and the share", on_windows(function()
  T.eq("C:/Users/me", paths.parent("C:/Users/me/proj"))
  T.eq("C:/", paths.parent("C:/Users"))
  T.eq(nil, paths.parent("C:/"))
  T.eq("//server/share", paths.parent("//server/share/dir"))
  T.eq(nil, paths.parent("//server/share"))
end))

T.test("Windows paths: inside-a-folder ignores case, not prefixes of names", on_windows(function()
  T.eq(true, paths.is_under("C:/Users/Me/Proj/src", "c:/users/me/proj"))
  T.eq(true, paths.is_under("C:/x", "C:/"))
  T.eq(false, paths.is_under("C:/Users/me/project2", "C:/Users/me/project"))
  T.eq(false, paths.is_under("D:/Users/me/proj", "C:/Users/me/proj"))
end))

T.test("Windows paths: the root search walks up to the drive", on_windows(function()
  local present = { ["C:/Users/me/proj/.git"] = true, ["C:/.hg"] = true }
  local asked = {}
  local function exists(p)
    asked[#asked + 1] = p
    return present[p] == true
  end
  T.eq("C:/Users/me/proj", paths.find_root([[C:\Users\me\proj\src\pkg]], { ".git" }, exists))
  T.eq("C:/", paths.find_root("C:/Users/me/other", { ".hg" }, exists))
  asked = {}
  T.eq(nil, paths.find_root("D:/a", { ".git" }, exists))
  T.eq({ "D:/a/.git", "D:/.git" }, asked)
end))

T.test("Unix paths: backslashes are file name characters, the search ends at /", function()
  T.eq([[/tmp/a\b]], paths.normalize([[/tmp/a\b/]]))
  T.eq(nil, paths.parent("/"))
  T.eq("/", paths.parent("/tmp"))
  T.eq(false, paths.is_under("/Tmp/x", "/tmp"))
  local asked = {}
  T.eq(nil, paths.find_root("/a/b", { ".git" }, function(p)
    asked[#asked + 1] = p
    return false
  end))
  T.eq({ "/a/b/.git", "/a/.git", "/.git" }, asked)
end)

T.test("program names: .exe and what counts as a path", function()
  T.eq("rx-bridge", paths.exe("rx-bridge"))
  T.eq(false, paths.is_path([[C:\tools\rx-bridge]]))
  on_windows(function()
    T.eq("rx-bridge.exe", paths.exe("rx-bridge"))
    T.eq("rx-bridge.EXE", paths.exe("rx-bridge.EXE"))
    T.eq(true, paths.is_path([[C:\tools\rx-bridge]]))
    T.eq(true, paths.is_path([[tools\rx-bridge]]))
    T.eq(true, paths.is_path("C:rx-bridge"))
    T.eq(false, paths.is_path("rx-bridge"))
  end)()
end)

T.test("Windows: a root from root_dir is normalized, and its workspace URI has the drive", on_windows(function()
  local config = require("rx_bridge.config")
  assert(config.set({ root_dir = function() return [[c:\Users\me\my proj\]] end, autostart = false }))
  local client = require("rx_bridge.client")
  local root = client.root_for(0)
  T.eq("C:/Users/me/my proj", root)
  local cfg = client.build(root)
  T.eq({ { uri = "file:///C:/Users/me/my%20proj", name = "C:/Users/me/my proj" } }, cfg.workspace_folders)
  T.eq([[C:\Users\me\my proj]], vim.uri_to_fname(cfg.workspace_folders[1].uri))
  assert(config.set({}))
end))

T.test("Windows: a missing program given as a path is not said to be looked up on $PATH", on_windows(function()
  local config = require("rx_bridge.config")
  local client = require("rx_bridge.client")
  assert(config.set({ cmd = { [[C:\tools\rx-bridge-missing]], "serve" } }))
  local msg = client.missing_binary()
  T.contains(msg, [[cannot start "C:\\tools\\rx-bridge-missing": it is not an executable. Install it with :RxInstall]])
  assert(config.set({ cmd = { "rx-bridge-missing", "serve" } }))
  T.contains(client.missing_binary(), "it is not an executable on $PATH")
  assert(config.set({}))
end))

T.test("without cmd the program :RxInstall installed is used: rx-bridge.exe on Windows", function()
  local config = require("rx_bridge.config")
  local install = require("rx_bridge.install")
  assert(config.set({}))
  T.eq("rx-bridge", config.program(), "nothing installed yet")
  T.eq(vim.fn.stdpath("data") .. "/rx-bridge/bin/rx-bridge", install.bin_path())
  on_windows(function()
    local exe = vim.fn.stdpath("data") .. "/rx-bridge/bin/rx-bridge.exe"
    T.eq(exe, install.bin_path())
    vim.fn.mkdir(vim.fs.dirname(exe), "p")
    vim.fn.writefile({ "#!/bin/sh", "exit 0" }, exe)
    vim.uv.fs_chmod(exe, 493)
    T.eq(exe, config.program())
    T.eq({ exe, "serve" }, config.serve_cmd())
    T.eq(exe, require("rx_bridge.client").build("C:/p").cmd[1])
    -- A configured cmd wins.
    assert(config.set({ cmd = { "my-bridge", "serve", "--x" } }))
    T.eq({ "my-bridge", "serve", "--x" }, config.serve_cmd())
    assert(config.set({}))
    os.remove(exe)
  end)()
  T.eq("rx-bridge", config.program(), "the Unix name is not the .exe")
end)

T.run()

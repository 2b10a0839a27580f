-- The installer's decisions: which archive for which machine, reading
-- SHA256SUMS and the hashing tools' output, which tools to run, and how to
-- build from source. The downloads themselves: tests/e2e/install_spec.lua.
local T = require("tests.helpers")
local install = require("rx_bridge.install")

local real_executable = install.executable

-- Pretends only the named programs exist.
local function only(...)
  local set = {}
  for _, n in ipairs({ ... }) do
    set[n] = true
  end
  install.executable = function(name)
    return set[name] == true
  end
end

T.test("uname maps to the release archive of the layout", function()
  for _, c in ipairs({
    { "Linux", "x86_64", "rx-bridge_linux_amd64.tar.gz", "rx-bridge" },
    { "Linux", "aarch64", "rx-bridge_linux_arm64.tar.gz", "rx-bridge" },
    { "Darwin", "arm64", "rx-bridge_darwin_arm64.tar.gz", "rx-bridge" },
    { "Darwin", "x86_64", "rx-bridge_darwin_amd64.tar.gz", "rx-bridge" },
    { "Windows_NT", "x86_64", "rx-bridge_windows_amd64.zip", "rx-bridge.exe" },
    { "Windows_NT", "ARM64", "rx-bridge_windows_arm64.zip", "rx-bridge.exe" },
    { "MINGW64_NT-10.0-19045", "x86_64", "rx-bridge_windows_amd64.zip", "rx-bridge.exe" },
  }) do
    local p = assert(install.platform({ sysname = c[1], machine = c[2] }))
    T.eq(c[3], p.archive, c[1] .. " " .. c[2])
    T.eq(c[3]:gsub("%.tar%.gz$", ""):gsub("%.zip$", ""), p.folder)
    T.eq(c[4], p.exe)
  end
  local p, err = install.platform({ sysname = "FreeBSD", machine = "amd64" })
  T.eq(nil, p)
  T.contains(err, "there is no release archive for FreeBSD on amd64")
  p, err = install.platform({ sysname = "Linux", machine = "riscv64" })
  T.eq(nil, p)
  T.contains(err, "Linux on riscv64")
end)

T.test("the release URL comes from RX_BRIDGE_RELEASE_URL, else GitHub's latest release", function()
  vim.env.RX_BRIDGE_RELEASE_URL = nil
  T.eq("https://github.com/rx-bridge/rx-bridge/releases/latest/download", install.base_url())
  vim.env.RX_BRIDGE_RELEASE_URL = "http://127.0.0.1:8080/rel/"
  T.eq("http://127.0.0.1:8080/rel", install.base_url())
  vim.env.RX_BRIDGE_RELEASE_URL = nil
end)

local A = ("a"):rep(64)
local B = ("0123456789ABCDEF"):rep(4)

T.test("SHA256SUMS: the entry of the archive, or why there is none", function()
  local sums = table.concat({
    A .. "  rx-bridge-linux-x64.vsix",
    B .. "  rx-bridge_linux_amd64.tar.gz",
    ("c"):rep(64) .. " *rx-bridge_windows_amd64.zip\r",
    "abc  rx-bridge_darwin_arm64.tar.gz",
  }, "\n")
  T.eq(B:lower(), install.sum_for(sums, "rx-bridge_linux_amd64.tar.gz"))
  T.eq(("c"):rep(64), install.sum_for(sums, "rx-bridge_windows_amd64.zip"), "binary-mode entry, CRLF")
  T.eq({ nil, "SHA256SUMS has no entry for rx-bridge_linux_arm64.tar.gz" },
    { install.sum_for(sums, "rx-bridge_linux_arm64.tar.gz") })
  T.eq({ nil, "SHA256SUMS has a malformed entry for rx-bridge_darwin_arm64.tar.gz" },
    { install.sum_for(sums, "rx-bridge_darwin_arm64.tar.gz") })
  T.eq(nil, install.sum_for(sums, "rx-bridge_linux_amd64.tar"), "no prefix match")
  T.eq(nil, install.sum_for("<html>Not Found</html>", "rx-bridge_linux_amd64.tar.gz"))
end)

T.test("the hash is read from sha256sum, shasum, certutil and Get-FileHash output", function()
  T.eq(A, install.parse_hash(A .. "  /tmp/x/rx-bridge_linux_amd64.tar.gz\n"))
  T.eq(A, install.parse_hash(A .. " *x.zip\n"))
  -- certutil, recent and old (hex in spaced pairs) Windows.
  T.eq(B:lower(), install.parse_hash("SHA256 hash of C:\\t\\x.zip:\r\n" .. B:lower() .. "\r\nCertUtil: -hashfile command completed successfully.\r\n"))
  local spaced = B:lower():gsub("(%x%x)", "%1 ")
  T.eq(B:lower(), install.parse_hash("SHA256 hash of file x.zip:\r\n" .. spaced .. "\r\nCertUtil: -hashfile command completed successfully.\r\n"))
  T.eq(B:lower(), install.parse_hash(B .. "\r\n"), "Get-FileHash prints upper case")
  T.eq(nil, install.parse_hash("sha256sum: x: No such file or directory\n"))
  T.eq(nil, install.parse_hash(("a"):rep(63) .. "  x\n"))
end)

T.test("tools are picked by what is installed", function()
  only("sha256sum", "shasum", "certutil")
  T.eq({ "sha256sum", "f" }, install.hasher("f").cmd)
  only("shasum")
  T.eq({ "shasum", "-a", "256", "f" }, install.hasher("f").cmd)
  only("certutil", "powershell")
  T.eq({ "certutil", "-hashfile", "C:/t/f.zip", "SHA256" }, install.hasher("C:/t/f.zip").cmd)
  only("powershell")
  local h = install.hasher("C:/t/it's.zip")
  T.eq("powershell", h.cmd[1])
  T.eq({ RX_HASH_FILE = "C:/t/it's.zip" }, h.env, "the path is not quoted into the command")
  only()
  T.eq(nil, install.hasher("f"))

  only("curl", "wget")
  T.eq({ "curl", "-fsSL", "--retry", "2", "--connect-timeout", "20", "-o", "out", "http://h/x" }, install.downloader("http://h/x", "out"))
  only("wget")
  T.eq({ "wget", "-q", "-O", "out", "http://h/x" }, install.downloader("http://h/x", "out"))
  only()
  T.eq(nil, install.downloader("http://h/x", "out"))

  only("tar", "unzip")
  T.eq({ "tar", "-xzf", "a.tar.gz", "-C", "d" }, install.extractor("a.tar.gz", "d"))
  T.eq({ "unzip", "-q", "-o", "a.zip", "-d", "d" }, install.extractor("a.zip", "d"))
  only("tar")
  T.eq({ "tar", "-xf", "a.zip", "-C", "d" }, install.extractor("a.zip", "d"), "Windows' tar reads zip")
  only()
  T.eq({ nil, "neither unzip nor tar is installed to unpack a.zip" }, { install.extractor("a.zip", "d") })
  install.executable = real_executable
end)

T.test("from source: go build in the plugin's own rx-bridge checkout, else go install @latest", function()
  local repo = vim.fs.dirname(T.nvim_dir)
  T.eq(repo, install.repo_of(T.nvim_dir))
  local b = install.source_build(T.nvim_dir, "/tmp/out")
  T.eq({ "go", "build", "-o", "/tmp/out/rx-bridge", "./cmd/rx-bridge" }, b.cmd)
  T.eq(repo, b.cwd)

  -- A plugin folder copied elsewhere (a plugin manager's clone of nvim/ alone).
  local tmp = os.getenv("RX_TEST_TMP")
  local other = tmp .. "/other/nvim"
  vim.fn.mkdir(other, "p")
  T.eq(nil, install.repo_of(other))
  -- Another Go module with a cmd/rx-bridge is not this one.
  vim.fn.mkdir(tmp .. "/other/cmd/rx-bridge", "p")
  vim.fn.writefile({ "module example.com/fork/rx-bridge", "", "go 1.26" }, tmp .. "/other/go.mod")
  T.eq(nil, install.repo_of(other))
  b = install.source_build(other, "/tmp/out", "/usr/local/go/bin/go")
  T.eq({ "/usr/local/go/bin/go", "install", "github.com/rx-bridge/rx-bridge/cmd/rx-bridge@latest" }, b.cmd)
  T.eq({ GOBIN = "/tmp/out" }, b.env)
  T.eq(nil, b.cwd)
end)

T.test(":RxInstall is defined and refuses an unknown source", function()
  T.capture_notify()
  T.eq(2, vim.fn.exists(":RxInstall"))
  T.eq({ "release", "source" }, vim.fn.getcompletion("RxInstall ", "cmdline"))
  vim.cmd("RxInstall nightly")
  T.contains(T.notes[1].msg, ':RxInstall takes release or source, not "nightly"')
  T.eq(vim.log.levels.ERROR, T.notes[1].level)
end)

T.run()

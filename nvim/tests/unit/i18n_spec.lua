-- The plugin's messages: every key in English and Simplified Chinese;
-- zh-CN picked by setup({ language }) or from v:lang / $LANG; the locale
-- sent to the bridge in initialize.
local T = require("tests.helpers")
local i18n = require("rx_bridge.i18n")

T.capture_notify()
T.stub_ui()

T.test("every message has both languages, with the same format directives", function()
  local missing = {}
  for _, lang in ipairs(i18n.LANGUAGES) do
    for k in pairs(i18n.messages.en) do
      if type(i18n.messages[lang][k]) ~= "string" or i18n.messages[lang][k] == "" then
        missing[#missing + 1] = lang .. ": " .. k
      end
    end
  end
  for k in pairs(i18n.messages["zh-CN"]) do
    if i18n.messages.en[k] == nil then
      missing[#missing + 1] = "en: " .. k
    end
  end
  T.eq({}, missing)
  for k, en in pairs(i18n.messages.en) do
    local function directives(s)
      local out = {}
      for d in s:gmatch("%%[%-%d%.]*[sdqf%%]") do
        out[#out + 1] = d
      end
      return out
    end
    T.eq(directives(en), directives(i18n.messages["zh-CN"][k]), k)
  end
  T.ok(vim.tbl_count(i18n.messages.en) > 100, "the plugin's messages are in the table: " .. vim.tbl_count(i18n.messages.en))
end)

T.test("no key mapping or autocommand has an English desc literal: each goes through i18n", function()
  local found = {}
  for _, f in ipairs(vim.fn.glob(T.nvim_dir .. "/lua/rx_bridge/*.lua", false, true)) do
    for n, l in ipairs(vim.fn.readfile(f)) do
      -- A literal is allowed only as the "rx-bridge: " prefix of a message.
      if l:find("desc = \"[^\"]*%a") and not l:find("desc = \"rx%-bridge: \" %.%. t_%(") then
        found[#found + 1] = vim.fn.fnamemodify(f, ":t") .. ":" .. n .. ": " .. l
      end
    end
  end
  T.eq({}, found)
end)

T.test(":Rx setup completes remove-key, and remove-key the providers that have a key", function()
  assert(require("rx_bridge").setup({ cmd = { T.fake_bin, "serve" }, autostart = false, language = "en" }))
  T.eq({ "remove-key" }, vim.fn.getcompletion("Rx setup ", "cmdline"))
  T.eq({ "remove-key" }, vim.fn.getcompletion("Rx setup rem", "cmdline"))
  T.eq({ "deepseek", "openrouter" }, vim.fn.getcompletion("Rx setup remove-key ", "cmdline"))
  T.eq({ "openrouter" }, vim.fn.getcompletion("Rx setup remove-key op", "cmdline"))
  T.eq({}, vim.fn.getcompletion("Rx setup remove-key deepseek ", "cmdline"))
end)

T.test("auto picks zh-CN from zh_CN, zh-CN and zh_SG locales, else English", function()
  for loc, want in pairs({ ["zh_CN.UTF-8"] = true, ["zh-CN"] = true, ["zh_SG"] = true, ["zh_TW.UTF-8"] = false,
    ["en_US.UTF-8"] = false, ["de_DE"] = false }) do
    T.eq(want, i18n.is_zh_cn(loc), loc)
  end
end)

T.test("auto: a Neovim started in a zh_CN or zh_SG locale speaks Chinese, in en_US English", function()
  for loc, want in pairs({ ["zh_CN.UTF-8"] = "zh-CN", ["zh_SG.UTF-8"] = "zh-CN", ["en_US.UTF-8"] = "en" }) do
    local out = os.getenv("RX_TEST_TMP") .. "/lang-" .. loc
    local res = T.child_nvim(([[
local f = io.open(%q, "w")
f:write(require("rx_bridge.i18n").lang(), "|", require("rx_bridge.i18n").t("sessions.delete"))
f:close()
vim.cmd("qa!")
]]):format(out), { LC_ALL = loc, LANG = loc, LC_MESSAGES = loc })
    T.eq(0, res.code, res.stderr)
    local got = table.concat(vim.fn.readfile(out), "")
    T.eq(want .. "|" .. (want == "zh-CN" and "删除" or "Delete"), got, loc)
  end
end)

T.test("with language zh-CN the messages come out in Chinese; plugin text stays as written", function()
  assert(require("rx_bridge").setup({ cmd = { T.fake_bin, "serve" }, autostart = false, language = "zh-CN" }))
  T.eq("zh-CN", i18n.lang())
  -- :Rx setup's first question.
  T.answers.select = { false }
  vim.cmd("Rx setup")
  T.wait(function() return #T.ui.select >= 1 end, "the provider question")
  T.eq("模型服务商", T.ui.select[1].prompt)
  T.contains(table.concat(T.ui.select[1].shown, "\n"), "任意 OpenAI 兼容服务")
  -- A chat: its header and help line; the bridge got the locale.
  local client = T.start()
  T.eq("zh-CN", T.received(client, "initialize")[1].params.locale)
  local chat
  require("rx_bridge.chat").open("plugin/echo-provider/echo/small", function(c) chat = c end)
  T.wait(function() return chat ~= nil end, "the chat")
  vim.cmd("stopinsert")
  local text = T.buf_text(chat.buf)
  T.contains(text, "Reasonix 对话 · plugin/echo-provider/echo/small")
  T.contains(text, "<CR> 发送")
  -- A plugin's action label is shown as the plugin wrote it.
  T.answers.select = { false }
  local n = #T.ui.select
  vim.cmd("Rx actions")
  T.wait(function() return #T.ui.select > n end, "the action picker")
  T.contains(table.concat(T.ui.select[n + 1].shown, "\n"), "Greet someone")
  T.eq("Reasonix 动作或命令", T.ui.select[n + 1].prompt)
  -- Key mappings say what they do in Chinese, and so does :Rx log.
  T.eq("取消正在运行的这一轮", vim.fn.maparg("<C-c>", "n", false, true).desc)
  T.eq("切换此对话的模型（从下一轮起）", vim.fn.maparg("gm", "n", false, true).desc)
  local log = table.concat(require("rx_bridge.log").lines(), "\n")
  T.contains(log, "bridge: 已为 ")
  T.contains(log, "chat: 会话 ")
  T.ok(not log:find("started for", 1, true), log)
  -- English when asked for.
  assert(require("rx_bridge").setup({ cmd = { T.fake_bin, "serve" }, autostart = false, language = "en" }))
  T.eq("Reasonix action or command", i18n.t("actions.pick_prompt"))
end)

T.run()

-- The plugin's own words, in English and Simplified Chinese. Every message
-- the plugin shows is a key of M.messages; M.t(key, ...) formats it in the
-- language of setup({ language = "auto" | "en" | "zh-CN" }) ("auto": zh-CN
-- when v:lang, $LC_ALL, $LC_MESSAGES or $LANG says zh_CN, zh-CN, zh_SG or
-- zh-Hans, else English). Text a plugin supplies is shown as it wrote it.
local M = {}

M.LANGUAGES = { "en", "zh-CN" }

--- Whether a locale name ("zh_CN.UTF-8", "zh-CN", "zh_SG") means zh-CN.
function M.is_zh_cn(loc)
  if type(loc) ~= "string" then
    return false
  end
  loc = loc:lower():gsub("_", "-")
  return loc:find("^zh%-cn") ~= nil or loc:find("^zh%-sg") ~= nil or loc:find("^zh%-hans") ~= nil
end

--- The language "auto" picks: v:lang, $LC_ALL, $LC_MESSAGES, $LANG.
function M.detect()
  local candidates = { vim.v.lang, vim.env.LC_ALL, vim.env.LC_MESSAGES, vim.env.LANG }
  for _, loc in ipairs(candidates) do
    if type(loc) == "string" and loc ~= "" and loc ~= "C" and loc ~= "POSIX" then
      return M.is_zh_cn(loc) and "zh-CN" or "en"
    end
  end
  return "en"
end

--- The language in use: "en" or "zh-CN".
function M.lang()
  local ok, config = pcall(require, "rx_bridge.config")
  local want = ok and config.values.language or "auto"
  if want == "en" or want == "zh-CN" then
    return want
  end
  return M.detect()
end

--- The locale sent to the bridge (initialize's `locale`).
function M.locale()
  return M.lang()
end

M.messages = {
  en = {},
  ["zh-CN"] = {},
}

local function def(key, en, zh)
  M.messages.en[key] = en
  M.messages["zh-CN"][key] = zh
end
M.def = def

--- The message key in the current language, formatted with the arguments
--- (string.format). An unknown key is a programming error.
function M.t(key, ...)
  local lang = M.lang()
  local s = M.messages[lang][key] or M.messages.en[key]
  if s == nil then
    error("rx_bridge.i18n: no message " .. tostring(key), 2)
  end
  if select("#", ...) > 0 then
    return s:format(...)
  end
  return s
end

-- :Rx setup
def("setup.provider_prompt", "Model provider", "模型服务商")
def("setup.p.deepseek", "DeepSeek", "DeepSeek（深度求索）")
def("setup.p.openai", "OpenAI", "OpenAI")
def("setup.p.openrouter", "OpenRouter", "OpenRouter")
def("setup.p.ollama", "Ollama on this machine", "本机 Ollama")
def("setup.p.llamacpp", "llama.cpp server on this machine", "本机 llama.cpp 服务")
def("setup.p.vllm", "vLLM on this machine", "本机 vLLM")
def("setup.p.custom", "Any OpenAI-compatible server (its URL)", "任意 OpenAI 兼容服务（填写 URL）")
def("setup.url_prompt", "The server's API root (e.g. http://127.0.0.1:8080/v1): ",
  "服务的 API 根地址（例如 http://127.0.0.1:8080/v1）：")
def("setup.key_prompt", "API key", "API 密钥")
def("setup.key.type", "Type the key (stored in a file only you can read)", "输入密钥（保存在只有你能读的文件里）")
def("setup.key.env", "Read it from an environment variable", "从环境变量读取")
def("setup.key.none", "No key (a local server)", "不用密钥（本机服务）")
def("setup.key_secret_prompt", "API key (not shown): ", "API 密钥（不显示）：")
def("setup.env_prompt", "Name of the environment variable holding the key: ", "存放密钥的环境变量名：")
def("setup.env_bad", "%q is not the name of an environment variable (letters, digits, _)",
  "%q 不是环境变量名（只能有字母、数字和 _）")
def("setup.no_key", "no key entered; nothing changed", "没有输入密钥；未做任何更改")
def("setup.listing", "asking %s for its models…", "正在向 %s 查询模型列表…")
def("setup.model_prompt", "Default model", "默认模型")
def("setup.context", "context %s", "上下文 %s")
def("setup.no_models", "the server lists no models", "该服务没有列出任何模型")
def("setup.exists_prompt", "config.toml already has a provider %q", "config.toml 里已有服务商 %q")
def("setup.replace", "Replace it", "替换它")
def("setup.cancel", "Cancel", "取消")
def("setup.failed", "setup failed: %s", "设置失败：%s")
def("setup.done", "configured %s; default model %s", "已配置 %s；默认模型 %s")
def("setup.key_stored", "the key is in %s (only you can read it)", "密钥保存在 %s（只有你能读）")
def("setup.key_env_note", "the key is read from $%s; set it where Neovim runs", "密钥从 $%s 读取；请在运行 Neovim 的环境里设置它")
def("setup.restarted", "the bridge restarted; :RxChat uses %s", "桥接已重启；:RxChat 将使用 %s")
def("setup.cancelled", "setup cancelled; nothing changed", "已取消设置；未做任何更改")

-- :Rx install
def("install.source_prompt", "Plugin folder or git source: ", "插件文件夹或 git 源：")
def("install.previewing", "reading %s…", "正在读取 %s…")
def("install.preview_head", "What installing this plugin means (rx-bridge plugin install --dry-run):",
  "安装此插件意味着什么（rx-bridge plugin install --dry-run）：")
def("install.confirm_prompt", "Install this plugin? It runs with FULL TRUST as shown",
  "安装此插件吗？它将如上所示以完全信任（FULL TRUST）运行")
def("install.yes", "Install it", "安装")
def("install.no", "Do not install", "不安装")
def("install.failed", "cannot install %s: %s", "无法安装 %s：%s")
def("install.not_installed", "%s was not installed", "未安装 %s")
def("install.done", "installed %s", "已安装 %s")
def("install.reloaded", "plugins reloaded (generation %s)", "插件已重新加载（第 %s 代）")

-- shared
def("cli.missing", "cannot run %q: %s", "无法运行 %q：%s")

return M

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

-- What "auto" found, read once (messages are also made in fast event
-- contexts, such as an LSP client's on_exit, where the environment cannot
-- be read).
local detected

--- The language in use: "en" or "zh-CN".
function M.lang()
  local ok, config = pcall(require, "rx_bridge.config")
  local want = ok and config.values.language or "auto"
  if want == "en" or want == "zh-CN" then
    return want
  end
  if detected == nil then
    if vim.in_fast_event() then
      return "en"
    end
    detected = M.detect()
  end
  return detected
end

if not vim.in_fast_event() then
  detected = M.detect()
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

-- :RxChat
def("chat.header", "Reasonix chat · %s · session %s", "Reasonix 对话 · %s · 会话 %s")
def("chat.help", "<CR> sends the prompt line · <C-c> cancels the running turn · / lists the commands · gm switches the model · gu undoes the last turn's edits",
  "<CR> 发送提示行 · <C-c> 取消当前轮次 · / 列出命令 · gm 切换模型 · gu 撤销上一轮的修改")
def("chat.more_lines", "    … %d more lines", "    … 还有 %d 行")
def("chat.subagent_working", "%s is working…", "%s 正在工作…")
def("chat.permission_by", "permission %s by %s", "权限 %s（由 %s）")
def("chat.permission", "permission: %s", "权限：%s")
def("chat.permission_no_options", "no options offered; denied", "没有可选项；已拒绝")
def("chat.permission_prompt", "Reasonix asks to run: %s", "Reasonix 请求运行：%s")
def("chat.permission_dismissed", "dismissed (denied)", "已关闭（拒绝）")
def("chat.stop.end_turn", "done", "完成")
def("chat.stop.cancelled", "cancelled", "已取消")
def("chat.stop.max_tokens", "stopped: max tokens (the answer was cut off)", "已停止：达到最大 token 数（回答被截断）")
def("chat.stop.max_turn_requests", "stopped: step limit reached (step_budget model requests)", "已停止：达到步数上限（step_budget 次模型请求）")
def("chat.stop.refusal", "stopped: refused (the model, or a plugin, declined)", "已停止：被拒绝（模型或插件拒绝了）")
def("chat.stop.other", "stopped: %s", "已停止：%s")
def("chat.usage", "%d tokens (%d in, %d out)", "%d 个 token（输入 %d，输出 %d）")
def("chat.usage_cached", "%d tokens (%d in, %d out, %d cached)", "%d 个 token（输入 %d，输出 %d，缓存命中 %d）")
def("chat.working", "working… %ds · <C-c> cancels", "工作中… %d 秒 · <C-c> 取消")
def("chat.queued", "queued: %s", "已排队：%s")
def("chat.next_prompt_attach", "with the next prompt: %s", "随下一条提示发送：%s")
def("chat.review_waiting", "%s waits for your review: :RxReview (then a/r a hunk, ga/gr all, q)",
  "%s 等待你审阅：:RxReview（然后 a/r 处理一处，ga/gr 全部，q 结束）")
def("chat.error", "error: %s", "错误：%s")
def("chat.new_file", "(new)", "（新建）")
def("chat.changed_files", "changed files (turn %s; gu or :RxUndoTurn undoes it):", "已修改的文件（第 %s 轮；gu 或 :RxUndoTurn 撤销）：")
def("chat.changed_files_undone", "changed files (turn %s; undone):", "已修改的文件（第 %s 轮；已撤销）：")
def("chat.undid", "undid turn %s: %d file(s) restored", "已撤销第 %s 轮：恢复了 %d 个文件")
def("chat.skipped", "skipped %s: %s", "跳过 %s：%s")
def("chat.undo_needs_chat", ":RxUndoTurn needs a chat (run it in the chat's buffer)", ":RxUndoTurn 需要一个对话（请在对话缓冲区中运行）")
def("chat.bridge_gone", "the bridge of this chat is gone", "此对话的桥接已不存在")
def("chat.bridge_gone_new", "the bridge of this chat is gone; :RxChat opens a new one", "此对话的桥接已不存在；:RxChat 可打开新对话")
def("chat.undo_failed", "undo: %s", "撤销：%s")
def("chat.not_sent", "%s (not sent)", "%s（未发送）")
def("chat.not_running_model", "the bridge of this chat is not running (the next prompt restarts it); the model is unchanged",
  "此对话的桥接没有运行（下一条提示会重启它）；模型未改变")
def("chat.not_running_mode", "the bridge of this chat is not running (the next prompt restarts it); the mode is unchanged",
  "此对话的桥接没有运行（下一条提示会重启它）；模式未改变")
def("chat.no_models", "no models known (:Rx models)", "没有已知的模型（:Rx models）")
def("chat.model_prompt", "Model for this chat (now %s)", "此对话的模型（当前 %s）")
def("chat.model_failed", "cannot switch the model: %s", "无法切换模型：%s")
def("chat.model_now", "model: %s", "模型：%s")
def("chat.model_next", "model: %s (from the next turn)", "模型：%s（从下一轮起）")
def("chat.plan_mode_note", "this session is in plan mode: the agent reads, searches and plans, and edits nothing (:RxChatMode normal switches it)",
  "此会话处于计划模式：智能体只阅读、搜索和规划，不做任何修改（:RxChatMode normal 切换回来）")
def("chat.mode_prompt", "Mode of this chat's session (plan: read, search and plan; no edits, no commands)",
  "此对话会话的模式（plan：阅读、搜索和规划；不修改，不执行命令）")
def("chat.mode_failed", "cannot switch the mode: %s", "无法切换模式：%s")
def("chat.mode_now", "mode: %s", "模式：%s")
def("chat.cancelling", "(cancelling…)", "（正在取消…）")
def("chat.add_not_file", ":RxChatAdd attaches lines of a file buffer, not of this one", ":RxChatAdd 只能附加文件缓冲区的行，不能附加这个缓冲区")
def("chat.name_a_model", "(name a model: :RxChat <model>; :Rx models lists them)", "（请指定模型：:RxChat <模型>；:Rx models 列出模型）")
def("chat.cannot_start", "cannot start a chat: %s", "无法开始对话：%s")
def("chat.cannot_resume", "cannot resume this session: %s", "无法恢复此会话：%s")
def("chat.cannot_resume_new", "cannot resume this session: %s; :RxChat opens a new chat", "无法恢复此会话：%s；:RxChat 可打开新对话")
def("chat.resumed", "resumed; the conversation goes on from here", "已恢复；对话从这里继续")
def("chat.bridge_exited_resume", "the bridge exited; the next prompt restarts it and resumes this session", "桥接已退出；下一条提示会重启它并恢复此会话")
def("chat.bridge_exited", "the bridge exited; :RxChat opens a new chat", "桥接已退出；:RxChat 可打开新对话")
def("chat.bridge_restarted", "the bridge restarted; session %s resumed on %s, its history kept", "桥接已重启；会话 %s 已在 %s 上恢复，历史保留")
def("chat.starting_bridge", "(starting the bridge and resuming the session…)", "（正在启动桥接并恢复会话…）")
def("chat.cannot_start_bridge", "cannot start the bridge: %s", "无法启动桥接：%s")
def("chat.attached", "attached: %s", "已附加：%s")

-- :Rx actions, plugins, models, reload
def("actions.not_started", "the plugins have not started yet (generation 0); see :Rx log", "插件尚未启动（第 0 代）；见 :Rx log")
def("actions.request_failed", "%s failed: %s", "%s 失败：%s")
def("actions.crashed", "%s: %s crashed; :Rx reload starts it again", "%s：%s 已崩溃；:Rx reload 可重新启动它")
def("actions.did_not_run", "%s did not run", "%s 没有运行")
def("actions.not_command", "%q is not a command; :Rx actions lists them", "%q 不是命令；:Rx actions 会列出所有命令")
def("actions.not_action", "%q is not an action name; actions look like /<plugin>:<action> (:Rx actions lists them)",
  "%q 不是动作名；动作的形式是 /<插件>:<动作>（:Rx actions 会列出它们）")
def("actions.card_bridge_gone", "the bridge of this card is gone", "这张卡片的桥接已不存在")
def("actions.none", "no plugin declares an action or command", "没有插件声明任何动作或命令")
def("actions.pick_prompt", "Reasonix action or command", "Reasonix 动作或命令")
def("actions.reload_failed", "reload failed: %s", "重新加载失败：%s")
def("actions.reloaded_warnings", "plugins reloaded (generation %s, %d warnings)", "插件已重新加载（第 %s 代，%d 条警告）")
def("actions.plugins_head", "rx-bridge plugins for %s (generation %d)", "%s 的 rx-bridge 插件（第 %d 代）")
def("actions.no_plugins", "No plugins installed in %s.", "%s 中没有安装插件。")
def("actions.no_models", "No models.", "没有模型。")
def("actions.models_head", "Models (<CR> opens a chat with the one under the cursor)", "模型（<CR> 用光标下的模型打开对话）")

-- :Rx sessions
def("sessions.no_prompt", "(no prompt yet)", "（还没有提示）")
def("sessions.just_now", "just now", "刚刚")
def("sessions.min_ago", "%d min ago", "%d 分钟前")
def("sessions.h_ago", "%d h ago", "%d 小时前")
def("sessions.days_ago", "%d days ago", "%d 天前")
def("sessions.resume", "Resume in a chat", "在对话中恢复")
def("sessions.rename", "Rename", "重命名")
def("sessions.delete", "Delete", "删除")
def("sessions.keep", "Keep", "保留")
def("sessions.title_prompt", "New title (empty: its first prompt): ", "新标题（留空：使用第一条提示）：")
def("sessions.rename_failed", "cannot rename the session: %s", "无法重命名会话：%s")
def("sessions.renamed", "session renamed to %q", "会话已重命名为 %q")
def("sessions.first_prompt", "(its first prompt)", "（它的第一条提示）")
def("sessions.delete_prompt", "Delete %q and its transcript? ", "删除 %q 及其记录？")
def("sessions.delete_failed", "cannot delete the session: %s", "无法删除会话：%s")
def("sessions.deleted", "deleted %q", "已删除 %q")
def("sessions.list_failed", "cannot list the sessions: %s", "无法列出会话：%s")
def("sessions.none", "no stored session in this workspace yet; :RxChat starts one", "此工作区还没有保存的会话；:RxChat 可开始一个")
def("sessions.pick_prompt", "Reasonix sessions: ", "Reasonix 会话：")

-- :Rx, :RxChat arguments
def("commands.no_args", ":Rx %s takes no arguments", ":Rx %s 不接受参数")
def("commands.not_kv", "%q is not key=value", "%q 不是 key=value 形式")
def("commands.chat_one_model", ":RxChat takes one model ref at most", ":RxChat 最多接受一个模型引用")

-- review of agent edits
def("review.none", "no edit waits for review", "没有等待审阅的修改")
def("review.wants", "Reasonix wants to change %s; review it in its tab (:RxReview)", "Reasonix 想要修改 %s；请在它的标签页中审阅（:RxReview）")
def("review.head", "Review: %s · a/r hunk · A/R file · ga/gr all · q finish (undecided = rejected)",
  "审阅：%s · a/r 一处 · A/R 整个文件 · ga/gr 全部 · q 结束（未决定的视为拒绝）")
def("review.bufname", "Reasonix review %d: %s", "Reasonix 审阅 %d：%s")
def("review.new_file", "(new file)", "（新文件）")

-- starting the bridge
def("client.not_bridge", "the server started by `cmd` is not rx-bridge serve", "`cmd` 启动的服务器不是 rx-bridge serve")
def("client.protocol", "rx-bridge speaks editor protocol version %s; this plugin speaks %d (update one of them)",
  "rx-bridge 使用编辑器协议版本 %s；本插件使用 %d（请更新其中一个）")
def("client.exited", "rx-bridge serve for %s exited with code %s (see :Rx log and :LspLog)", "%s 的 rx-bridge serve 已退出，退出码 %s（见 :Rx log 和 :LspLog）")
def("client.exited_early", "rx-bridge serve for %s exited with code %s before it initialized (see :Rx log and :LspLog)",
  "%s 的 rx-bridge serve 在初始化前退出，退出码 %s（见 :Rx log 和 :LspLog）")
def("client.missing", "cannot start %q: it is not an executable. Install it with :RxInstall (or `go install ./cmd/rx-bridge` in the rx-bridge repository) or set cmd in require(\"rx_bridge\").setup({ cmd = { \"/path/to/rx-bridge\", \"serve\" } })",
  "无法启动 %q：它不是可执行文件。请用 :RxInstall 安装（或在 rx-bridge 仓库中运行 `go install ./cmd/rx-bridge`），或在 require(\"rx_bridge\").setup({ cmd = { \"/path/to/rx-bridge\", \"serve\" } }) 中设置 cmd")
def("client.missing_path", "cannot start %q: it is not an executable on $PATH. Install it with :RxInstall (or `go install ./cmd/rx-bridge` in the rx-bridge repository) or set cmd in require(\"rx_bridge\").setup({ cmd = { \"/path/to/rx-bridge\", \"serve\" } })",
  "无法启动 %q：$PATH 中没有这个可执行文件。请用 :RxInstall 安装（或在 rx-bridge 仓库中运行 `go install ./cmd/rx-bridge`），或在 require(\"rx_bridge\").setup({ cmd = { \"/path/to/rx-bridge\", \"serve\" } }) 中设置 cmd")
def("client.cannot_start", "cannot start %s: %s", "无法启动 %s：%s")
def("client.no_init", "rx-bridge for %s did not initialize", "%s 的 rx-bridge 没有完成初始化")

-- cards, forms, crashes, questions
def("card.none", "no cards", "没有卡片")
def("card.pick_prompt", "Cards", "卡片")
def("card.new", "%s: card “%s” (:Rx cards shows it)", "%s：卡片“%s”（:Rx cards 可查看）")
def("handlers.form_failed", "submitting the form failed: %s", "提交表单失败：%s")
def("handlers.form_stale", "%s no longer takes this form (the plugins were reloaded)", "%s 不再接受此表单（插件已重新加载）")
def("handlers.crashed", "plugin %s crashed: %s\n:Rx reload starts it again (:Rx plugins shows why); chats on other models go on",
  "插件 %s 崩溃了：%s\n:Rx reload 可重新启动它（:Rx plugins 显示原因）；其他模型上的对话不受影响")
def("ui.yes", "Yes", "是")
def("ui.no", "No", "否")
def("ui.default", "(default)", "（默认）")
def("picker.done", "Done (%d selected)", "完成（已选 %d 项）")
def("context.no_file", "#file:%s: no such file in %s", "#file:%s：%s 中没有这个文件")
def("context.not_file", "#file:%s: not a file (%s)", "#file:%s：不是文件（%s）")
def("context.unreadable", "#file:%s: cannot be read", "#file:%s：无法读取")
def("context.no_buffer", "#buffer: the chat was not opened from a file buffer", "#buffer：此对话不是从文件缓冲区打开的")
def("context.needs_path", "#file: needs a path (#file:<path>, relative to %s)", "#file: 需要路径（#file:<路径>，相对于 %s）")
def("init.invalid_option", "invalid setup option: %s", "无效的 setup 选项：%s")
def("log.empty", "(nothing logged yet)", "（还没有日志）")

-- :RxInstall
def("install.bad_arg", ":RxInstall takes release or source, not %q", ":RxInstall 只接受 release 或 source，而不是 %q")
def("install.no_archive", "there is no release archive for %s on %s (releases cover Linux, macOS and Windows on amd64 and arm64)",
  "没有适用于 %s（%s）的发布包（发布包覆盖 amd64 和 arm64 上的 Linux、macOS 和 Windows）")
def("install.sums_malformed", "SHA256SUMS has a malformed entry for %s", "SHA256SUMS 中 %s 的条目格式错误")
def("install.sums_missing", "SHA256SUMS has no entry for %s", "SHA256SUMS 中没有 %s 的条目")
def("install.no_unzip", "neither unzip nor tar is installed to unpack %s", "没有安装 unzip 或 tar，无法解压 %s")
def("install.no_tar", "tar is not installed to unpack %s", "没有安装 tar，无法解压 %s")
def("install.no_curl", "neither curl nor wget is installed to download %s", "没有安装 curl 或 wget，无法下载 %s")
def("install.downloading", "downloading %s", "正在下载 %s")
def("install.cannot_download", "cannot download %s: %s", "无法下载 %s：%s")
def("install.sums_refused", "%s (%s/SHA256SUMS); refusing to install it", "%s（%s/SHA256SUMS）；拒绝安装")
def("install.no_hasher", "no sha256sum, shasum, certutil or PowerShell to verify %s; refusing to install it",
  "没有 sha256sum、shasum、certutil 或 PowerShell 来校验 %s；拒绝安装")
def("install.hash_failed", "cannot compute the SHA-256 of %s with %s: %s", "无法用 %s 计算 %s 的 SHA-256：%s")
def("install.mismatch", "checksum mismatch for %s: SHA256SUMS says %s, the download has %s; refusing to install it",
  "%s 的校验和不符：SHA256SUMS 为 %s，下载的文件为 %s；拒绝安装")
def("install.verified", "verified %s (sha256 %s)", "已校验 %s（sha256 %s）")
def("install.cannot_unpack", "cannot unpack %s: %s", "无法解压 %s：%s")
def("install.archive_lacks", "%s has no %s/%s", "%s 中没有 %s/%s")
def("install.no_go", "`go` is not on $PATH to build rx-bridge from source", "$PATH 中没有 `go`，无法从源码构建 rx-bridge")
def("install.building", "building from source: %s", "从源码构建：%s")
def("install.build_failed", "%s failed: %s", "%s 失败：%s")
def("install.no_tmp", "cannot create a temporary folder in %s: %s", "无法在 %s 中创建临时文件夹：%s")
def("install.fallback", "the release cannot be downloaded; building from source instead", "无法下载发布包；改为从源码构建")
def("install.running", "an install is already running", "已有一个安装正在进行")
def("install.installed", "installed %s (%s, %s%s)", "已安装 %s（%s，%s%s）")
def("install.install_failed", "install failed: %s", "安装失败：%s")
def("install.unfinished", "the install did not finish", "安装没有完成")
def("install.does_not_run", "the new rx-bridge does not run (`rx-bridge version`: %s); nothing installed",
  "新的 rx-bridge 无法运行（`rx-bridge version`：%s）；未安装任何东西")
def("install.cannot_move", "cannot move the new rx-bridge to %s: %s", "无法把新的 rx-bridge 移到 %s：%s")
def("install.how_release", "from the release archive", "来自发布包")
def("install.how_source", "built from source", "从源码构建")
def("install.and", "%s; and %s", "%s；并且 %s")

-- :checkhealth rx_bridge
def("health.cli_exit", "`%s` exited with %d: %s", "`%s` 退出，退出码 %d：%s")
def("health.no_json", "`%s` printed no JSON", "`%s` 没有输出 JSON")
def("health.rt.full_trust", "FULL TRUST runtime", "完全信任（FULL TRUST）运行时")
def("health.rt.ignored", "runtime ignored (legacy manifest)", "运行时被忽略（旧式清单）")
def("health.rt.none", "no runtime", "无运行时")
def("health.rt.unknown", "manifest does not load (run `rx-bridge plugin doctor`)", "清单无法加载（运行 `rx-bridge plugin doctor`）")
def("health.nvim_old", "Neovim 0.10 or newer is required", "需要 Neovim 0.10 或更新版本")
def("health.installed", "installed by :RxInstall: %s", "由 :RxInstall 安装：%s")
def("health.installed_unused", "installed by :RxInstall: %s (not used: `cmd` is set)", "由 :RxInstall 安装：%s（未使用：已设置 `cmd`）")
def("health.none_installed", "none installed by :RxInstall (it would go to %s)", ":RxInstall 尚未安装（会安装到 %s）")
def("health.found", "found %s", "找到 %s")
def("health.no_version", "cannot read the version: %s", "无法读取版本：%s")
def("health.protocol_ok", "protocol major 1 (supported)", "协议主版本 1（受支持）")
def("health.protocol_bad", "protocol major %s; this plugin supports 1", "协议主版本 %s；本插件支持 1")
def("health.home", "home: %s", "主目录：%s")
def("health.home_default", "home: rx-bridge's default ($RX_BRIDGE_HOME, $XDG_CONFIG_HOME/rx-bridge or ~/.config/rx-bridge)",
  "主目录：rx-bridge 的默认值（$RX_BRIDGE_HOME、$XDG_CONFIG_HOME/rx-bridge 或 ~/.config/rx-bridge）")
def("health.no_list", "cannot list plugins: %s", "无法列出插件：%s")
def("health.no_plugins", "no plugins installed", "没有安装插件")
def("health.running", "running", "运行中")
def("health.not_running", "not running", "未运行")
def("health.command", "; command %s", "；命令 %s")
def("health.crashed_advice", ":Rx reload starts it again; :Rx plugins shows its stderr tail", ":Rx reload 可重新启动它；:Rx plugins 显示它的 stderr 末尾")
def("health.start_failed", "start failed: %s", "启动失败：%s")
def("health.full_trust", "runs outside any sandbox with your environment; :Rx plugins shows its FULL TRUST block",
  "在任何沙箱之外、以你的环境运行；:Rx plugins 显示它的 FULL TRUST 信息")
def("health.bridge", "%s: rx-bridge %s, editor protocol %s, generation %d, %d actions", "%s：rx-bridge %s，编辑器协议 %s，第 %d 代，%d 个动作")
def("health.no_bridge", "no bridge running in this Neovim (one starts with the first file, :Rx or :RxChat)",
  "此 Neovim 中没有运行的桥接（打开第一个文件、:Rx 或 :RxChat 时会启动）")
def("health.last_error_old", "last startup error (%s, %s), before a bridge started fine: %s", "上次启动错误（%s，%s），之后桥接已正常启动：%s")
def("health.last_error", "last startup error (%s, %s): %s", "上次启动错误（%s，%s）：%s")
def("health.no_error", "no startup error", "没有启动错误")
def("health.version_note", "`rx-bridge version --json` is what the checks above run", "以上检查运行的是 `rx-bridge version --json`")

-- status items, cards, :Rx plugins
def("status.crashed", "(crashed)", "（已崩溃）")
def("card.progress", "Progress: %d%%", "进度：%d%%")
def("card.footer", "%s · q closes", "%s · q 关闭")
def("plugins.flags", "enabled: %s   running: %s   generation: %s", "已启用：%s   运行中：%s   代：%s")
def("plugins.yes", "yes", "是")
def("plugins.no", "no", "否")
def("plugins.state", "state: %s", "状态：%s")
def("plugins.why", "why: %s", "原因：%s")
def("plugins.since", "since: %s", "自：%s")
def("plugins.recover", "to recover: %s", "恢复方法：%s")
def("plugins.error", "error: %s", "错误：%s")
def("plugins.details", "details (stderr):", "详情（stderr）：")
def("plugins.runtime_none", "runtime: none", "运行时：无")
def("plugins.warning", "warning: %s", "警告：%s")
def("plugins.themes", "themes (desktop only, not served): %s", "主题（仅桌面版，不提供）：%s")

-- :Rx setup remove-key
def("keys.pick_prompt", "Remove the API key of which provider?", "要删除哪个服务商的 API 密钥？")
def("keys.stored", "key file %s, stored by :Rx setup", "密钥文件 %s，由 :Rx setup 保存")
def("keys.own_file", "your key file %s, which stays; config.toml stops naming it", "你自己的密钥文件 %s，会保留；config.toml 不再引用它")
def("keys.env", "environment variable %s, which stays set; config.toml stops naming it", "环境变量 %s，不会被取消；config.toml 不再引用它")
def("keys.leftover", "key file %s, which no provider uses", "密钥文件 %s，没有服务商使用它")
def("keys.confirm", "Remove the API key of %s (%s)?", "要删除 %s 的 API 密钥吗（%s）？")
def("keys.remove", "Remove it", "删除")
def("keys.cancel", "Cancel", "取消")
def("keys.none", "no provider has a stored API key", "没有服务商保存了 API 密钥")
def("keys.none_for", "provider %q has no stored API key (:Rx setup remove-key <Tab> lists those that have one)",
  "服务商 %q 没有保存的 API 密钥（:Rx setup remove-key <Tab> 会列出有密钥的服务商）")
def("keys.failed", "removing the key failed: %s", "删除密钥失败：%s")
def("keys.removed", "the API key of %s is removed", "%s 的 API 密钥已删除")
def("keys.deleted", "deleted %s", "已删除 %s")
def("keys.kept", "your key file %s is left where it is", "你自己的密钥文件 %s 保留在原处")
def("keys.env_left", "$%s is still set where it was; unset it if the key should go", "$%s 仍保持原来的设置；如果要彻底去掉密钥，请取消设置它")

-- key mappings (their desc) and :Rx log lines
def("map.close", "close", "关闭")
def("map.wait_exit", "wait for the bridges to shut their plugins down", "等待桥接关闭其插件")
def("map.attach", "attach file buffers", "附加文件缓冲区")
def("map.chat_with_model", "chat with this model", "用这个模型对话")
def("map.card_close", "close card", "关闭卡片")
def("map.card_action", "run card action %d", "运行卡片动作 %d")
def("map.card_action_cursor", "run the card action under the cursor", "运行光标下的卡片动作")
def("map.chat_slash", "a / starting the prompt lists the commands", "在提示开头输入 / 列出命令")
def("map.chat_cancel", "cancel the running turn", "取消正在运行的这一轮")
def("map.chat_model", "switch this chat's model (from the next turn)", "切换此对话的模型（从下一轮起）")
def("map.chat_undo", "undo the files of the last turn", "撤销上一轮对文件的修改")
def("map.chat_mode", "switch this chat's session between normal and plan mode", "在普通模式和计划模式之间切换此对话的会话")
def("map.accept_hunk", "accept the hunk", "接受这一处")
def("map.reject_hunk", "reject the hunk", "拒绝这一处")
def("map.accept_file", "accept the file", "接受整个文件")
def("map.reject_file", "reject the file", "拒绝整个文件")
def("map.accept_all", "accept everything and finish", "全部接受并结束")
def("map.reject_all", "reject everything and finish", "全部拒绝并结束")
def("map.finish", "finish (undecided hunks are rejected)", "结束（未决定的视为拒绝）")
def("log.markdown_failed", "markdown highlighting failed: %s", "Markdown 高亮失败：%s")
def("log.card", "card %s: %s", "卡片 %s：%s")
def("log.session", "session %s on %s", "会话 %s，模型 %s")
def("log.resumed", "resumed session %s on %s", "已恢复会话 %s，模型 %s")
def("log.resumed_restart", "session %s resumed after the bridge restarted", "桥接重启后已恢复会话 %s")
def("log.started", "started for %s (rx-bridge %s, generation %s)", "已为 %s 启动（rx-bridge %s，第 %s 代）")
def("log.exited", "rx-bridge serve for %s exited", "%s 的 rx-bridge serve 已退出")
def("log.form_dismissed", "form %s dismissed", "表单 %s 已关闭")
def("log.old_actions", "ignored rx/actionsChanged of old generation %d", "已忽略旧的第 %d 代的 rx/actionsChanged")
def("log.generation", "generation %s: %d actions", "第 %s 代：%d 个动作")
def("log.old_state", "ignored rx/pluginStateChanged of old generation %s", "已忽略旧的第 %s 代的 rx/pluginStateChanged")
def("log.dropped_request", "dropped a %s request of old generation %s", "已丢弃一个 %s 请求（来自旧的第 %s 代）")
def("log.dropped_surface", "dropped a %s surface of old generation %s", "已丢弃一个 %s 界面（来自旧的第 %s 代）")
def("log.unknown_surface", "unknown surface kind %q", "未知的界面类型 %q")
def("log.picker_failed", "%s failed (%s); using the builtin picker", "%s 出错（%s）；改用内置选择器")
def("log.cannot_ask", "cannot ask a field of kind %q", "无法询问类型为 %q 的字段")

-- shared
def("cli.missing", "cannot run %q: %s", "无法运行 %q：%s")

return M

-- A scripted stand-in for `rx-bridge serve`, run with `nvim -l`. It speaks
-- the LSP base protocol on stdio and follows docs/EDITOR_PROTOCOL.md for the
-- parts the unit tests use. The tests steer it with three extra requests:
--   fake/call    {method, params} -> sends that S->C request, returns the answer
--   fake/notify  {method, params} -> sends that S->C notification
--   fake/received {}              -> every message received so far
local uv = vim.uv

local stdin = uv.new_pipe(false)
local stdout = uv.new_pipe(false)
stdin:open(0)
stdout:open(1)

local received = {}
local initialize_params
local pending = {} -- our request id -> callback(msg)
local next_id = 1
local generation = 0
local initialized = false
local shut = false
local sessions = {}
local running_turns = {} -- sessionId -> turn

local function send(msg)
  msg.jsonrpc = "2.0"
  local body = vim.json.encode(msg)
  stdout:write(("Content-Length: %d\r\n\r\n%s"):format(#body, body))
end

local function respond(id, result, err)
  if err then
    send({ id = id, error = err })
  else
    send({ id = id, result = result == nil and vim.NIL or result })
  end
end

local function notify(method, params)
  send({ method = method, params = params })
end

local function request(method, params, cb)
  local id = next_id
  next_id = next_id + 1
  pending[id] = cb
  send({ id = id, method = method, params = params })
end

local ACTIONS = {
  { name = "/hello:card", plugin = "hello", actionId = "card", label = "" },
  { name = "/hello:greet", plugin = "hello", actionId = "greet", label = "Greet someone" },
}

local function actions_result()
  return { generation = generation, actions = ACTIONS }
end

local function bump(warnings)
  generation = generation + 1
  local r = actions_result()
  r.hookPoints = { "session.start" }
  r.warnings = warnings or {}
  notify("rx/actionsChanged", r)
end

local function ui(kind, fields, extra)
  local p = { plugin = "hello", surfaceId = "greet-" .. kind, sessionId = "", generation = generation, kind = kind,
    title = "Greeting", message = fields[1].label, fields = fields }
  for k, v in pairs(extra or {}) do
    p[k] = v
  end
  return p
end

-- /hello:greet: select, input, confirm, then a notification.
local function greet(id)
  request("rx/ui/request", ui("select", { { key = "value", label = "How should I greet you?", kind = "select",
    options = { "formal", "casual" }, default = "casual", required = true } }), function(a)
    local r = a.result or {}
    if r.cancelled then
      return respond(id, { accepted = true, message = "greeting cancelled" })
    end
    local style = r.values.value
    request("rx/ui/request", ui("input", { { key = "value", label = "Your name?", kind = "input", required = true } }), function(b)
      local rb = b.result or {}
      if rb.cancelled then
        return respond(id, { accepted = true, message = "greeting cancelled" })
      end
      local name = rb.values.value
      request("rx/ui/request", ui("confirm", { { key = "value", label = "Send it?", kind = "confirm", default = true } }), function(c)
        local rc = c.result or {}
        if rc.cancelled or rc.values.value ~= true then
          return respond(id, { accepted = true, message = "not sent" })
        end
        notify("rx/ui/surface", { plugin = "hello", surfaceId = "greeting", sessionId = "", generation = generation,
          kind = "notification", payload = { title = (style == "formal" and "Good day, " or "Hi, ") .. name, severity = "info" } })
        respond(id, { accepted = true })
      end)
    end)
  end)
end

local function stream_turn(id, session_id, prompt)
  local words = {}
  for w in prompt:gmatch("%S+") do
    words[#words + 1] = w
  end
  local slow = prompt:find("slow", 1, true) ~= nil
  if slow then
    for i = 1, 100 do
      words[#words + 1] = "w" .. i
    end
  end
  local turn = { id = id, cancelled = false }
  running_turns[session_id] = turn
  local function update(u)
    notify("rx/session/update", { sessionId = session_id, update = u })
  end
  local function finish(reason, text)
    running_turns[session_id] = nil
    update({ sessionUpdate = "usage", usage = { promptTokens = #words, completionTokens = #words, totalTokens = 2 * #words,
      cacheHitTokens = 0, cacheMissTokens = #words, reasoningTokens = 0 } })
    respond(id, { stopReason = reason, text = text })
  end
  local function run_words(i, acc)
    if turn.cancelled then
      return finish("cancelled", acc)
    end
    if i > #words then
      return finish("end_turn", acc)
    end
    local piece = (i > 1 and " " or "") .. words[i]
    update({ sessionUpdate = "agent_message_chunk", content = { type = "text", text = piece } })
    vim.defer_fn(function()
      run_words(i + 1, acc .. piece)
    end, slow and 100 or 10)
  end
  local function after_tools()
    if prompt:find("permission", 1, true) then
      request("rx/session/requestPermission", { sessionId = session_id,
        toolCall = { toolCallId = "call-2", title = "run_command go test ./...", kind = "execute",
          rawInput = { command = "go", args = { "test", "./..." } } },
        options = { { optionId = "allow", name = "Allow", kind = "allow_once" }, { optionId = "deny", name = "Deny", kind = "reject_once" } } },
        function(a)
          local o = a.result and a.result.outcome or {}
          update({ sessionUpdate = "permission", toolCallId = "call-2",
            outcome = (o.outcome == "selected" and o.optionId == "allow") and "allowed" or "denied", by = "user" })
          run_words(1, "")
        end)
    else
      run_words(1, "")
    end
  end
  if prompt:find("subagent", 1, true) then
    local subagent = { id = "sub1.1", name = "kit:agent:reviewer", parentToolCallId = "call-1" }
    update({ sessionUpdate = "agent_message_chunk", content = { type = "text", text = "SUBAGENT TEXT" }, subagent = subagent })
    update({ sessionUpdate = "agent_message_chunk", content = { type = "text", text = "MORE SUBAGENT TEXT" }, subagent = subagent })
    update({ sessionUpdate = "tool_call", toolCallId = "sub1.1/c", title = "grep TODO", kind = "search", status = "pending",
      subagent = subagent })
    update({ sessionUpdate = "tool_call_update", toolCallId = "sub1.1/c", status = "completed", subagent = subagent })
  end
  if prompt:find("tool", 1, true) then
    update({ sessionUpdate = "tool_call", toolCallId = "call-1", title = "read_file README.md", kind = "read", status = "pending",
      rawInput = { path = "README.md" } })
    vim.defer_fn(function()
      update({ sessionUpdate = "tool_call_update", toolCallId = "call-1", status = "completed",
        content = { { type = "content", content = { type = "text", text = "# rx-bridge\nline 2\nline 3\nline 4\nline 5" } } } })
      after_tools()
    end, 20)
  else
    after_tools()
  end
end

local handlers = {}

handlers["initialize"] = function(id, params)
  initialize_params = params
  respond(id, {
    capabilities = {
      textDocumentSync = { openClose = true, change = 2 },
      executeCommandProvider = { commands = { "rx.runAction", "rx.reload" } },
      experimental = { rxBridge = {
        version = tonumber(os.getenv("FAKE_PROTOCOL_VERSION") or "1"),
        bridgeVersion = "0.0.0-fake", protocolId = "reasonix.extension.v1", protocolMajor = 1,
        home = "/tmp/fake-home", generation = 0,
        plugins = { { name = "hello", version = "0.1.0", runtime = true, enabled = true } },
        models = { "builtin/fake" }, hookPoints = {},
      } },
    },
    serverInfo = { name = "rx-bridge", version = "0.0.0-fake" },
  })
end

handlers["initialized"] = function()
  initialized = true
  notify("window/logMessage", { type = 3, message = "fake bridge up\27[31m" })
  vim.defer_fn(function()
    bump({})
    notify("rx/ui/surface", { plugin = "hello", surfaceId = "hello-status", sessionId = "", generation = generation,
      kind = "status", payload = { label = "hello ready", detail = "1 greeting", severity = "info" } })
  end, tonumber(os.getenv("FAKE_START_DELAY") or "30"))
end

handlers["rx/actions"] = function(id)
  respond(id, actions_result())
end

handlers["workspace/executeCommand"] = function(id, params)
  if params.command == "rx.runAction" then
    local name = params.arguments and params.arguments[1]
    if name == "/hello:greet" then
      return greet(id)
    elseif name == "/hello:card" then
      notify("rx/ui/surface", { plugin = "hello", surfaceId = "c-1", sessionId = "", generation = generation, kind = "card",
        payload = { title = "A card", markdown = "Some **markdown**\nvim: set ft=lua :", fields = { { key = "k", value = "v" } },
          actions = { { actionId = "greet", label = "Greet again" } } } })
      return respond(id, { accepted = true })
    end
    return respond(id, nil, { code = -32602, message = ('unknown action "%s"; available: /hello:card, /hello:greet'):format(tostring(name)) })
  elseif params.command == "rx.reload" then
    bump({ "optional plugin broken failed to start: boom" })
    return respond(id, { generation = generation, warnings = { "optional plugin broken failed to start: boom" } })
  end
  respond(id, nil, { code = -32602, message = "unknown command" })
end

handlers["rx/plugins"] = function(id)
  respond(id, { plugins = { {
    name = "hello", version = "0.1.0", description = "Greets you", enabled = true, source = "/src/hello",
    root = "/tmp/fake-home/plugins/hello", manifestKind = "reasonix-plugin", running = true, generation = generation,
    runtime = { command = "/tmp/fake-home/plugins/hello/bin/hello", args = {}, intercepts = { "session.start" },
      replaces = {}, capabilities = { "ui" }, required = false, priority = 0 },
    trust = "runtime: FULL TRUST\n  command: /tmp/fake-home/plugins/hello/bin/hello\n  risk: this runtime runs outside any sandbox",
    error = "",
  } } })
end

handlers["rx/models"] = function(id)
  respond(id, { models = { { ref = "plugin/echo-provider/echo/small", displayName = "Echo (small)",
    origin = { kind = "plugin", id = "echo-provider" }, contextWindow = 8192, tools = true, vision = false, reasoning = false,
    efforts = {}, defaultEffort = "" } }, default = "plugin/echo-provider/echo/small" })
end

handlers["rx/session/new"] = function(id, params)
  local sid = "s-" .. (vim.tbl_count(sessions) + 1)
  sessions[sid] = { model = params.model or "plugin/echo-provider/echo/small" }
  respond(id, { sessionId = sid, model = sessions[sid].model })
end

handlers["rx/session/prompt"] = function(id, params)
  stream_turn(id, params.sessionId, params.prompt)
end

handlers["rx/session/cancel"] = function(_, params)
  local t = running_turns[params.sessionId]
  if t then
    t.cancelled = true
  end
end

handlers["rx/session/close"] = function(id, params)
  sessions[params.sessionId] = nil
  respond(id, vim.empty_dict())
end

handlers["rx/ui/submit"] = function(id)
  respond(id, { accepted = true })
end

handlers["fake/call"] = function(id, params)
  request(params.method, params.params, function(answer)
    respond(id, { result = answer.result, error = answer.error })
  end)
end

handlers["fake/notify"] = function(id, params)
  if params.method == "fake/bump" then
    bump({})
  else
    notify(params.method, params.params)
  end
  respond(id, { generation = generation })
end

handlers["fake/initialize"] = function(id)
  respond(id, initialize_params)
end

handlers["fake/received"] = function(id)
  respond(id, received)
end

handlers["shutdown"] = function(id)
  shut = true
  respond(id, nil)
end

handlers["exit"] = function()
  os.exit(shut and 0 or 1)
end

local function dispatch(msg)
  received[#received + 1] = msg
  if msg.method then
    local h = handlers[msg.method]
    if h then
      h(msg.id, msg.params or {})
    elseif msg.id then
      respond(msg.id, nil, { code = -32601, message = "method not found: " .. msg.method })
    end
  elseif msg.id and pending[msg.id] then
    local cb = pending[msg.id]
    pending[msg.id] = nil
    cb(msg)
  end
end

local buf = ""
stdin:read_start(function(err, chunk)
  if err or not chunk then
    os.exit(shut and 0 or 1)
  end
  buf = buf .. chunk
  while true do
    local header_end = buf:find("\r\n\r\n", 1, true)
    if not header_end then
      break
    end
    local len = tonumber(buf:sub(1, header_end):match("Content%-Length: (%d+)"))
    if not len or #buf < header_end + 3 + len then
      break
    end
    local body = buf:sub(header_end + 4, header_end + 3 + len)
    buf = buf:sub(header_end + 4 + len)
    vim.schedule(function()
      dispatch(vim.json.decode(body, { luanil = { object = true } }))
    end)
  end
end)

while true do
  vim.wait(1000)
end

#!/usr/bin/env node
// fake-openai: an OpenAI-compatible model server on 127.0.0.1 for the
// editors' first-run end-to-end tests (VS Code and Neovim). It needs only
// Node (no npm packages).
//
//   node server.mjs [--key KEY] [--models id[:ctx],...] [--log FILE] [--port N] [--exit-with-stdin]
//
// It prints one JSON line on stdout once it listens:
//   {"url":"http://127.0.0.1:PORT/v1","port":PORT}
// GET  /v1/models            lists the models (context_length when given)
// POST /v1/chat/completions  streams (SSE) or returns "fake-openai says: <the
//                            last user message>" in several small chunks.
// With --key every request must carry "Authorization: Bearer KEY" (401
// otherwise). With --log each request is appended to FILE as one JSON line
// {method, path, auth: true|false, model}; the key itself is never logged.
import http from 'node:http';
import fs from 'node:fs';

const args = process.argv.slice(2);
function opt(name, def) {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
}
const key = opt('--key', '');
const logFile = opt('--log', '');
const port = Number(opt('--port', '0'));
const models = opt('--models', 'fake-chat:32768').split(',').filter(Boolean).map((m) => {
  const [id, ctx] = m.split(':');
  return ctx ? { id, object: 'model', owned_by: 'fake', context_length: Number(ctx) } : { id, object: 'model', owned_by: 'fake' };
});

function log(entry) {
  if (logFile) fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
}

function lastUserText(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) return m.content.filter((p) => p.type === 'text').map((p) => p.text).join(' ');
  }
  return '';
}

const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    const authed = !key || req.headers.authorization === `Bearer ${key}`;
    let body = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch { /* answered below */ }
    log({ method: req.method, path: req.url, auth: authed, model: body.model });
    if (!authed) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
      return;
    }
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: models }));
      return;
    }
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      if (raw && Object.keys(body).length === 0) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'body is not JSON' } }));
        return;
      }
      const text = `fake-openai says: ${lastUserText(body).trim().slice(0, 200)}`;
      const words = text.split(/(?<= )/);
      const id = 'chatcmpl-fake';
      const model = body.model || models[0]?.id || 'fake-chat';
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const send = (o) => res.write(`data: ${JSON.stringify(o)}\n\n`);
        send({ id, object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] });
        let i = 0;
        const tick = () => {
          if (i < words.length) {
            send({ id, object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: { content: words[i++] } }] });
            setTimeout(tick, 5);
            return;
          }
          send({ id, object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
            usage: { prompt_tokens: 12, completion_tokens: words.length, total_tokens: 12 + words.length } });
          res.end('data: [DONE]\n\n');
        };
        tick();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, object: 'chat.completion', model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 12, completion_tokens: words.length, total_tokens: 12 + words.length } }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
  });
});

server.listen(port, '127.0.0.1', () => {
  const p = server.address().port;
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${p}/v1`, port: p }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
if (args.includes('--exit-with-stdin')) { // the test's pipe closed: go too
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

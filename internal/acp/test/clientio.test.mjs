// What rx-bridge acp asks of a client that offers more than files: the
// ACP project's TypeScript SDK (@agentclientprotocol/sdk, its client app)
// as a client with terminal: true (its terminals run the command line
// through sh, as editors run it through the user's shell), form
// elicitation and the reference's extension surface (_meta), driving a
// real `rx-bridge acp` child with examples/echo-provider and
// examples/hello. Needs RX_BRIDGE_BIN and the built examples (make
// acp-test does both).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { Readable, Writable, PassThrough } from 'node:stream';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = process.env.RX_BRIDGE_BIN;
const MODEL = 'plugin/echo-provider/echo/small';

let home, ws, child, conn, stderr = '';
const updates = []; // every session/update the SDK delivered
const frames = []; // every frame rx-bridge wrote, parsed
const terminalCalls = []; // "<method> <terminalId>"
const creates = []; // terminal/create params
const elicitations = []; // elicitation/create params
const terminals = new Map();
let nextTerminal = 0;
let onElicit = null;

before(() => {
	assert.ok(BIN, 'RX_BRIDGE_BIN names the rx-bridge binary');
	home = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-acp-io-home-'));
	ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rx-acp-io-ws-')));
	const env = { ...process.env, RX_BRIDGE_HOME: home };
	for (const ex of ['echo-provider', 'hello']) {
		execFileSync(BIN, ['plugin', 'install', path.join(REPO, 'examples', ex), '--yes'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
	}
	child = spawn(BIN, ['acp', '--workspace', ws, '--model', MODEL], { env: { ...env, ECHO_PROVIDER_DELAY: '0' }, stdio: ['pipe', 'pipe', 'pipe'] });
	child.stderr.on('data', (d) => { stderr += d; });
	// Every frame is also kept raw: a vendor session/update kind is not in
	// the SDK's schema, so only the wire shows it.
	const toSdk = new PassThrough();
	let partial = '';
	child.stdout.on('data', (d) => {
		toSdk.write(d);
		partial += d;
		const lines = partial.split('\n');
		partial = lines.pop();
		for (const l of lines) if (l.trim()) frames.push(JSON.parse(l));
	});
	child.stdout.on('end', () => toSdk.end());
	const term = (id) => {
		const t = terminals.get(id);
		assert.ok(t, `unknown terminal ${id}`);
		return t;
	};
	const app = acp.client()
		.onNotification(acp.methods.client.session.update, ({ params }) => { updates.push(params); })
		.onRequest(acp.methods.client.session.requestPermission, ({ params }) => ({ outcome: { outcome: 'selected', optionId: params.options[0].optionId } }))
		.onRequest(acp.methods.client.terminal.create, ({ params }) => {
			creates.push(params);
			const id = `t${++nextTerminal}`;
			const extra = Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value]));
			const p = spawn('sh', ['-c', params.command], { cwd: params.cwd, env: { ...process.env, ...extra } });
			const t = { p, output: '', exit: null };
			t.done = new Promise((resolve) => p.on('exit', (code, signal) => { t.exit = { exitCode: code, signal }; resolve(); }));
			p.stdout.on('data', (d) => { t.output += d; });
			p.stderr.on('data', (d) => { t.output += d; });
			terminals.set(id, t);
			terminalCalls.push(`create ${id}`);
			return { terminalId: id };
		})
		.onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
			terminalCalls.push(`wait ${params.terminalId}`);
			const t = term(params.terminalId);
			await t.done;
			return t.exit;
		})
		.onRequest(acp.methods.client.terminal.output, ({ params }) => {
			terminalCalls.push(`output ${params.terminalId}`);
			const t = term(params.terminalId);
			return { output: t.output, truncated: false, exitStatus: t.exit };
		})
		.onRequest(acp.methods.client.terminal.kill, ({ params }) => {
			terminalCalls.push(`kill ${params.terminalId}`);
			term(params.terminalId).p.kill('SIGKILL');
			return {};
		})
		.onRequest(acp.methods.client.terminal.release, ({ params }) => {
			terminalCalls.push(`release ${params.terminalId}`);
			term(params.terminalId).p.kill('SIGKILL');
			terminals.delete(params.terminalId);
			return {};
		})
		.onRequest(acp.methods.client.elicitation.create, ({ params }) => {
			elicitations.push(params);
			assert.ok(onElicit, `unexpected elicitation: ${JSON.stringify(params)}`);
			return onElicit(params);
		});
	conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(toSdk)));
});

after(async () => {
	conn?.close();
	child?.stdin.end();
	if (child && child.exitCode === null) await new Promise((r) => child.once('exit', r));
	fs.rmSync(home, { recursive: true, force: true });
	fs.rmSync(ws, { recursive: true, force: true });
});

const agent = () => conn.agent;
let sessionId;

function messageText(from = 0) {
	return updates.slice(from).filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk')
		.map((u) => u.update.content.text).join('');
}

test('initialize with terminal, elicitation and the extension surface', async () => {
	const res = await agent().request(acp.methods.agent.initialize, {
		protocolVersion: acp.PROTOCOL_VERSION,
		clientCapabilities: {
			terminal: true,
			elicitation: { form: {} },
			_meta: { 'reasonix.io': { extensionSurface: { supported: true } } },
		},
		clientInfo: { name: 'acp-sdk-clientio-test', version: '0' },
	});
	assert.deepEqual(res.agentCapabilities._meta['reasonix.io'].extensionSurface, { supported: true, schemaVersion: 1 });
	const s = await agent().request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
	sessionId = s.sessionId;
});

test('a command the model runs goes to the client terminal: create, wait, output, release', async () => {
	const from = updates.length;
	const args = { command: ['printf', '[%s]', 'a b', '$HOME'] };
	const res = await agent().request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: `call run_command ${JSON.stringify(args)}` }] });
	assert.equal(res.stopReason, 'end_turn');
	assert.deepEqual(terminalCalls, ['create t1', 'wait t1', 'output t1', 'release t1']);
	assert.equal(creates[0].command, "printf '[%s]' 'a b' '$HOME'");
	assert.equal(creates[0].cwd, ws);
	const done = updates.slice(from).map((u) => u.update).find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
	assert.ok(done, JSON.stringify(updates.slice(from)));
	assert.match(done.content[0].content.text, /^\[a b\]\[\$HOME\]\n\[exit status 0 after /);
});

test('/hello:greet asks through elicitation: the select as an enum, the name as free text', async () => {
	const from = updates.length;
	const framesFrom = frames.length;
	onElicit = (p) => {
		assert.equal(p.sessionId, sessionId);
		assert.equal(p.mode, 'form');
		const value = p.requestedSchema.properties.value;
		if (value.enum) {
			assert.deepEqual(value.enum, ['friendly', 'formal', 'pirate']);
			return { action: 'accept', content: { value: 'pirate' } };
		}
		assert.equal(value.type, 'string');
		assert.equal(value.default, 'Ada');
		return { action: 'accept', content: { value: 'Grace Hopper' } };
	};
	const res = await agent().request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '/hello:greet name=Ada' }] });
	assert.equal(res.stopReason, 'end_turn');
	assert.equal(elicitations.length, 2);
	assert.match(messageText(from), /Ahoy, Grace Hopper!/);
	// The greeting's notification: the _meta surface on the wire (a vendor
	// update kind outside the schema's union: the SDK logs it as invalid and
	// drops it, so only the wire shows it), and the text fallback through
	// the SDK.
	const surface = frames.slice(framesFrom).find((f) => f.method === 'session/update' && f.params.update.sessionUpdate === '_reasonix.io/extension_surface');
	assert.ok(surface, 'no extension surface update');
	const dto = surface.params.update._meta['reasonix.io'].extensionSurface;
	assert.equal(dto.pluginId, 'hello');
	assert.equal(dto.kind, 'notification');
	assert.equal(dto.sessionId, sessionId);
	assert.equal(dto.notification.title, 'Ahoy, Grace Hopper!');
	assert.match(messageText(from), /\n\nAhoy, Grace Hopper!\nGreeted by the hello example plugin\./);
});

// The ACP project's own TypeScript SDK (@agentclientprotocol/sdk, its
// client app: what replaced ClientSideConnection in 2.x) drives a real
// `rx-bridge acp` child with examples/echo-provider and examples/hello
// installed in a temporary home by the real binary. Needs RX_BRIDGE_BIN
// and the built examples (make acp-test does both).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = process.env.RX_BRIDGE_BIN;
const MODEL = 'plugin/echo-provider/echo/small';

let home, ws, child, conn, stderr = '';
const updates = []; // every session/update, in order
const writes = []; // every fs/write_text_file
const reads = []; // every fs/read_text_file path
const buffers = new Map(); // the "editor's" unsaved buffers by path
let onPermission = null; // answers session/request_permission
const permissions = [];
let waiters = [];

function notifyWaiters() {
	waiters = waiters.filter((w) => !w());
}

// until resolves once pred holds for the updates so far.
function until(pred, what) {
	return new Promise((resolve, reject) => {
		const check = () => {
			const v = pred();
			if (v) resolve(v);
			return !!v;
		};
		if (check()) return;
		waiters.push(check);
		child.once('exit', () => reject(new Error(`rx-bridge acp exited before ${what}; stderr:\n${stderr}`)));
	});
}

function textOf(sessionId, kind, from = 0) {
	return updates.slice(from).filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === kind)
		.map((u) => u.update.content.text).join('');
}

before(() => {
	assert.ok(BIN, 'RX_BRIDGE_BIN names the rx-bridge binary');
	home = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-acp-home-'));
	ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rx-acp-ws-')));
	fs.writeFileSync(path.join(ws, 'a.txt'), 'on disk\n');
	const env = { ...process.env, RX_BRIDGE_HOME: home };
	for (const ex of ['echo-provider', 'hello']) {
		execFileSync(BIN, ['plugin', 'install', path.join(REPO, 'examples', ex), '--yes'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
	}
	child = spawn(BIN, ['acp', '--workspace', ws, '--model', MODEL], { env: { ...env, ECHO_PROVIDER_DELAY: '0' }, stdio: ['pipe', 'pipe', 'pipe'] });
	child.stderr.on('data', (d) => { stderr += d; });
	const app = acp.client()
		.onNotification(acp.methods.client.session.update, ({ params }) => { updates.push(params); notifyWaiters(); })
		.onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
			permissions.push(params);
			notifyWaiters();
			assert.ok(onPermission, `unexpected permission request: ${JSON.stringify(params)}`);
			return onPermission(params);
		})
		.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
			reads.push(params.path);
			return { content: buffers.get(params.path) ?? fs.readFileSync(params.path, 'utf8') };
		})
		.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
			writes.push(params);
			buffers.set(params.path, params.content);
			notifyWaiters();
			return {};
		});
	conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
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

test('initialize advertises protocol 1, load, list/resume/close/delete, additional directories, embedded context, images', async () => {
	const res = await agent().request(acp.methods.agent.initialize, {
		protocolVersion: acp.PROTOCOL_VERSION,
		clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
		clientInfo: { name: 'acp-sdk-test', version: '0' },
	});
	assert.equal(res.protocolVersion, 1);
	assert.equal(res.agentCapabilities.loadSession, true);
	assert.deepEqual(Object.keys(res.agentCapabilities.sessionCapabilities).sort(), ['additionalDirectories', 'close', 'delete', 'list', 'resume']);
	assert.equal(res.agentCapabilities.promptCapabilities.embeddedContext, true);
	assert.equal(res.agentCapabilities.promptCapabilities.image, true);
	assert.equal(res.agentInfo.name, 'rx-bridge');
});

test('session/new on the echo provider lists every catalog model and the plugin action', async () => {
	const res = await agent().request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
	sessionId = res.sessionId;
	assert.match(sessionId, /^[A-Za-z0-9._-]+$/);
	const model = res.configOptions.find((o) => o.id === 'model');
	assert.equal(model.currentValue, MODEL);
	const values = model.options.map((o) => o.value);
	assert.ok(values.includes('plugin/echo-provider/echo/small') && values.includes('plugin/echo-provider/echo/large'), values.join(', '));
	const cmds = await until(() => updates.find((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'available_commands_update'), 'available_commands_update');
	const greet = cmds.update.availableCommands.find((c) => c.name === 'hello:greet');
	assert.ok(greet, JSON.stringify(cmds.update.availableCommands));
	assert.equal(greet.description, 'Greet me');
});

test('a read is not asked about in ask mode (the engine\'s approval table) and reads the unsaved buffer through fs/read_text_file', async () => {
	const file = path.join(ws, 'a.txt');
	buffers.set(file, 'unsaved buffer text\n');
	const from = updates.length;
	onPermission = null;
	const asked = permissions.length;
	const res = await agent().request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'call read_file {"path": "a.txt"}' }] });
	assert.equal(res.stopReason, 'end_turn');
	assert.equal(permissions.length, asked, 'ask mode asked about a read');
	assert.ok(reads.includes(file), reads.join(', '));
	const mine = updates.slice(from).filter((u) => u.sessionId === sessionId).map((u) => u.update);
	const call = mine.find((u) => u.sessionUpdate === 'tool_call');
	assert.ok(call, JSON.stringify(mine));
	assert.equal(call.kind, 'read');
	const done = mine.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === call.toolCallId && u.status === 'completed');
	assert.ok(done, JSON.stringify(mine));
	assert.match(textOf(sessionId, 'agent_message_chunk', from), /unsaved buffer text/);
});

test('an edit arrives through fs/write_text_file (allow always: not asked again)', async () => {
	const file = path.join(ws, 'a.txt');
	let asked = 0;
	onPermission = (p) => {
		asked++;
		assert.equal(p.toolCall.kind, 'edit');
		return { outcome: { outcome: 'selected', optionId: 'allow_always' } };
	};
	const edit = (text) => agent().request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: `call apply_edit ${JSON.stringify({ path: 'a.txt', content: text })}` }] });
	assert.equal((await edit('first edit\n')).stopReason, 'end_turn');
	assert.equal((await edit('second edit\n')).stopReason, 'end_turn');
	assert.equal(asked, 1);
	assert.deepEqual(writes.map((w) => [w.path, w.content]), [[file, 'first edit\n'], [file, 'second edit\n']]);
	assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n', 'the edit went to the editor, not the disk');
});

test('session/cancel during a permission prompt ends the turn cancelled, the prompt still open', { timeout: 60000 }, async () => {
	let prompt;
	onPermission = async () => {
		await agent().notify(acp.methods.agent.session.cancel, { sessionId });
		// Answered only after the turn has ended: the cancel alone ends it.
		await prompt;
		return { outcome: { outcome: 'cancelled' } };
	};
	prompt = agent().request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'call run_command {"command": ["true"]}' }] });
	assert.equal((await prompt).stopReason, 'cancelled');
});

test('a plugin action runs as a slash command, its questions answered through request_permission', async () => {
	const from = updates.length;
	const asked = [];
	onPermission = (p) => {
		asked.push(p.toolCall.title);
		// A select of several answers is asked one answer at a time, with
		// options of distinct kinds (clients that render options by kind
		// alone must tell them apart).
		assert.equal(new Set(p.options.map((o) => o.kind)).size, p.options.length, JSON.stringify(p.options));
		if (p.toolCall.title.startsWith('How should I greet you?')) {
			const want = p.toolCall.title.includes('— pirate?') ? 'Choose pirate' : 'Next option';
			const o = p.options.find((o) => o.name === want);
			assert.ok(o, JSON.stringify(p.options));
			return { outcome: { outcome: 'selected', optionId: o.optionId } };
		}
		const use = p.options.find((o) => o.name === 'Use "Ada"');
		assert.ok(use, JSON.stringify(p.options));
		return { outcome: { outcome: 'selected', optionId: use.optionId } };
	};
	const res = await agent().request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '/hello:greet name=Ada' }] });
	assert.equal(res.stopReason, 'end_turn');
	assert.deepEqual(asked, [
		'How should I greet you? — friendly? (1 of 3)',
		'How should I greet you? — formal? (2 of 3)',
		'How should I greet you? — pirate? (3 of 3)',
		'Your name',
	]);
	// The action's message is the turn's text; the echo model repeats it.
	assert.match(textOf(sessionId, 'agent_message_chunk', from), /Ahoy, Ada!/);
});

test('session/list lists the session; session/load replays it before its result', async () => {
	const list = await agent().request(acp.methods.agent.session.list, { cwd: ws });
	const mine = list.sessions.find((s) => s.sessionId === sessionId);
	assert.ok(mine, JSON.stringify(list));
	assert.equal(mine.cwd, ws);
	const from = updates.length;
	const res = await agent().request(acp.methods.agent.session.load, { sessionId, cwd: ws, mcpServers: [] });
	const replay = updates.slice(from).filter((u) => u.sessionId === sessionId).map((u) => u.update);
	assert.ok(res.configOptions.find((o) => o.id === 'model'));
	const users = replay.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => u.content.text);
	assert.ok(users.includes('call read_file {"path": "a.txt"}'), users.join(' | '));
	assert.ok(replay.some((u) => u.sessionUpdate === 'tool_call'), 'tool calls replayed');
	assert.match(replay.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text).join(''), /unsaved buffer text/);
	// The loaded session runs turns.
	onPermission = null;
	const again = await agent().request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'hello again' }] });
	assert.equal(again.stopReason, 'end_turn');
});

test('session/set_config_option sets tool_approval (config_option_update; yolo asks nothing)', async () => {
	const s = await agent().request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
	const approval = s.configOptions.find((o) => o.id === 'tool_approval');
	assert.equal(approval.currentValue, 'ask');
	assert.deepEqual(approval.options.map((o) => o.value), ['ask', 'auto', 'yolo']);
	assert.ok(!s.configOptions.find((o) => o.id === 'effort'), 'the echo models declare no effort');
	const from = updates.length;
	const res = await agent().request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: 'tool_approval', value: 'yolo' });
	assert.equal(res.configOptions.find((o) => o.id === 'tool_approval').currentValue, 'yolo');
	await until(() => updates.slice(from).find((u) => u.sessionId === s.sessionId && u.update.sessionUpdate === 'config_option_update'), 'config_option_update');
	onPermission = null;
	const asked = permissions.length;
	const turn = await agent().request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'call run_command {"command": ["true"]}' }] });
	assert.equal(turn.stopReason, 'end_turn');
	assert.equal(permissions.length, asked, 'yolo asked for permission');
});

// Sessions through the ACP project's own TypeScript SDK driving real
// `rx-bridge acp` children on one home: session/delete, modes (plan
// refuses an edit, normal runs it; todo_write as a plan update), and
// model, effort, tool approval and mode restored by session/load in a
// new process. Needs RX_BRIDGE_BIN and the built examples (make
// acp-test does both).
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

let home, ws;
const agents = [];

// A provider whose models declare efforts (the echo models declare
// none). No request reaches it: these tests only select its model.
const CONFIG = `tool_approval = "yolo"

[[providers.openai]]
name = "local"
base_url = "http://127.0.0.1:9/v1"
max_attempts = 1

[[providers.openai.models]]
id = "think"
context_window = 32768
tools = true
efforts = ["low", "high"]
`;

// startAgent runs `rx-bridge acp` on the home and initializes it.
async function startAgent() {
	const a = { updates: [], stderr: '', waiters: [] };
	a.child = spawn(BIN, ['acp', '--workspace', ws, '--model', MODEL], { env: { ...process.env, RX_BRIDGE_HOME: home, ECHO_PROVIDER_DELAY: '0' }, stdio: ['pipe', 'pipe', 'pipe'] });
	a.child.stderr.on('data', (d) => { a.stderr += d; });
	a.exited = new Promise((r) => a.child.once('exit', r));
	const app = acp.client()
		.onNotification(acp.methods.client.session.update, ({ params }) => {
			a.updates.push(params);
			a.waiters = a.waiters.filter((w) => !w());
		})
		.onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
			throw new Error(`unexpected permission request: ${JSON.stringify(params)}`);
		});
	a.conn = app.connect(acp.ndJsonStream(Writable.toWeb(a.child.stdin), Readable.toWeb(a.child.stdout)));
	a.request = (method, params) => a.conn.agent.request(method, params);
	a.until = (pred, what) => new Promise((resolve, reject) => {
		const check = () => {
			const v = pred();
			if (v) resolve(v);
			return !!v;
		};
		if (check()) return;
		a.waiters.push(check);
		a.child.once('exit', () => reject(new Error(`rx-bridge acp exited before ${what}; stderr:\n${a.stderr}`)));
	});
	a.stop = async () => {
		a.conn.close();
		a.child.stdin.end();
		await a.exited;
	};
	a.init = await a.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {}, clientInfo: { name: 'acp-sdk-sessions-test', version: '0' } });
	agents.push(a);
	return a;
}

before(() => {
	assert.ok(BIN, 'RX_BRIDGE_BIN names the rx-bridge binary');
	home = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-acp-sessions-home-'));
	ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rx-acp-sessions-ws-')));
	const env = { ...process.env, RX_BRIDGE_HOME: home };
	execFileSync(BIN, ['plugin', 'install', path.join(REPO, 'examples', 'echo-provider'), '--yes'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
	fs.writeFileSync(path.join(home, 'config.toml'), CONFIG);
});

after(async () => {
	for (const a of agents) {
		if (a.child.exitCode === null) await a.stop();
	}
	fs.rmSync(home, { recursive: true, force: true });
	fs.rmSync(ws, { recursive: true, force: true });
});

const text = (t) => [{ type: 'text', text: t }];
const current = (opts, id) => opts.find((o) => o.id === id)?.currentValue;

test('session/delete: advertised; the session is listed before and gone after', async () => {
	const a = await startAgent();
	assert.deepEqual(a.init.agentCapabilities.sessionCapabilities.delete, {});
	const { sessionId } = await a.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
	assert.equal((await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text('to be deleted') })).stopReason, 'end_turn');
	const ids = async () => (await a.request(acp.methods.agent.session.list, { cwd: ws })).sessions.map((s) => s.sessionId);
	assert.ok((await ids()).includes(sessionId));
	assert.deepEqual(await a.request(acp.methods.agent.session.delete, { sessionId }), {});
	assert.ok(!(await ids()).includes(sessionId), 'still listed after session/delete');
	await assert.rejects(a.request(acp.methods.agent.session.load, { sessionId, cwd: ws, mcpServers: [] }), (e) => e.code === -32602);
	// Idempotent, as the reference's.
	assert.deepEqual(await a.request(acp.methods.agent.session.delete, { sessionId }), {});
	await a.stop();
});

test('session/set_mode plan refuses an edit (todo_write still plans); normal runs it', async () => {
	const a = await startAgent();
	const s = await a.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
	const sessionId = s.sessionId;
	assert.equal(s.modes.currentModeId, 'normal');
	assert.deepEqual(s.modes.availableModes.map((m) => m.id), ['normal', 'plan']);
	const mine = (from) => a.updates.slice(from).filter((u) => u.sessionId === sessionId).map((u) => u.update);
	assert.deepEqual(await a.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' }), {});
	await a.until(() => mine(0).find((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'plan'), 'current_mode_update plan');
	const file = path.join(ws, 'planned.txt');
	const edit = `call apply_edit ${JSON.stringify({ path: 'planned.txt', content: 'done\n' })}`;

	let from = a.updates.length;
	await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text('call todo_write {"todos":[{"content":"Write planned.txt","status":"in_progress"},{"content":"Check it","status":"pending","level":1}]}') });
	const plan = mine(from).find((u) => u.sessionUpdate === 'plan');
	assert.deepEqual(plan?.entries, [
		{ content: 'Write planned.txt', priority: 'high', status: 'in_progress' },
		{ content: 'Check it', priority: 'medium', status: 'pending' },
	], JSON.stringify(mine(from)));

	from = a.updates.length;
	assert.equal((await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text(edit) })).stopReason, 'end_turn');
	const refused = mine(from).find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
	assert.ok(refused, JSON.stringify(mine(from)));
	assert.match(JSON.stringify(refused.content), /plan mode: apply_edit is refused/);
	assert.ok(!fs.existsSync(file), 'plan mode wrote the file');

	await a.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'normal' });
	await a.until(() => mine(from).find((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'normal'), 'current_mode_update normal');
	from = a.updates.length;
	await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text(edit) });
	assert.ok(mine(from).find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed'), JSON.stringify(mine(from)));
	assert.equal(fs.readFileSync(file, 'utf8'), 'done\n');
	await assert.rejects(a.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'goal' }),
		(e) => e.code === -32602 && /session\/set_mode: unknown modeId goal/.test(e.message));
	await a.stop();
});

test('model, effort, tool approval and mode are restored by session/load in a new process', async () => {
	const first = await startAgent();
	const s = await first.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
	const sessionId = s.sessionId;
	assert.equal(current(s.configOptions, 'tool_approval'), 'yolo');
	const set = (configId, value) => first.request(acp.methods.agent.session.setConfigOption, { sessionId, configId, value });
	await set('model', 'local/think');
	await set('effort', 'high');
	const res = await set('tool_approval', 'ask');
	assert.equal(current(res.configOptions, 'effort'), 'high');
	await first.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
	await first.stop();

	const second = await startAgent();
	const loaded = await second.request(acp.methods.agent.session.load, { sessionId, cwd: ws, mcpServers: [] });
	assert.equal(current(loaded.configOptions, 'model'), 'local/think');
	assert.equal(current(loaded.configOptions, 'effort'), 'high');
	assert.equal(current(loaded.configOptions, 'tool_approval'), 'ask');
	assert.equal(loaded.modes.currentModeId, 'plan');
	await second.stop();
});

// The extension's parts against a real `rx-bridge serve` child with the
// examples hello and echo-provider installed in a temporary home. Needs the
// binary (RX_BRIDGE_BIN, default ../.bin/rx-bridge) and the built examples
// (make examples); `make vscode-test` provides both. Missing pieces fail.
import './support/setup';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CommandId, PLUGINS_DOC } from '../src/commands';
import { CHANGE_MODEL_COMMAND, ChatMetadata, DELETE, RENAME, RESUME, SESSIONS_COMMAND } from '../src/chat';
import { Method, ModelsResult } from '../src/protocol';
import { chatRequest, eventually, harness, RecordingStream } from './support/harness';
import { childIO, StreamTransport } from './support/rpc';
import * as vscode from './support/vscode';
import { CancellationTokenSource, fake, FakeStatusBarItem } from './support/vscode';

const CLIENT = path.resolve(__dirname, '..', '..');
const REPO = path.resolve(CLIENT, '..');
const BIN = path.resolve(process.env.RX_BRIDGE_BIN || path.join(REPO, '.bin', 'rx-bridge'));
const ECHO = 'plugin/echo-provider/echo/small';

let tmp: string;
let home: string;
let workspace: string;
let transport: StreamTransport;
let h: ReturnType<typeof harness>;
const stderr: string[] = [];

function need(p: string, why: string): void {
	if (!fs.existsSync(p)) throw new Error(`${p} is missing: ${why}`);
}

before(async () => {
	need(BIN, 'build rx-bridge (make vscode-test does) or set RX_BRIDGE_BIN');
	for (const ex of ['hello', 'echo-provider']) need(path.join(REPO, 'examples', ex, 'bin', ex), 'run make examples');
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-vscode-unit-'));
	home = path.join(tmp, 'home');
	workspace = path.join(tmp, 'ws');
	fs.mkdirSync(workspace, { recursive: true });
	fs.writeFileSync(path.join(workspace, 'README.md'), '# test workspace\n');
	const env = { ...process.env, RX_BRIDGE_HOME: home };
	for (const ex of ['hello', 'echo-provider']) {
		execFileSync(BIN, ['plugin', 'install', path.join(REPO, 'examples', ex), '--yes'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
	}
	fake.reset();
	transport = new StreamTransport(childIO(BIN, ['serve', '--workspace', workspace], env, stderr), workspace);
	h = harness(transport);
	h.bridge.start();
	await h.bridge.ready();
	await eventually(() => h.rx.actions.some((a) => a.name === '/hello:greet'), 'rx/actionsChanged with /hello:greet', 30000);
});

after(async () => {
	await h?.bridge.stop();
	if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

beforeEach(() => {
	fake.events = [];
	fake.answer = () => undefined;
});

function failure(what: string): string {
	return `${what}\n--- rx-bridge stderr ---\n${stderr.join('').slice(-4000)}`;
}

describe('real rx-bridge serve', () => {
	it('answers initialize as §1.2 says', () => {
		const info = h.bridge.connection!.info;
		assert.equal(info.version, 1);
		assert.equal(info.protocolId, 'reasonix.extension.v1');
		assert.equal(info.protocolMajor, 1);
		assert.equal(info.home, home);
		assert.equal(typeof info.generation, 'number');
		assert.deepEqual(info.plugins?.map((p) => p.name).sort(), ['echo-provider', 'hello']);
	});

	it('lists /hello:greet with its label after rx/actionsChanged', () => {
		const greet = h.rx.actions.find((a) => a.name === '/hello:greet');
		assert.deepEqual(greet, { name: '/hello:greet', kind: 'action', plugin: 'hello', actionId: 'greet', label: 'Greet me' });
		assert.ok(h.rx.generations.current >= 1, `generation ${h.rx.generations.current}`);
	});

	it('runs /hello:greet: the select and the input are answered, the notification is shown', async () => {
		fake.answer = (e) => {
			if (e.type === 'createQuickPick') {
				void eventually(() => !e.input.busy, 'actions').then(() => e.input.pick('/hello:greet'));
				return undefined;
			}
			if (e.type === 'quickPick') return e.items.find((i: { option: string }) => i.option === 'pirate');
			if (e.type === 'inputBox') return 'Ada';
			return undefined;
		};
		await vscode.commands.executeCommand(CommandId.runAction);
		const pick = fake.events.find((e) => e.type === 'quickPick') as { items: { option: string }[]; options: { placeHolder: string } };
		assert.ok(pick, failure(`no quick-pick: ${fake.messages().join('\n')}`));
		assert.deepEqual(pick.items.map((i) => i.option).sort(), ['formal', 'friendly', 'pirate']);
		assert.equal(pick.options.placeHolder, 'How should I greet you?');
		const input = fake.events.find((e) => e.type === 'inputBox') as { options: { prompt: string } };
		assert.equal(input.options.prompt, 'Your name');
		await eventually(() => fake.messages().includes('hello: Ahoy, Ada! — Greeted by the hello example plugin.'), failure(`the notification; saw ${fake.messages().join(' | ')}`));
	});

	it('does not hang when the plugin question is dismissed', async () => {
		fake.answer = () => undefined;
		await h.commands.runAction('/hello:greet');
		assert.ok(fake.messages().length > 0, 'the outcome is reported');
	});

	it('reports an unknown action with the available ones', async () => {
		await h.commands.runAction('/nope:x');
		assert.ok(fake.messages().some((m) => m.includes('unknown action "/nope:x"; available: /hello:greet')), fake.messages().join('\n'));
	});

	it('shows plugins with the FULL TRUST block', async () => {
		await vscode.commands.executeCommand(CommandId.showPlugins);
		const text = h.docs.get(PLUGINS_DOC) ?? '';
		assert.match(text, /^echo-provider 0\.1\.0/m);
		assert.match(text, /^hello 0\.1\.0/m);
		assert.match(text, /FULL TRUST/);
	});

	it('lists the echo models and streams an rx/lm/chat through the language model provider', async () => {
		const models = await h.rx.request<ModelsResult>(Method.models, {});
		assert.ok(models.models.some((m) => m.ref === ECHO), JSON.stringify(models));
		const info = await h.models.provideLanguageModelChatInformation({ silent: true }, new CancellationTokenSource().token as never);
		assert.ok(info.some((m) => m.id === ECHO));
		const parts: vscode.LanguageModelTextPart[] = [];
		await h.models.provideLanguageModelChatResponse(
			info.find((m) => m.id === ECHO)!, [vscode.LanguageModelChatMessage.User('hello there general kenobi')] as never,
			{ toolMode: 1 } as never, { report: (p: unknown) => parts.push(p as vscode.LanguageModelTextPart) }, new CancellationTokenSource().token as never);
		assert.ok(parts.length >= 2, `streamed in ${parts.length} parts`);
		assert.match(parts.map((p) => p.value).join(''), /hello there general kenobi/);
	});

	it('runs an agent turn in the chat participant: session.start shows the plugin status, the answer streams', async () => {
		const stream = new RecordingStream();
		const r = await h.chat.handle(chatRequest('hello there', { model: { vendor: 'reasonix', id: ECHO } }), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		assert.equal(r.errorDetails, undefined, failure(JSON.stringify(r.errorDetails)));
		const md = r.metadata as ChatMetadata;
		assert.equal(md.model, ECHO);
		assert.equal(md.stopReason, 'end_turn');
		assert.ok(stream.parts.filter((p) => p.kind === 'markdown').length >= 2, `streamed: ${JSON.stringify(stream.parts)}`);
		assert.match(stream.text(), /hello there/);
		await eventually(() => fake.statusItems.some((i) => (i as FakeStatusBarItem).text.includes('hello: ready') && i.visible), 'the hello status item');
	});

	/** Presses the permission button with this title whenever one is streamed. */
	function press(stream: RecordingStream, title: string): void {
		stream.onButton = (c) => {
			if (c.title === title) void vscode.commands.executeCommand(c.command, ...(c.arguments ?? []));
		};
	}

	it('streams a tool call of the agent (read_file) and the answer built on its result', async () => {
		const stream = new RecordingStream();
		press(stream, 'Allow once');
		const r = await h.chat.handle(chatRequest('call read_file {"path":"README.md"}', { model: { vendor: 'reasonix', id: ECHO } }), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		assert.equal(r.errorDetails, undefined, failure(JSON.stringify(r.errorDetails)));
		const text = stream.text();
		assert.match(text, /\$\(tools\) Read README\\\.md/, text);
		assert.match(text, /\$\(check\) Read README\\\.md done/, text);
		assert.match(text, /The tool returned: "?# test workspace/, text);
	});

	// Issue 19 bug 12: the question was a window-modal dialog showing raw JSON.
	it('asks permission in the response: the tool, its input as rows, Allow once / the engine\'s session grant / Deny; Deny is passed on', async () => {
		const stream = new RecordingStream();
		press(stream, 'Deny');
		const r = await h.chat.handle(chatRequest('call run_command {"command":["echo","hi"]}', { model: { vendor: 'reasonix', id: ECHO } }), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		assert.equal(r.errorDetails, undefined, failure(JSON.stringify(r.errorDetails)));
		assert.equal(fake.events.filter((e) => e.type === 'message' && e.options?.modal).length, 0, 'no modal dialog');
		assert.deepEqual(stream.buttons().map((b) => b.title), ['Allow once', 'Allow `echo hi` in the workspace root for this session', 'Deny']);
		const text = stream.text();
		assert.match(text, /\$\(shield\) \*\*Reasonix wants to run .*echo/, text);
		assert.match(text, /- command: echo hi/, text);
		assert.doesNotMatch(text, /\{|"command"/, text);
		assert.match(text, /denied/);
	});

	// Issue 26: the grant is the engine's — that exact command, not the tool.
	it('allows that exact command for the rest of the session: it is not asked about again, another command is', async () => {
		const stream = new RecordingStream();
		press(stream, 'Allow `echo granted` in the workspace root for this session');
		const call = 'call run_command {"command":["echo","granted"]}';
		const first = await h.chat.handle(chatRequest(call, { model: { vendor: 'reasonix', id: ECHO } }), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		assert.match(stream.text(), /The tool returned: .*granted/);
		const again = new RecordingStream();
		await h.chat.handle(chatRequest(call, { model: { vendor: 'reasonix', id: ECHO } }), { history: [responseTurn(first)] } as never, again as never, new CancellationTokenSource().token as never);
		assert.equal(again.buttons().length, 0, again.text());
		assert.match(again.text(), /The tool returned: .*granted/);
		const other = new RecordingStream();
		press(other, 'Deny');
		await h.chat.handle(chatRequest('call run_command {"command":["echo","other"]}', { model: { vendor: 'reasonix', id: ECHO } }), { history: [responseTurn(first)] } as never, other as never, new CancellationTokenSource().token as never);
		assert.equal(other.buttons().length, 3, other.text());
		assert.match(other.text(), /denied/);
	});

	// Issue 19 bug 3: request.references were never sent.
	it('sends the files and selections attached to a request, and a typed #file:', async () => {
		const readme = path.join(workspace, 'README.md');
		const notes = path.join(workspace, 'notes.txt');
		fake.files.set(readme, '# test workspace\nzebra-42\n');
		fake.files.set(notes, 'one\ntwo\nthree\nfour\n');
		vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file(workspace), name: 'ws', index: 0 }];
		const sel = new vscode.Location(vscode.Uri.file(notes), new vscode.Range(new vscode.Position(1, 0), new vscode.Position(2, 5)));
		const stream = new RecordingStream();
		const r = await h.chat.handle(chatRequest('what do these say #file:README.md', {
			model: { vendor: 'reasonix', id: ECHO },
			references: [{ id: 'vscode.selection', value: sel }],
		}), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		assert.equal(r.errorDetails, undefined, failure(JSON.stringify(r.errorDetails)));
		const text = stream.text();
		assert.match(text, new RegExp(`Resource file:${notes}#L2-3: two three`), text);
		assert.match(text, new RegExp(`Resource file:${readme}: # test workspace zebra-42`), text);
		assert.deepEqual(stream.parts.filter((p) => p.kind === 'reference').map((p) => p.value), [`file:${notes}#L2-3`, `file:${readme}`]);
		vscode.workspace.workspaceFolders = undefined;
	});

	// Issue 30: an image for a model without vision is refused by name, never dropped.
	it('refuses an image attached for a model without vision, naming the model', async () => {
		const png = new vscode.ChatReferenceBinaryData('image/png', async () => new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
		const r = await h.chat.handle(chatRequest('what is this?', {
			model: { vendor: 'reasonix', id: ECHO },
			references: [{ id: 'vscode.image', value: png }],
		}), { history: [] } as never, new RecordingStream() as never, new CancellationTokenSource().token as never);
		assert.match(r.errorDetails?.message ?? '', new RegExp(`model ${ECHO.replace(/\//g, '\\/')} does not accept images`), JSON.stringify(r));
	});

	// Issue 19 bug 1: /model's choice lost to the chat's model picker.
	it('@reasonix /model selects the model in the chat\'s model picker too', async () => {
		fake.answer = (e) => (e.type === 'quickPick' ? e.items.find((i: { ref: string }) => i.ref === 'plugin/echo-provider/echo/large') : undefined);
		const stream = new RecordingStream();
		await h.chat.handle(chatRequest('', { command: 'model' }), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		const change = fake.events.find((e) => e.type === 'command' && e.command === CHANGE_MODEL_COMMAND) as { args: unknown[] } | undefined;
		assert.deepEqual(change?.args, [{ vendor: 'reasonix', id: 'plugin/echo-provider/echo/large', family: 'echo-provider' }]);
		assert.match(stream.text().replace(/\\/g, ''), /Model: Echo \(large\) `plugin\/echo-provider\/echo\/large`/);
	});

	// Issue 19 bug 2: after a window reload or a bridge restart the chat
	// went on in a new, empty session.
	it('resumes the conversation\'s session after the bridge restarted: the agent keeps its history and model', async () => {
		const LARGE = 'plugin/echo-provider/echo/large';
		const first = await h.chat.handle(chatRequest('remember the zebra', { model: { vendor: 'reasonix', id: LARGE } }), { history: [] } as never, new RecordingStream() as never, new CancellationTokenSource().token as never);
		await h.bridge.restart();
		await eventually(() => h.rx.actions.some((a) => a.name === '/hello:greet'), 'actions after the restart', 30000);
		const stream = new RecordingStream();
		const r = await h.chat.handle(chatRequest('recap', { model: { vendor: 'reasonix', id: LARGE } }), { history: [responseTurn(first)] } as never, stream as never, new CancellationTokenSource().token as never);
		assert.equal(r.errorDetails, undefined, failure(JSON.stringify(r.errorDetails)));
		assert.match(stream.text(), /plugin\/echo-provider\/echo\/large here; 1 earlier user message: "remember the zebra"/, stream.text());
		assert.equal((r.metadata as ChatMetadata).sessionId, (first.metadata as ChatMetadata).sessionId);
	});

	it('Reasonix: Sessions… resumes a stored session in a new chat, replayed, and renames and deletes sessions', async () => {
		const token = new CancellationTokenSource().token as never;
		const first = await h.chat.handle(chatRequest('remember the walrus\nand the seal', { model: { vendor: 'reasonix', id: ECHO } }), { history: [] } as never, new RecordingStream() as never, token);
		const id = (first.metadata as ChatMetadata).sessionId!;
		// A new bridge, so the session is stored and closed, as after a window reload.
		await h.bridge.restart();
		await eventually(() => h.rx.actions.some((a) => a.name === '/hello:greet'), 'actions after the restart', 30000);
		const pick = (label: string, action: string) => {
			fake.answer = (e) => {
				if (e.type !== 'quickPick') return undefined;
				if (e.items.includes(action)) return action;
				return e.items.find((i: { label: string }) => i.label === label);
			};
		};
		pick('remember the walrus', RESUME);
		await vscode.commands.executeCommand(SESSIONS_COMMAND);
		const rows = (fake.events.find((e) => e.type === 'quickPick') as { items: { label: string; description: string; detail: string }[] }).items;
		const row = rows.find((i) => i.label === 'remember the walrus');
		assert.equal(row?.description, ECHO, JSON.stringify(rows));
		assert.equal(row?.detail, 'just now');
		const open = fake.events.filter((e) => e.type === 'command' && e.command === 'workbench.action.chat.open') as { args: { query: string }[] }[];
		assert.deepEqual(open.at(-1)?.args, [{ query: `@reasonix /resume ${id}` }]);
		// The query runs /resume in the chat: the conversation is replayed, the chat goes on with the session.
		const stream = new RecordingStream();
		const r = await h.chat.handle(chatRequest(id, { command: 'resume' }), { history: [] } as never, stream as never, token);
		assert.equal(r.errorDetails, undefined, failure(JSON.stringify(r.errorDetails)));
		assert.deepEqual(r.metadata, { sessionId: id, model: ECHO });
		const text = stream.text().replace(/\\/g, '');
		assert.match(text, /\$\(account\) \*\*You:\*\* remember the walrus  \nand the seal\n/, text);
		assert.match(text, /Session resumed on plugin\/echo-provider\/echo\/small: this chat goes on with it/, text);
		const next = new RecordingStream();
		await h.chat.handle(chatRequest('recap', { model: { vendor: 'reasonix', id: ECHO } }), { history: [responseTurn(r)] } as never, next as never, token);
		assert.match(next.text(), /1 earlier user message: "remember the walrus and the seal"/, next.text());
		// /resume without an id lists the sessions as links that resume them.
		const listed = new RecordingStream();
		await h.chat.handle(chatRequest('', { command: 'resume' }), { history: [] } as never, listed as never, token);
		assert.ok(listed.text().includes(encodeURIComponent(JSON.stringify([{ query: `@reasonix /resume ${id}` }]))), listed.text());
		// Rename, then delete after the confirmation.
		fake.answer = (e) => (e.type === 'quickPick' ? (e.items.includes(RENAME) ? RENAME : e.items.find((i: { label: string }) => i.label === 'remember the walrus')) : e.type === 'inputBox' ? 'Walrus talk' : undefined);
		await vscode.commands.executeCommand(SESSIONS_COMMAND);
		const listed2 = new RecordingStream();
		await h.chat.handle(chatRequest('', { command: 'resume' }), { history: [] } as never, listed2 as never, token);
		assert.match(listed2.text(), /\[Walrus talk\]/, listed2.text());
		fake.answer = (e) => (e.type === 'quickPick' ? (e.items.includes(DELETE) ? DELETE : e.items.find((i: { label: string }) => i.label === 'Walrus talk')) : e.type === 'message' && e.options?.modal ? DELETE : undefined);
		await vscode.commands.executeCommand(SESSIONS_COMMAND);
		assert.ok(fake.messages().some((m) => m.includes('deleted "Walrus talk"')), fake.messages().join('\n'));
		const gone = new RecordingStream();
		await h.chat.handle(chatRequest('', { command: 'resume' }), { history: [] } as never, gone as never, token);
		assert.doesNotMatch(gone.text(), /Walrus talk/);
		fake.answer = () => undefined;
	});

	it('@reasonix /mode plan refuses edits; after a restart the chat says the session is in plan mode; /mode switches it back', async () => {
		const token = new CancellationTokenSource().token as never;
		const ask = (prompt: string, history: unknown[], extra: Record<string, unknown> = {}) => {
			const stream = new RecordingStream();
			return h.chat.handle(chatRequest(prompt, { model: { vendor: 'reasonix', id: ECHO }, ...extra }), { history } as never, stream as never, token)
				.then((r) => ({ r, text: stream.text() }));
		};
		const first = await ask('start', []);
		const history = [responseTurn(first.r)];
		const plan = await ask('plan', history, { command: 'mode' });
		assert.match(plan.text, /Plan mode: the agent reads, searches and plans/, plan.text);
		const refused = await ask('call apply_edit {"path": "plan.txt", "content": "x"}', history);
		assert.match(refused.text, /plan mode: apply_edit is refused/, refused.text);
		assert.equal(fs.existsSync(path.join(workspace, 'plan.txt')), false);
		await h.bridge.restart();
		await eventually(() => h.rx.actions.some((a) => a.name === '/hello:greet'), 'actions after the restart', 30000);
		const after = await ask('hello again', history);
		assert.match(after.text, /This session is in plan mode: .*`@reasonix \/mode normal` switches it/, after.text);
		fake.answer = (e) => (e.type === 'quickPick' ? e.items.find((i: { mode: string }) => i.mode === 'normal') : undefined);
		const normal = await ask('', history, { command: 'mode' });
		fake.answer = () => undefined;
		assert.match(normal.text, /Normal mode/, normal.text);
		const bad = await ask('yolo', history, { command: 'mode' });
		assert.match(String(bad.r.errorDetails?.message), /mode "yolo"/);
		const none = await ask('plan', [], { command: 'mode' });
		assert.match(none.text, /no session yet/);
	});

	it('traces plugin frames with $/logTrace when the trace is verbose', async () => {
		await eventually(() => transport.logTraces.length > 0, 'a $/logTrace');
		assert.ok(transport.logTraces.some((t) => /^[a-z0-9-]+ (<-|->) \S+( id=\S+)?$/.test(t.message)), JSON.stringify(transport.logTraces.slice(0, 5)));
	});

	it('reloads into a newer generation and forgets the older surfaces', async () => {
		const before = h.rx.generations.current;
		fake.statusItems.length = 0;
		h.ui.surface({ plugin: 'hello', surfaceId: 'probe', sessionId: 's-1', generation: before, kind: 'status', payload: { label: 'old' } });
		await vscode.commands.executeCommand(CommandId.reload);
		assert.ok(fake.messages().some((m) => /plugins reloaded \(generation \d+\)/.test(m)), fake.messages().join('\n'));
		await eventually(() => h.rx.generations.current > before, 'a newer generation');
		assert.equal((fake.statusItems[0] as FakeStatusBarItem).disposed, true);
		assert.ok(h.rx.actions.some((a) => a.name === '/hello:greet'));
	});

	it('restarts the bridge after it died', async () => {
		const starts = transport.starts;
		const pid = findChildPid();
		process.kill(pid, 'SIGKILL');
		await eventually(() => transport.starts === starts + 1 && h.bridge.state === 'running', 'a restarted bridge', 20000);
		await eventually(() => h.rx.actions.some((a) => a.name === '/hello:greet'), 'actions after the restart', 30000);
	});
});

function responseTurn(r: { metadata?: unknown }) {
	return new vscode.ChatResponseTurn([], { metadata: r.metadata }, 'rxBridge.reasonix');
}

function findChildPid(): number {
	const out = execFileSync('pgrep', ['-P', String(process.pid), '-f', `${BIN} serve`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
	assert.equal(out.length, 1, `one rx-bridge serve child, found ${out.join(',')}`);
	return Number(out[0]);
}

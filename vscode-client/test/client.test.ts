// The extension's parts against a scripted in-process server: actions and
// their UI round trips, session streaming into a chat response, cancellation,
// permission questions, the language model provider, restarts.
import './support/setup';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { FatalStartError, Transport } from '../src/bridge';
import { CHAT_OPEN, CommandId, PLUGINS_DOC } from '../src/commands';
import { ChatMetadata, MAX_PROMPT_IMAGE_BYTES, PARTICIPANT_ID, UNDO_ANYWAY } from '../src/chat';
import { VENDOR } from '../src/lm';
import { BridgeStatus, STATUS_ITEM_ID } from '../src/status';
import { chatRequest, eventually, harness, RecordingStream } from './support/harness';
import { FakeServer, StreamTransport } from './support/rpc';
import * as vscode from './support/vscode';
import { CancellationTokenSource, fake } from './support/vscode';

type H = ReturnType<typeof harness>;
let server: FakeServer;
let transport: StreamTransport;
let h: H;

async function start(setup?: (s: FakeServer) => void): Promise<void> {
	server = new FakeServer();
	setup?.(server);
	transport = new StreamTransport(server.io);
	h = harness(transport);
	h.bridge.start();
	await h.bridge.ready();
}

beforeEach(() => fake.reset());
afterEach(async () => { await h?.bridge.stop(); });

describe('initialize', () => {
	it('sends the client capabilities of EDITOR_PROTOCOL.md §1.1', async () => {
		await start();
		const caps = server.initializeParams.capabilities;
		assert.deepEqual(caps.experimental.rxBridge, {
			version: 1,
			ui: { select: true, multiselect: true, input: true, confirm: true, form: true, notification: true, status: true, card: true },
			sessionUpdates: true, lmChat: true, reviewEdits: true,
		});
		assert.equal(caps.window.workDoneProgress, true);
		assert.equal(caps.workspace.applyEdit, true);
	});

	it('takes the generation of the initialize result', async () => {
		await start((s) => { s.info.generation = 5; s.setup((c) => c.onRequest('rx/actions', () => ({ generation: 5, actions: [] }))); });
		assert.equal(h.rx.generations.current, 5);
	});
});

describe('actions', () => {
	it('lists actions in a quick-pick refreshed on rx/actionsChanged, runs the pick, answers its UI requests', async () => {
		let gen = 1;
		let actions = [{ name: '/hello:greet', plugin: 'hello', actionId: 'greet', label: 'Greet me' }];
		const uiAnswers: unknown[] = [];
		await start((s) => s.setup((c) => {
			c.onRequest('rx/actions', () => ({ generation: gen, actions }));
			c.onRequest('workspace/executeCommand', async (p: { command: string; arguments: unknown[] }) => {
				assert.equal(p.command, 'rx.runAction');
				assert.deepEqual(p.arguments, ['/hello:greet']);
				uiAnswers.push(await c.sendRequest('rx/ui/request', { plugin: 'hello', surfaceId: 'q1', sessionId: '', generation: gen, kind: 'select', title: '', message: 'How should I greet you?', fields: [{ key: 'value', label: 'How should I greet you?', kind: 'select', options: ['friendly', 'formal', 'pirate'], required: true }] }));
				uiAnswers.push(await c.sendRequest('rx/ui/request', { plugin: 'hello', surfaceId: 'q2', sessionId: '', generation: gen, kind: 'input', message: 'Your name', fields: [{ key: 'value', label: 'Your name', kind: 'input' }] }));
				await c.sendNotification('rx/ui/surface', { plugin: 'hello', surfaceId: 'hello-greeting', sessionId: '', generation: gen, kind: 'notification', payload: { title: 'Ahoy, Ada!', body: 'Greeted by the hello example plugin.', severity: 'info' } });
				return { accepted: true, message: 'Ahoy, Ada!' };
			});
		}));
		let pickerShown = 0;
		fake.answer = (e) => {
			if (e.type === 'createQuickPick') {
				const qp = e.input;
				pickerShown++;
				void (async () => {
					await eventually(() => !qp.busy, 'action list');
					assert.deepEqual(qp.items.map((i) => [i.label, i.description]), [['/hello:greet', 'Greet me']]);
					// A reload while the picker is open refreshes it.
					gen = 2;
					actions = [...actions, { name: '/hello:wave', plugin: 'hello', actionId: 'wave', label: '' }];
					await server.conn.sendNotification('rx/actionsChanged', { generation: 2, actions, hookPoints: [], warnings: [] });
					await eventually(() => qp.items.length === 2, 'refreshed action list');
					assert.equal(h.rx.generations.current, 2);
					actions = actions.slice(0, 1);
					qp.pick('/hello:greet');
				})();
				return undefined;
			}
			if (e.type === 'quickPick') return e.items.find((i: { option: string }) => i.option === 'pirate');
			if (e.type === 'inputBox') return 'Ada';
			return undefined;
		};
		await vscode.commands.executeCommand(CommandId.runAction);
		assert.equal(pickerShown, 1);
		assert.deepEqual(uiAnswers, [{ cancelled: false, values: { value: 'pirate' } }, { cancelled: false, values: { value: 'Ada' } }]);
		await eventually(() => fake.messages().includes('hello: Ahoy, Ada! — Greeted by the hello example plugin.'), 'notification');
		// Issue 30 item 11: one toast per greeting; the result message of an
		// action that notified is not shown a second time.
		assert.deepEqual(fake.messages(), ['hello: Ahoy, Ada! — Greeted by the hello example plugin.']);
		// An action that shows no notification: its result message is the toast.
		server.conn.onRequest('workspace/executeCommand', () => ({ accepted: true, message: 'Waved.' }));
		fake.events = [];
		await vscode.commands.executeCommand(CommandId.runAction, '/hello:greet');
		assert.deepEqual(fake.messages(), ['/hello:greet: Waved.']);
	});

	it('runs a slash command from the picker: asks its arguments with the hint as placeholder, then sends the line to @reasonix', async () => {
		const actions = [
			{ name: '/hello:greet', kind: 'action', plugin: 'hello', actionId: 'greet', label: 'Greet me' },
			{ name: '/kit:review', kind: 'command', plugin: 'kit', actionId: 'kit:review', label: '', source: 'command', description: 'Review a file', argumentHint: '<file>' },
		];
		let ran = 0;
		await start((s) => s.setup((c) => {
			c.onRequest('rx/actions', () => ({ generation: 1, actions }));
			c.onRequest('workspace/executeCommand', () => { ran++; return { accepted: true }; });
		}));
		fake.answer = (e) => {
			if (e.type === 'createQuickPick') {
				const qp = e.input;
				void (async () => {
					await eventually(() => !qp.busy, 'action list');
					assert.deepEqual(qp.items.map((i) => [i.label, i.description]), [['/hello:greet', 'Greet me'], ['/kit:review', '<file> — Review a file']]);
					qp.pick('/kit:review');
				})();
				return undefined;
			}
			if (e.type === 'inputBox') return ' main.go ';
			return undefined;
		};
		await vscode.commands.executeCommand(CommandId.runAction);
		const box = fake.events.find((e) => e.type === 'inputBox') as { options: { placeHolder: string; prompt: string; title: string } };
		assert.equal(box.options.placeHolder, '<file>');
		assert.equal(box.options.prompt, 'Review a file');
		const open = fake.events.filter((e) => e.type === 'command' && e.command === CHAT_OPEN) as { args: unknown[] }[];
		assert.deepEqual(open.map((e) => e.args), [[{ query: '@reasonix /kit:review main.go' }]]);
		assert.equal(ran, 0, 'a command is no rx.runAction');

		// Escape in the input box runs nothing.
		fake.answer = () => undefined;
		await h.commands.runCommand(actions[1] as never);
		assert.equal(fake.events.filter((e) => e.type === 'command' && e.command === CHAT_OPEN).length, 1);
	});

	it('shows a run failure as an error message with the bridge message', async () => {
		await start((s) => s.setup((c) => c.onRequest('workspace/executeCommand', () => {
			throw new ResponseError(-32602, 'unknown action "/x:y"; available: /hello:greet');
		})));
		await h.commands.runAction('/x:y');
		assert.ok(fake.messages().some((m) => m.includes('unknown action "/x:y"; available: /hello:greet')), fake.messages().join('\n'));
	});

	it('reloads with rx.reload and reports the generation and warnings', async () => {
		await start((s) => s.setup((c) => c.onRequest('workspace/executeCommand', (p: { command: string }) => {
			assert.equal(p.command, 'rx.reload');
			return { generation: 4, warnings: ['optional plugin x failed to start'] };
		})));
		await vscode.commands.executeCommand(CommandId.reload);
		assert.ok(fake.messages().includes('Reasonix: plugins reloaded (generation 4)'));
		assert.ok(fake.messages().includes('Reasonix: optional plugin x failed to start'));
	});

	it('shows plugins with their FULL TRUST block verbatim', async () => {
		const trust = 'FULL TRUST\n  command: /h/plugins/hello/bin/hello\n  capabilities: interceptors, ui';
		await start((s) => s.setup((c) => c.onRequest('rx/plugins', () => ({ plugins: [{ name: 'hello', version: '0.1.0', enabled: true, running: true, generation: 1, runtime: { command: '/h/bin/hello', args: [], intercepts: ['input.receive'], replaces: [], capabilities: ['interceptors', 'ui'], required: false, priority: 0 }, trust, error: '' }] }))));
		await vscode.commands.executeCommand(CommandId.showPlugins);
		const text = h.docs.get(PLUGINS_DOC)!;
		assert.match(text, /^hello 0\.1\.0 — running/);
		for (const line of trust.split('\n')) assert.ok(text.includes(`  ${line}`), `missing ${line}`);
		assert.ok(fake.events.some((e) => e.type === 'showTextDocument'));
	});

	it('shows a crashed plugin as crashed, why, since when, how to recover and its stderr', async () => {
		await start((s) => s.setup((c) => c.onRequest('rx/plugins', () => ({ plugins: [{ name: 'hello', version: '0.1.0', enabled: true, running: false, generation: 1,
			state: 'crashed', reason: 'extension sidecar hello crashed: connection closed (exit status 2) (provider_interrupted)', since: '2025-06-01T09:12:44Z',
			recover: 'reload the plugins (rx.reload) to start a fresh sidecar', details: 'panic: boom\ngoroutine 1 [running]:',
			runtime: null, trust: '', error: 'extension sidecar hello crashed: connection closed (exit status 2) (provider_interrupted)' }] }))));
		await vscode.commands.executeCommand(CommandId.showPlugins);
		const text = h.docs.get(PLUGINS_DOC)!;
		assert.match(text, /^hello 0\.1\.0 — crashed\n  why: extension sidecar hello crashed: connection closed \(exit status 2\) \(provider_interrupted\)\n  since: 2025-06-01T09:12:44Z\n  to recover: reload the plugins \(rx\.reload\)/);
		assert.ok(text.includes('  details (stderr):\n    panic: boom\n    goroutine 1 [running]:'), text);
		assert.equal(text.split('exit status 2').length - 1, 1, 'the reason is shown once');
	});

	it('opens the log channel', async () => {
		await start();
		await vscode.commands.executeCommand(CommandId.showLog);
		assert.equal(fake.output[0].shown, true);
	});
});

describe('chat participant', () => {
	function sessionServer(s: FakeServer, turn: (c: FakeServer['conn'], p: { sessionId: string; prompt: string }) => Promise<unknown>) {
		s.setup((c) => {
			c.onRequest('rx/session/new', (p: { model?: string }) => ({ sessionId: 's-1', model: p.model ?? 'plugin/echo-provider/echo/small' }));
			c.onRequest('rx/session/setModel', () => ({}));
			c.onRequest('rx/session/prompt', (p: { sessionId: string; prompt: string }) => turn(c, p));
		});
	}
	const upd = (update: unknown) => ({ sessionId: 's-1', update });

	it('streams message chunks, thoughts, tool calls, notices and permissions into the response', async () => {
		await start((s) => sessionServer(s, async (c, p) => {
			assert.equal(p.prompt, 'read the readme');
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } }));
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'read_file README.md', kind: 'read', status: 'pending', rawInput: { path: 'README.md' } }));
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: '# rx' } }] }));
			// Calls go by their key; one answered without running names itself.
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'tool_call_update', toolCallId: 'tc9', title: 'list_files', status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'not run: the turn ended' } }] }));
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'tool_call_update', toolCallId: 'tc10', status: 'failed' }));
			const perm = await c.sendRequest('rx/session/requestPermission', { sessionId: 's-1', toolCall: { toolCallId: 'call-2', title: 'run_command go test', kind: 'execute', rawInput: { command: 'go' } }, options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'deny', name: 'Deny', kind: 'reject_once' }] });
			assert.deepEqual(perm, { outcome: { outcome: 'selected', optionId: 'allow' } });
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'permission', toolCallId: 'call-2', outcome: 'allowed', by: 'user' }));
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'notice', severity: 'warn', text: 'extension x failed at tool.before' }));
			const subagent = { id: 'sub1.1', name: 'kit:agent:reviewer', parentToolCallId: 'call-1' };
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'SUBAGENT TEXT' }, subagent }));
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'tool_call', toolCallId: 'sub1.1/c', title: 'grep TODO', kind: 'search', status: 'pending', subagent }));
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello ' } }));
			await c.sendNotification('rx/session/update', { sessionId: 'other', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'NOT MINE' } } });
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '**world**' } }));
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'usage', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }));
			return { stopReason: 'end_turn', text: 'Hello **world**' };
		}));
		const stream = new RecordingStream();
		stream.onButton = (b) => { if (b.title === 'Allow') void vscode.commands.executeCommand(b.command, ...(b.arguments ?? [])); };
		const r = await h.chat.handle(chatRequest('read the readme'), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		// No model of ours in the chat: the session gets rx/models' default.
		assert.deepEqual(r.metadata, { sessionId: 's-1', model: 'builtin/default', stopReason: 'end_turn' } satisfies ChatMetadata);
		const text = stream.text();
		assert.ok(stream.parts.some((p) => p.kind === 'progress' && p.value === 'Thinking…'));
		assert.match(text, /\$\(tools\) read\\_file README\\\.md/);
		assert.match(text, /\$\(check\) read\\_file README\\\.md done/);
		assert.match(text, /\$\(error\) list\\_files failed: not run: the turn ended/);
		assert.match(text, /\$\(error\) a tool call failed/);
		assert.doesNotMatch(text, /tc9|tc10/);
		assert.match(text, /\$\(shield\) \*\*Reasonix wants to run run\\_command go test\*\*\n- command: go/);
		assert.match(text, /allowed by user/);
		assert.match(text, /\$\(warning\) extension x failed at tool\\\.before/);
		assert.ok(text.includes('Hello **world**'), text);
		// Issue 19 item 14: one progress message (a step of VS Code's
		// "Completed N steps") per model round, not per update; the turn's
		// token usage at its end.
		assert.deepEqual(stream.parts.filter((p) => p.kind === 'progress').map((p) => p.value), ['Thinking…', 'kit:agent:reviewer is working…']);
		assert.ok(text.endsWith('*2 tokens (1 in, 1 out)*'), text);
		assert.doesNotMatch(text, /NOT MINE/);
		// A subagent's text stays out of the answer; its tool calls are named after it.
		assert.doesNotMatch(text, /SUBAGENT TEXT/);
		assert.ok(stream.parts.some((p) => p.kind === 'progress' && p.value === 'kit:agent:reviewer is working…'));
		assert.match(text, /\$\(tools\) kit:agent:reviewer › grep TODO/);
		assert.equal(fake.events.filter((e) => e.type === 'message').length, 0, 'no dialog');
		assert.deepEqual(stream.buttons().map((b) => b.title), ['Allow', 'Deny']);
		// Issue 30 item 11: an answered question's buttons do nothing but say its answer.
		const deny = stream.buttons()[1];
		await vscode.commands.executeCommand(deny.command, ...(deny.arguments ?? []));
		assert.deepEqual(fake.messages(), ['Reasonix: this question was already answered: Allow.']);
		// Model output is Markdown without theme icons; our lines have them.
		assert.equal(stream.parts.find((p) => p.value === 'Hello ')?.icons, false);
	});

	// Issue 19 item 11: the turn's changed files, and an undo of the whole turn.
	it('lists the files a turn changed as links and undoes the turn from its button, offering force for skipped files', async () => {
		const undos: { sessionId: string; force?: boolean }[] = [];
		vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file('/w'), name: 'w', index: 0 }];
		await start((s) => {
			sessionServer(s, async () => ({ stopReason: 'end_turn', text: 'edited', turn: 2, edits: [{ path: '/w/a.txt', created: false }, { path: '/w/new.txt', created: true }] }));
			s.setup((c) => c.onRequest('rx/session/undoTurn', (p: { sessionId: string; force?: boolean }) => {
				undos.push(p);
				return p.force
					? { turn: 2, restored: ['/w/a.txt'], skipped: [] }
					: { turn: 2, restored: ['/w/new.txt'], skipped: [{ path: '/w/a.txt', reason: 'changed since the turn (force restores it anyway)' }] };
			}));
		});
		const stream = new RecordingStream();
		await h.chat.handle(chatRequest('edit two files'), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		const text = stream.text();
		assert.match(text, /Changed files/);
		assert.match(text, /\[a\\?\.txt\]\(file:\/w\/a\.txt\)/);
		assert.match(text, /\[new\\?\.txt\]\(file:\/w\/new\.txt\) \(new\)/);
		const undo = stream.buttons().find((b) => b.title === 'Undo turn');
		assert.ok(undo, `no Undo turn button: ${JSON.stringify(stream.buttons())}`);
		fake.answer = (e) => (e.type === 'message' && e.buttons.includes(UNDO_ANYWAY) ? UNDO_ANYWAY : undefined);
		await vscode.commands.executeCommand(undo.command, ...(undo.arguments ?? []));
		assert.deepEqual(undos, [{ sessionId: 's-1' }, { sessionId: 's-1', force: true }]);
		const msgs = fake.events.filter((e) => e.type === 'message').map((e) => (e as { message: string }).message);
		assert.match(msgs[0], /undid turn 2 in part: restored new\.txt; not restored: a\.txt \(changed since the turn/);
		assert.match(msgs[1], /undid turn 2: restored a\.txt/);
		// Issue 30 item 11: the button, clicked again, undoes no older turn.
		await vscode.commands.executeCommand(undo.command, ...(undo.arguments ?? []));
		assert.equal(undos.length, 2);
		assert.equal(fake.messages().at(-1), 'Reasonix: turn 2 was already undone.');
	});

	// Issue 30 item 5: a reviewed agent edit. The Refactor Preview opened
	// it unticked, so its Apply applied nothing and told the agent the
	// user rejected it, and it took the focus from the chat.
	it('asks a reviewed edit in the chat: Accept applies it all, Choose Changes… starts with every change ticked, Reject applies nothing', async () => {
		fake.files.set('/w/a.txt', 'one\ntwo\nthree\n');
		vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file('/w'), name: 'w', index: 0 }];
		const review = (uri: string, edits: { range: unknown; newText: string }[], create = false) => ({
			label: 'Reasonix: apply_edit',
			edit: {
				documentChanges: [
					...(create ? [{ kind: 'create', uri, annotationId: 'rx-review' }] : []),
					{ textDocument: { uri, version: create ? null : 3 }, edits: edits.map((e) => ({ ...e, annotationId: 'rx-review' })) },
				],
				changeAnnotations: { 'rx-review': { label: 'Reasonix: apply_edit', needsConfirmation: true, description: `Reasonix wants to change ${uri}` } },
			},
		});
		const r = (l: number, c: number, l2: number, c2: number) => ({ start: { line: l, character: c }, end: { line: l2, character: c2 } });
		const results: unknown[] = [];
		await start((s) => sessionServer(s, async (c) => {
			results.push(await c.sendRequest('workspace/applyEdit', review('file:///w/a.txt', [{ range: r(0, 0, 0, 3), newText: 'ONE' }, { range: r(2, 0, 2, 5), newText: 'THREE' }])));
			results.push(await c.sendRequest('workspace/applyEdit', review('file:///w/a.txt', [{ range: r(0, 0, 0, 3), newText: 'ONE' }, { range: r(2, 0, 2, 5), newText: 'THREE' }])));
			results.push(await c.sendRequest('workspace/applyEdit', review('file:///w/new.txt', [{ range: r(0, 0, 0, 0), newText: 'fresh\n' }], true)));
			return { stopReason: 'end_turn', text: 'done' };
		}));
		transport.applyResult = { applied: true };
		let pickList: { label: string; description: string; picked?: boolean }[] = [];
		fake.answer = (e) => {
			if (e.type === 'quickPick') {
				pickList = e.items;
				assert.equal(e.options.canPickMany, true);
				return e.items.filter((i: { label: string }) => i.label.includes('three')); // untick the first change
			}
			return undefined;
		};
		const stream = new RecordingStream();
		const clicks = ['Accept', 'Choose Changes…', 'Reject'];
		let reviews = 0;
		stream.onButton = (b) => {
			if (b.title !== 'Accept') return;
			// The buttons of one review are streamed together: click after the last.
			const which = clicks[reviews++];
			setImmediate(() => {
				const mine = stream.buttons().filter((x) => x.arguments?.[0] === b.arguments?.[0]);
				const target = mine.find((x) => x.title === which)!;
				void vscode.commands.executeCommand(target.command, ...(target.arguments ?? []));
			});
		};
		await h.chat.handle(chatRequest('edit'), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		const text = stream.text();
		// The change is shown as a diff in the chat, and nothing took the focus.
		assert.match(text, /Reasonix wants to change a\\\.txt/);
		assert.match(text, /```diff\n- one\n\+ ONE\n```/);
		assert.equal(fake.events.filter((e) => e.type === 'showTextDocument' || (e.type === 'command' && e.command === 'vscode.diff')).length, 0);
		assert.deepEqual(stream.buttons().slice(0, 4).map((b) => b.title), ['Accept', 'Reject', 'Choose Changes…', 'Show Diff']);
		// Accept: all of it, without its review annotations (no second review).
		assert.deepEqual(results, [{ applied: true }, { applied: true }, { applied: false, failureReason: 'the user rejected the edit' }]);
		assert.deepEqual(transport.applied[0].edit, { documentChanges: [{ textDocument: { uri: 'file:///w/a.txt', version: 3 }, edits: [{ range: r(0, 0, 0, 3), newText: 'ONE' }, { range: r(2, 0, 2, 5), newText: 'THREE' }] }] });
		// Choose Changes…: every change ticked to start with; the one left ticked lands.
		assert.deepEqual(pickList.map((i) => [i.label, i.picked]), [['one → ONE', true], ['three → THREE', true]]);
		assert.deepEqual(transport.applied[1].edit, { documentChanges: [{ textDocument: { uri: 'file:///w/a.txt', version: 3 }, edits: [{ range: r(2, 0, 2, 5), newText: 'THREE' }] }] });
		// Reject: nothing applied.
		assert.equal(transport.applied.length, 2);
		for (const line of ['$(check) Accepted the change to a\\.txt\\.', '$(check) Accepted 1 of 2 changes to a\\.txt\\.', '$(close) Rejected the change to new\\.txt\\.']) {
			assert.ok(text.includes(line), `no ${line} in ${text}`);
		}
		// A button of an answered review does nothing but say so.
		const stale = stream.buttons()[0];
		await vscode.commands.executeCommand(stale.command, ...(stale.arguments ?? []));
		assert.equal(transport.applied.length, 2);
		assert.deepEqual(fake.messages(), ['Reasonix: this change was already accepted.']);
	});

	it('withdraws a review whose turn ended before an answer: a later Accept applies nothing', async () => {
		fake.files.set('/w/a.txt', 'one\n');
		const reviewed = { label: 'Reasonix: apply_edit', edit: { documentChanges: [{ textDocument: { uri: 'file:///w/a.txt', version: 1 }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText: 'ONE', annotationId: 'rx-review' }] }], changeAnnotations: { 'rx-review': { label: 'Reasonix: apply_edit', needsConfirmation: true } } } };
		let answer: Promise<unknown> | undefined;
		await start((s) => sessionServer(s, async (c) => {
			answer = c.sendRequest('workspace/applyEdit', reviewed);
			await eventually(() => stream.buttons().length === 2 + 1, 'the review buttons');
			return { stopReason: 'cancelled', text: '' };
		}));
		transport.applyResult = { applied: true };
		const stream = new RecordingStream();
		await h.chat.handle(chatRequest('edit'), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		assert.deepEqual(await answer, { applied: false, failureReason: 'the user rejected the edit' });
		const accept = stream.buttons().find((b) => b.title === 'Accept')!;
		await vscode.commands.executeCommand(accept.command, ...(accept.arguments ?? []));
		assert.deepEqual(transport.applied, []);
		assert.deepEqual(fake.messages(), ['Reasonix: this change was withdrawn: its turn ended.']);
	});

	it('applies an edit that needs no review as it is', async () => {
		const edit = { documentChanges: [{ textDocument: { uri: 'file:///w/a.txt', version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: 'x' }] }] };
		let result: unknown;
		await start((s) => sessionServer(s, async (c) => {
			result = await c.sendRequest('workspace/applyEdit', { label: 'Reasonix: apply_edit', edit });
			return { stopReason: 'end_turn', text: 'done' };
		}));
		transport.applyResult = { applied: true };
		const stream = new RecordingStream();
		await h.chat.handle(chatRequest('edit'), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		assert.deepEqual(result, { applied: true });
		assert.deepEqual(transport.applied, [{ label: 'Reasonix: apply_edit', edit }]);
		assert.deepEqual(stream.buttons(), []);
	});

	// Issue 30 item 10: "Resume in Chat" of a session whose chat tab was
	// closed said it was open in another chat and replayed nothing; the
	// chat's model picker kept another model, which the next turn switched to.
	it('resumes a session still open on the bridge (its chat closed): reopened and replayed, the picker set to its model', async () => {
		const calls: string[] = [];
		await start((s) => {
			sessionServer(s, async () => ({ stopReason: 'end_turn', text: 'ok' }));
			s.setup((c) => {
				c.onRequest('rx/models', () => ({ models: [{ ref: 'plugin/echo-provider/echo/large', displayName: 'Echo (large)' }, { ref: 'plugin/echo-provider/echo/small', displayName: 'Echo (small)', origin: { kind: 'plugin', id: 'echo-provider' } }], default: 'plugin/echo-provider/echo/large' }));
				c.onRequest('rx/session/close', (p: { sessionId: string }) => { calls.push(`close ${p.sessionId}`); return {}; });
				c.onRequest('rx/session/load', async (p: { sessionId: string }) => {
					calls.push(`load ${p.sessionId}`);
					await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'the first prompt' } }));
					await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'the first answer' } }));
					return { sessionId: p.sessionId, model: 'plugin/echo-provider/echo/small' };
				});
			});
		});
		const token = new CancellationTokenSource().token as never;
		await h.chat.handle(chatRequest('the first prompt'), { history: [] } as never, new RecordingStream() as never, token);
		// The chat closed; Reasonix: Sessions… → Resume in Chat runs /resume in a new one.
		const stream = new RecordingStream();
		const r = await h.chat.handle(chatRequest('s-1', { command: 'resume' }), { history: [] } as never, stream as never, token);
		assert.deepEqual(calls, ['close s-1', 'load s-1']);
		assert.deepEqual(r.metadata, { sessionId: 's-1', model: 'plugin/echo-provider/echo/small' });
		const text = stream.text();
		assert.match(text, /\*\*You:\*\* the first prompt/);
		assert.match(text, /the first answer/);
		assert.doesNotMatch(text, /open in another chat/);
		const picker = fake.events.filter((e) => e.type === 'command' && e.command === 'workbench.action.chat.changeModel') as { args: unknown[] }[];
		assert.deepEqual(picker.map((e) => e.args), [[{ vendor: 'reasonix', id: 'plugin/echo-provider/echo/small', family: 'echo-provider' }]]);
	});

	// Issue 30 item 12: the session list as a view, with Resume, Rename and Delete.
	it('lists the stored sessions in the Sessions view (title, model, when) and resumes, renames and deletes them there', async () => {
		let sessions = [
			{ sessionId: 's-2', title: 'fix the parser', model: 'plugin/echo-provider/echo/small', updatedAt: new Date(Date.now() - 5 * 60000).toISOString() },
			{ sessionId: 's-1', title: '', model: 'builtin/default', updatedAt: new Date(Date.now() - 2 * 86400000).toISOString() },
		];
		const calls: unknown[] = [];
		await start((s) => {
			sessionServer(s, async () => ({ stopReason: 'end_turn', text: 'ok' }));
			s.setup((c) => {
				c.onRequest('rx/session/list', () => ({ sessions }));
				c.onRequest('rx/session/rename', (p: { sessionId: string; title: string }) => { calls.push(['rename', p]); sessions[0] = { ...sessions[0], title: p.title }; return {}; });
				c.onRequest('rx/session/delete', (p: { sessionId: string }) => { calls.push(['delete', p]); sessions = sessions.filter((x) => x.sessionId !== p.sessionId); return {}; });
			});
		});
		h.sessionsView.attach();
		const view = fake.treeViews.find((v) => v.id === 'rxBridge.sessionsView')!;
		let changes = 0;
		h.sessionsView.onDidChangeTreeData(() => { changes++; });
		const rows = async () => {
			const list = await view.provider.getChildren();
			return list.map((x: unknown) => { const i = view.provider.getTreeItem(x); return [i.label, i.description, i.contextValue]; });
		};
		assert.deepEqual(await rows(), [
			['fix the parser', 'plugin/echo-provider/echo/small · 5 min ago', 'session'],
			['(no prompt yet)', 'builtin/default · 2 days ago', 'session'],
		]);
		const first = (await view.provider.getChildren())[0];
		// A click resumes it in a new chat.
		const item = view.provider.getTreeItem(first);
		await vscode.commands.executeCommand(item.command.command, ...item.command.arguments);
		const opened = fake.events.filter((e) => e.type === 'command' && (e.command === 'workbench.action.chat.newChat' || e.command === 'workbench.action.chat.open')) as { command: string; args: unknown[] }[];
		assert.deepEqual(opened.map((e) => [e.command, e.args]), [['workbench.action.chat.newChat', []], ['workbench.action.chat.open', [{ query: '@reasonix /resume s-2' }]]]);
		// Rename, then the view refreshes with the new title.
		fake.answer = (e) => (e.type === 'inputBox' ? 'Parser work' : e.type === 'message' && e.options?.modal ? 'Delete' : undefined);
		const before = changes;
		await vscode.commands.executeCommand('rxBridge.sessions.rename', first);
		assert.ok(changes > before, 'the view refreshed after the rename');
		assert.equal((await rows())[0][0], 'Parser work');
		await vscode.commands.executeCommand('rxBridge.sessions.delete', (await view.provider.getChildren())[1]);
		assert.deepEqual(calls, [['rename', { sessionId: 's-2', title: 'Parser work' }], ['delete', { sessionId: 's-1' }]]);
		assert.deepEqual((await rows()).map((r: unknown[]) => r[0]), ['Parser work']);
		// A chat turn refreshes the view too; no session: the view says how one starts.
		const n = changes;
		await h.chat.handle(chatRequest('hi'), { history: [] } as never, new RecordingStream() as never, new CancellationTokenSource().token as never);
		assert.ok(changes > n, 'the view refreshed after a turn');
		sessions = [];
		assert.deepEqual(await rows(), []);
		assert.equal(view.message, 'No stored session in this workspace yet: a @reasonix chat starts one.');
	});

	// Issue 30 (if time remains): the agent's plan as a checklist.
	it('shows the agent\'s plan (todo_write) as a checklist', async () => {
		await start((s) => sessionServer(s, async (c) => {
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'tool_call', toolCallId: 'tc2', title: 'Update the plan (3 items)', kind: 'other', status: 'pending', rawInput: { todos: [{ content: 'Read the parser', status: 'completed' }, { content: 'Fix *the* bug', status: 'in_progress' }, { content: 'Run the tests', status: 'pending' }] } }));
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'tool_call', toolCallId: 'tc3', title: 'read_file a.go', kind: 'read', status: 'pending', rawInput: { path: 'a.go' } }));
			return { stopReason: 'end_turn', text: 'ok' };
		}));
		const stream = new RecordingStream();
		await h.chat.handle(chatRequest('plan it'), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		const text = stream.text();
		assert.ok(text.includes('$(checklist) **Plan**\n\n- $(pass-filled) ~~Read the parser~~\n- $(circle-large-filled) **Fix \\*the\\* bug**\n- $(circle-large-outline) Run the tests\n'), text);
		assert.doesNotMatch(text, /\$\(tools\) Update the plan/);
		assert.match(text, /\$\(tools\) read\\_file a\\\.go/);
	});

	it('shows no changed files and no undo for a turn that changed none', async () => {
		await start((s) => sessionServer(s, async () => ({ stopReason: 'end_turn', text: 'nothing changed' })));
		const stream = new RecordingStream();
		await h.chat.handle(chatRequest('hi'), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		assert.doesNotMatch(stream.text(), /Changed files/);
		assert.deepEqual(stream.buttons(), []);
	});

	// Issue 19 bug 2: after a restart the conversation went on in a new, empty session.
	it('continues the session of the conversation, reloads it after a bridge restart, and says so when it is gone', async () => {
		let n = 0;
		const loaded: string[] = [];
		await start((s) => s.setup((c) => {
			c.onRequest('rx/session/new', () => ({ sessionId: `s-${++n}`, model: 'm' }));
			c.onRequest('rx/session/load', (p: { sessionId: string }) => {
				loaded.push(p.sessionId);
				if (p.sessionId !== 's-1') throw new ResponseError(-32602, `agent: no such session: ${p.sessionId}`);
				return { sessionId: p.sessionId, model: 'm' };
			});
			c.onRequest('rx/session/prompt', (p: { sessionId: string }) => ({ stopReason: 'end_turn', text: `in ${p.sessionId}` }));
		}));
		const token = new CancellationTokenSource().token as never;
		const r1 = await h.chat.handle(chatRequest('one'), { history: [] } as never, new RecordingStream() as never, token);
		const history = [new vscode.ChatResponseTurn([], r1, PARTICIPANT_ID)];
		const s2 = new RecordingStream();
		await h.chat.handle(chatRequest('two'), { history } as never, s2 as never, token);
		assert.equal(s2.text(), 'in s-1');
		assert.deepEqual(loaded, []);
		await h.bridge.restart();
		const s3 = new RecordingStream();
		const r3 = await h.chat.handle(chatRequest('three'), { history } as never, s3 as never, token);
		assert.equal(s3.text(), 'in s-1');
		assert.deepEqual(loaded, ['s-1']);
		assert.equal((r3.metadata as ChatMetadata).sessionId, 's-1');
		// A conversation whose session was deleted starts a new one, and says so.
		const gone = [new vscode.ChatResponseTurn([], { metadata: { sessionId: 's-9', model: 'm' } }, PARTICIPANT_ID)];
		const s4 = new RecordingStream();
		const r4 = await h.chat.handle(chatRequest('four'), { history: gone } as never, s4 as never, token);
		assert.match(s4.text().replace(/\\/g, ''), /could not be resumed \(agent: no such session: s-9\); a new one starts without its history/);
		assert.match(s4.text(), /in s-2$/);
		assert.equal((r4.metadata as ChatMetadata).sessionId, 's-2');
	});

	it('cancels the turn with rx/session/cancel when the chat is cancelled', async () => {
		let release!: () => void;
		await start((s) => sessionServer(s, async (c) => {
			await c.sendNotification('rx/session/update', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'partial' } }));
			await new Promise<void>((r) => { release = r; });
			return { stopReason: 'cancelled', text: 'partial' };
		}));
		server.setup((c) => c.onNotification('rx/session/cancel', (p: { sessionId: string }) => { assert.equal(p.sessionId, 's-1'); release(); }));
		const src = new CancellationTokenSource();
		const stream = new RecordingStream();
		const done = h.chat.handle(chatRequest('long'), { history: [] } as never, stream as never, src.token as never);
		await eventually(() => stream.text().includes('partial'), 'first chunk');
		src.cancel();
		const r = await done;
		assert.equal((r.metadata as ChatMetadata).stopReason, 'cancelled');
		assert.match(stream.text(), /Cancelled\./);
	});

	it('uses the chat model when it is one of ours, and /model picks among rx/models', async () => {
		const created: unknown[] = [];
		const setModel: unknown[] = [];
		await start((s) => s.setup((c) => {
			c.onRequest('rx/session/new', (p: unknown) => { created.push(p); return { sessionId: 's-1', model: (p as { model?: string }).model ?? 'builtin/x' }; });
			c.onRequest('rx/session/setModel', (p: unknown) => { setModel.push(p); return {}; });
			c.onRequest('rx/session/prompt', () => ({ stopReason: 'end_turn', text: 'ok' }));
			c.onRequest('rx/models', () => ({ models: [{ ref: 'plugin/echo-provider/echo/small', displayName: 'Echo (small)', origin: { kind: 'plugin', id: 'echo-provider' } }, { ref: 'plugin/echo-provider/echo/large', displayName: 'Echo (large)', origin: { kind: 'plugin', id: 'echo-provider' } }], default: 'plugin/echo-provider/echo/small' }));
		}));
		const token = new CancellationTokenSource().token as never;
		const ours = { vendor: VENDOR, id: 'plugin/echo-provider/echo/small' };
		const r1 = await h.chat.handle(chatRequest('hi', { model: ours }), { history: [] } as never, new RecordingStream() as never, token);
		assert.deepEqual(created, [{ model: 'plugin/echo-provider/echo/small' }]);
		fake.answer = (e) => (e.type === 'quickPick' ? e.items.find((i: { ref: string }) => i.ref.endsWith('large')) : undefined);
		const history = [new vscode.ChatResponseTurn([], r1, PARTICIPANT_ID)];
		const r2 = await h.chat.handle(chatRequest('', { command: 'model', model: { vendor: 'copilot', id: 'gpt' } }), { history } as never, new RecordingStream() as never, token);
		assert.deepEqual(setModel, [{ sessionId: 's-1', model: 'plugin/echo-provider/echo/large' }]);
		assert.equal((r2.metadata as ChatMetadata).model, 'plugin/echo-provider/echo/large');
		const pick = fake.events.find((e) => e.type === 'quickPick') as { items: { description: string }[] };
		assert.match(pick.items[0].description, /\(current\)/);
	});

	it('sends a plugin command line as typed, even when the chat parsed it as a slash command', async () => {
		const prompts: string[] = [];
		await start((s) => sessionServer(s, async (_c, p) => { prompts.push(p.prompt); return { stopReason: 'end_turn', text: 'ok' }; }));
		const token = new CancellationTokenSource().token as never;
		await h.chat.handle(chatRequest('/kit:review main.go'), { history: [] } as never, new RecordingStream() as never, token);
		await h.chat.handle(chatRequest('main.go', { command: 'kit:review' }), { history: [] } as never, new RecordingStream() as never, token);
		assert.deepEqual(prompts, ['/kit:review main.go', '/kit:review main.go']);
	});

	it('/commands lists the slash commands as links that put @reasonix /<name> in the chat input', async () => {
		await start((s) => s.setup((c) => c.onRequest('rx/actions', () => ({ generation: 1, actions: [
			{ name: '/hello:greet', kind: 'action', plugin: 'hello', actionId: 'greet', label: 'Greet me' },
			{ name: '/kit:review', kind: 'command', plugin: 'kit', actionId: 'kit:review', label: '', source: 'command', description: 'Review a file', argumentHint: '<file>' },
		] }))));
		const stream = new RecordingStream();
		await h.chat.handle(chatRequest('', { command: 'commands' }), { history: [] } as never, stream as never, new CancellationTokenSource().token as never);
		const text = stream.text();
		const link = `command:workbench.action.chat.open?${encodeURIComponent(JSON.stringify([{ query: '@reasonix /kit:review ', isPartialQuery: true }]))}`;
		assert.ok(text.includes(`[/kit:review](${link}) \\<file\\> — Review a file`), text);
		assert.ok(!text.includes('hello:greet'), 'actions are not chat commands');
	});

	// Issue 30: images attached in the chat go as the prompt's image blocks.
	it('sends the images attached to a request as image blocks, refuses too many bytes, and shows the bridge\'s refusal', async () => {
		const prompts: { prompt: string; images?: unknown; resources?: unknown }[] = [];
		await start((s) => sessionServer(s, async (_c, p) => {
			prompts.push(p);
			if (prompts.length === 2) throw new ResponseError(-32602, 'model plugin/echo-provider/echo/small does not accept images: pick a model with vision');
			return { stopReason: 'end_turn', text: 'a cat' };
		}));
		const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]);
		const image = (bytes: Uint8Array, mime = 'image/png') => ({ id: 'vscode.image', value: new vscode.ChatReferenceBinaryData(mime, async () => bytes) });
		const token = new CancellationTokenSource().token as never;
		const r = await h.chat.handle(chatRequest('what is this?', { references: [image(png), { id: 'other', value: new vscode.ChatReferenceBinaryData('application/pdf', async () => png) }, image(png.subarray(4), 'image/jpeg')] }), { history: [] } as never, new RecordingStream() as never, token);
		assert.equal(r.errorDetails, undefined, JSON.stringify(r.errorDetails));
		assert.deepEqual(prompts[0], { sessionId: 's-1', prompt: 'what is this?', images: [
			{ type: 'image', mimeType: 'image/png', data: Buffer.from(png).toString('base64') },
			{ type: 'image', mimeType: 'image/jpeg', data: 'AP8=' },
		] });
		const refused = await h.chat.handle(chatRequest('and this?', { references: [image(png)] }), { history: [] } as never, new RecordingStream() as never, token);
		assert.match(refused.errorDetails!.message, /model plugin\/echo-provider\/echo\/small does not accept images/);
		const big = new Uint8Array(MAX_PROMPT_IMAGE_BYTES);
		const tooBig = await h.chat.handle(chatRequest('and these?', { references: [image(big), image(png)] }), { history: [] } as never, new RecordingStream() as never, token);
		assert.match(tooBig.errorDetails!.message, /the attached images are larger than 5 MiB together/);
		assert.equal(prompts.length, 2, 'too many bytes never reach the bridge');
		// A prompt without images sends none.
		await h.chat.handle(chatRequest('plain'), { history: [] } as never, new RecordingStream() as never, token);
		assert.deepEqual(prompts[2], { sessionId: 's-1', prompt: 'plain' });
	});

	it('reports a failed turn as error details naming the failure', async () => {
		await start((s) => sessionServer(s, async () => { throw new ResponseError(-32000, 'provider echo failed: boom', { reason: 'provider_failed' }); }));
		const r = await h.chat.handle(chatRequest('x'), { history: [] } as never, new RecordingStream() as never, new CancellationTokenSource().token as never);
		assert.match(r.errorDetails!.message, /provider echo failed: boom/);
	});
});

describe('language model provider', () => {
	const models = { models: [{ ref: 'plugin/echo-provider/echo/small', displayName: 'Echo (small)', origin: { kind: 'plugin', id: 'echo-provider' }, contextWindow: 8192, tools: true, vision: false }], default: 'plugin/echo-provider/echo/small' };

	it('lists rx/models as chat models', async () => {
		await start((s) => s.setup((c) => c.onRequest('rx/models', () => models)));
		const info = await h.models.provideLanguageModelChatInformation({ silent: true }, new CancellationTokenSource().token as never);
		assert.deepEqual(info.map((m) => [m.id, m.name, m.maxInputTokens, m.capabilities.toolCalling]), [['plugin/echo-provider/echo/small', 'Echo (small)', 8192, true]]);
	});

	it('streams rx/lm/chunk text and tool calls, and converts the messages', async () => {
		let params: any;
		await start((s) => s.setup((c) => c.onRequest('rx/lm/chat', async (p: any) => {
			params = p;
			await c.sendNotification('rx/lm/chunk', { requestId: p.requestId, chunk: { type: 'text', text: 'hello ' } });
			await c.sendNotification('rx/lm/chunk', { requestId: 'someone-else', chunk: { type: 'text', text: 'NO' } });
			await c.sendNotification('rx/lm/chunk', { requestId: p.requestId, chunk: { type: 'text', text: 'there' } });
			await c.sendNotification('rx/lm/chunk', { requestId: p.requestId, chunk: { type: 'tool_call', toolCall: { id: 't1', name: 'lookup', arguments: '{"q":"x"}' } } });
			await c.sendNotification('rx/lm/chunk', { requestId: p.requestId, chunk: { type: 'done' } });
			return { text: 'hello there', toolCalls: [{ id: 't1', name: 'lookup', arguments: '{"q":"x"}' }], finishReason: 'tool_calls' };
		})));
		const parts: unknown[] = [];
		const messages = [
			vscode.LanguageModelChatMessage.User('hello there'),
			vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelTextPart('calling'), new vscode.LanguageModelToolCallPart('t0', 'lookup', { q: 'y' })]),
			vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart('t0', [new vscode.LanguageModelTextPart('found')])]),
		];
		await h.models.provideLanguageModelChatResponse(
			{ id: 'plugin/echo-provider/echo/small' } as never, messages as never,
			{ tools: [{ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } }], toolMode: 1, modelOptions: {} } as never,
			{ report: (p: unknown) => parts.push(p) }, new CancellationTokenSource().token as never);
		assert.deepEqual(parts, [
			new vscode.LanguageModelTextPart('hello '), new vscode.LanguageModelTextPart('there'),
			new vscode.LanguageModelToolCallPart('t1', 'lookup', { q: 'x' }),
		]);
		assert.equal(params.model, 'plugin/echo-provider/echo/small');
		assert.equal(params.effort, '');
		assert.equal(params.maxTokens, 0);
		assert.deepEqual(params.tools, [{ name: 'lookup', description: 'Looks up', parameters: { type: 'object' } }]);
		assert.deepEqual(params.messages, [
			{ role: 'user', content: 'hello there' },
			{ role: 'assistant', content: 'calling', tool_calls: [{ id: 't0', name: 'lookup', arguments: '{"q":"y"}' }] },
			{ role: 'tool', tool_call_id: 't0', content: 'found' },
		]);
	});

	it('cancels with $/cancelRequest and throws CancellationError', async () => {
		let cancelled = false;
		await start((s) => s.setup((c) => c.onRequest('rx/lm/chat', (p: any, token) => new Promise((resolve) => {
			void c.sendNotification('rx/lm/chunk', { requestId: p.requestId, chunk: { type: 'text', text: 'a' } });
			token.onCancellationRequested(() => { cancelled = true; resolve({ text: 'a' }); });
		}))));
		const src = new CancellationTokenSource();
		const parts: unknown[] = [];
		const p = h.models.provideLanguageModelChatResponse({ id: 'm' } as never, [vscode.LanguageModelChatMessage.User('x')] as never, { toolMode: 1 } as never, { report: (x: unknown) => parts.push(x) }, src.token as never);
		await eventually(() => parts.length === 1, 'first chunk');
		src.cancel();
		await assert.rejects(p, vscode.CancellationError);
		await eventually(() => cancelled, 'server saw the cancellation');
	});

	it('names the model in a provider failure', async () => {
		await start((s) => s.setup((c) => c.onRequest('rx/lm/chat', () => { throw new ResponseError(-32000, 'provider echo-provider failed: boom', { reason: 'provider_failed' }); })));
		await assert.rejects(
			h.models.provideLanguageModelChatResponse({ id: 'plugin/echo-provider/echo/small' } as never, [] as never, { toolMode: 1 } as never, { report() {} }, new CancellationTokenSource().token as never),
			/plugin\/echo-provider\/echo\/small: provider echo-provider failed: boom/);
	});
});

describe('supervisor', () => {
	it('restarts a crashed bridge with backoff and drops the old UI', async () => {
		await start();
		h.ui.surface({ plugin: 'hello', surfaceId: 's', sessionId: 's-1', generation: 0, kind: 'status', payload: { label: 'x' } });
		assert.equal(h.ui.statusItems().size, 1);
		const t0 = Date.now();
		server.crash();
		await eventually(() => transport.starts === 2 && h.bridge.state === 'running', 'restart');
		assert.ok(Date.now() - t0 >= 15, 'waited for the backoff');
		assert.equal(h.ui.statusItems().size, 0);
		assert.ok(fake.output[0].lines.some((l) => l.includes('restarting rx-bridge in 20 ms')));
	});

	it('gives up after repeated crashes and offers a restart', async () => {
		let starts = 0;
		const flaky: Transport = { start: async () => { starts++; throw new Error('exit status 1'); } };
		h = harness(flaky);
		const failed = new Promise<Error>((r) => h.bridge.onDidFail(r));
		h.bridge.start();
		const err = await failed;
		assert.match(err.message, /stopped 4 times in a row/);
		assert.equal(starts, 4);
		await assert.rejects(h.bridge.ready(), /not running/);
	});

	it('does not retry a missing binary', async () => {
		let starts = 0;
		h = harness({ start: async () => { starts++; throw new FatalStartError('rx-bridge was not found (looked for rx-bridge on PATH)', 'not_found'); } });
		const failed = new Promise<Error>((r) => h.bridge.onDidFail(r));
		h.bridge.start();
		assert.ok((await failed) instanceof FatalStartError);
		assert.equal(starts, 1);
	});

	// Issue 19 item 9: the user sees whether the bridge runs, and reaches its log.
	it('shows the bridge state in a status item whose click opens the log', async () => {
		server = new FakeServer();
		transport = new StreamTransport(server.io);
		h = harness(transport);
		const status = new BridgeStatus(h.bridge);
		const item = fake.statusItems.find((i) => i.id === STATUS_ITEM_ID)!;
		assert.ok(item?.visible, 'the item shows');
		assert.equal(item.command, CommandId.showLog);
		const seen: string[] = [];
		h.bridge.onDidChangeState(() => seen.push(item.text));
		h.bridge.start();
		await h.bridge.ready();
		server.crash();
		await eventually(() => transport.starts === 2 && h.bridge.state === 'running', 'restart');
		assert.deepEqual(seen, ['$(sync~spin) Reasonix: starting', '$(hubot) Reasonix: running', '$(warning) Reasonix: crashed, restarting', '$(sync~spin) Reasonix: starting', '$(hubot) Reasonix: running']);
		assert.match(String(item.tooltip), /running \(rx-bridge .*\)\. Click for the bridge log/);
		await h.bridge.stop();
		assert.equal(item.text, '$(circle-slash) Reasonix: stopped');
		await vscode.commands.executeCommand(item.command as string);
		assert.equal(fake.output[0].shown, true);
		status.dispose();

		fake.reset();
		h = harness({ start: async () => { throw new Error('exit status 1'); } });
		const s2 = new BridgeStatus(h.bridge);
		const failed = new Promise<Error>((r) => h.bridge.onDidFail(r));
		h.bridge.start();
		await failed;
		assert.equal(fake.statusItems.at(-1)!.text, '$(error) Reasonix: crashed');
		assert.match(String(fake.statusItems.at(-1)!.tooltip), /stopped 4 times in a row/);
		s2.dispose();

		fake.reset();
		h = harness({ start: async () => { throw new FatalStartError('rx-bridge was not found (looked for rx-bridge on PATH)', 'not_found'); } });
		const s3 = new BridgeStatus(h.bridge);
		const missing = new Promise<Error>((r) => h.bridge.onDidFail(r));
		h.bridge.start();
		await missing;
		assert.equal(fake.statusItems.at(-1)!.text, '$(error) Reasonix: not started');
		assert.match(String(fake.statusItems.at(-1)!.tooltip), /could not start: rx-bridge was not found/);
		s3.dispose();
	});

	it('restarts on request', async () => {
		await start();
		await vscode.commands.executeCommand(CommandId.restart);
		assert.equal(transport.starts, 2);
		assert.equal(h.bridge.state, 'running');
		assert.ok(fake.messages().includes('Reasonix: bridge restarted'));
		assert.ok(server.received.some((r) => r.method === 'exit'), 'the old server got exit');
	});
});

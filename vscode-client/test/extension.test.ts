// activate() as VS Code calls it, on the fake vscode: vscode-languageclient
// runs for real, against a real `rx-bridge serve` (RX_BRIDGE_BIN) with the
// examples installed, or against a missing binary.
import './support/setup';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { CommandId } from '../src/commands';
import { activate, Api, INSTALL_BUTTON, SETTINGS_BUTTON } from '../src/extension';
import { eventually, Memento } from './support/harness';
import * as vscode from './support/vscode';
import { fake } from './support/vscode';

const CLIENT = path.resolve(__dirname, '..', '..');
const REPO = path.resolve(CLIENT, '..');
const BIN = path.resolve(process.env.RX_BRIDGE_BIN || path.join(REPO, '.bin', 'rx-bridge'));

function context() {
	return { subscriptions: [] as { dispose(): unknown }[], workspaceState: new Memento(), globalState: new Memento(), secrets: new vscode.FakeSecrets(), extensionUri: vscode.Uri.file('/ext') };
}

async function deactivate(ctx: ReturnType<typeof context>, api: Api): Promise<void> {
	for (const s of ctx.subscriptions) s.dispose();
	await api.bridge.stop();
}

describe('activate', () => {
	const cleanups: (() => Promise<void>)[] = [];
	after(async () => { for (const c of cleanups) await c(); });

	// Issue 30 item 6: with rxBridge.trace.server off, a window reload (VS
	// Code reports several settings changes while it loads) turned the
	// trace on: six $/setTrace, then ~30 [trace] lines every turn.
	it('keeps the protocol trace off while rxBridge.trace.server is off, and sends $/setTrace only when it really changes', async () => {
		if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: build rx-bridge (make vscode-test does) or set RX_BRIDGE_BIN`);
		const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-vscode-trace-'));
		cleanups.push(async () => fs.rmSync(tmp, { recursive: true, force: true }));
		const home = path.join(tmp, 'home');
		execFileSync(BIN, ['plugin', 'install', path.join(REPO, 'examples', 'hello'), '--yes'], { env: { ...process.env, RX_BRIDGE_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
		fake.reset();
		fake.config['rxBridge.path'] = BIN;
		fake.config['rxBridge.home'] = home;
		fake.config['rxBridge.trace.server'] = 'off';
		const ctx = context();
		const api = activate(ctx as never);
		try {
			await api.bridge.ready();
			await eventually(() => api.rx.actions.some((a) => a.name === '/hello:greet'), 'rx/actionsChanged', 30000);
			const log = () => fake.output[0].lines.join('\n');
			// A window reload: settings of other extensions change, six times.
			for (let i = 0; i < 6; i++) fake.changeConfig();
			fake.answer = (e) => {
				if (e.type === 'quickPick') return e.items.find((i: { option: string }) => i.option === 'formal');
				if (e.type === 'inputBox') return 'Grace';
				return undefined;
			};
			await vscode.commands.executeCommand(CommandId.runAction, '/hello:greet');
			await eventually(() => fake.messages().some((m) => m.startsWith('hello: Good day, Grace.')), `the notification; saw ${fake.messages().join(' | ')}`);
			assert.doesNotMatch(log(), /\[trace\]/, 'no trace line while the setting is off');
			// The setting turned on: one $/setTrace, traced itself, and frames are traced.
			fake.changeConfig({ 'rxBridge.trace.server': 'messages' });
			await eventually(() => /Sending notification '\$\/setTrace'/.test(log()), 'the $/setTrace of the change');
			for (let i = 0; i < 6; i++) fake.changeConfig();
			fake.changeConfig({ 'rxBridge.trace.server': 'messages' });
			await vscode.commands.executeCommand(CommandId.runAction, '/hello:greet');
			await eventually(() => /\[trace\] hello -> extension\/ui\/action/.test(log()), 'a traced plugin frame');
			assert.equal(log().match(/Sending notification '\$\/setTrace'/g)?.length, 1, 'one $/setTrace, for the one real change');
			// And off again: one more, then silence.
			fake.changeConfig({ 'rxBridge.trace.server': 'off' });
			const before = log().length;
			for (let i = 0; i < 6; i++) fake.changeConfig();
			await vscode.commands.executeCommand(CommandId.runAction, '/hello:greet');
			await eventually(() => fake.messages().filter((m) => m.startsWith('hello: Good day, Grace.')).length >= 3, 'the third notification');
			assert.doesNotMatch(log().slice(before), /\[trace\]/, 'no trace line after the setting went off again');
		} finally {
			await deactivate(ctx, api);
		}
	});

	it('reports a missing rx-bridge with buttons for the install instructions and the setting', async () => {
		fake.reset();
		fake.config['rxBridge.path'] = '/nonexistent/dir/rx-bridge';
		let clicks = 0;
		fake.answer = (e) => (e.type === 'message' && e.severity === 'error' ? (clicks++ === 0 ? INSTALL_BUTTON : SETTINGS_BUTTON) : undefined);
		const ctx = context();
		const api = activate(ctx as never);
		const err = await fake.waitFor((e) => e.type === 'message' && e.severity === 'error') as { message: string; buttons: string[] };
		assert.match(err.message, /rx-bridge was not found \(looked for \/nonexistent\/dir\/rx-bridge\)/);
		assert.match(err.message, /rxBridge\.path/);
		assert.deepEqual(err.buttons, [INSTALL_BUTTON, SETTINGS_BUTTON]);
		const preview = await fake.waitFor((e) => e.type === 'command' && e.command === 'markdown.showPreview') as { args: { path: string }[] };
		assert.equal(preview.args[0].path, '/ext/README.md');
		assert.equal(api.bridge.state, 'failed');
		// Restarting tries again (and fails the same way): the settings button this time.
		await vscode.commands.executeCommand(CommandId.restart);
		const local = await fake.waitFor((e) => e.type === 'command' && e.command === 'workbench.action.openSettings') as { args: unknown[] };
		assert.deepEqual(local.args, [{ query: '@id:rxBridge.path' }]);
		// Issue 19 item 9: in a remote window (code-server, SSH) the setting
		// the bridge reads is the remote machine's: its tab opens.
		vscode.env.remoteName = 'ssh-remote';
		await vscode.commands.executeCommand(CommandId.restart).then(undefined, () => {});
		const remote = await fake.waitFor((e) => e.type === 'command' && e.command === 'workbench.action.openRemoteSettings') as { args: unknown[] };
		assert.deepEqual(remote.args, [{ query: '@id:rxBridge.path' }]);
		await deactivate(ctx, api);
	});

	it('starts the rx-bridge bundled with the extension when rxBridge.path is empty', async () => {
		if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: build rx-bridge (make vscode-test does) or set RX_BRIDGE_BIN`);
		const ext = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-vscode-bundled-'));
		cleanups.push(async () => fs.rmSync(ext, { recursive: true, force: true }));
		const bundled = path.join(ext, 'bin', 'rx-bridge');
		fs.mkdirSync(path.dirname(bundled));
		fs.copyFileSync(BIN, bundled);
		fs.chmodSync(bundled, 0o755);
		fake.reset();
		fake.config['rxBridge.path'] = '';
		fake.config['rxBridge.home'] = path.join(ext, 'home');
		const ctx = { ...context(), extensionUri: vscode.Uri.file(ext) };
		const api = activate(ctx as never);
		try {
			await api.bridge.ready();
			const log = fake.output[0].lines.join('\n');
			assert.ok(log.includes(`starting ${bundled} serve`), `the log says:\n${log}`);
		} finally {
			await deactivate(ctx, api);
		}
	});

	it('starts the real bridge through vscode-languageclient with the rxBridge capabilities, and runs an action', async () => {
		if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: build rx-bridge (make vscode-test does) or set RX_BRIDGE_BIN`);
		const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-vscode-ext-'));
		cleanups.push(async () => fs.rmSync(tmp, { recursive: true, force: true }));
		const home = path.join(tmp, 'home');
		for (const ex of ['hello', 'echo-provider']) {
			execFileSync(BIN, ['plugin', 'install', path.join(REPO, 'examples', ex), '--yes'], { env: { ...process.env, RX_BRIDGE_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
		}
		fake.reset();
		fake.config['rxBridge.path'] = BIN;
		fake.config['rxBridge.home'] = home;
		fake.config['rxBridge.trace.server'] = 'verbose';
		const ctx = context();
		const api = activate(ctx as never);
		cleanups.push(() => deactivate(ctx, api));
		await api.bridge.ready();
		assert.equal(api.bridge.connection!.info.home, home);
		await eventually(() => api.rx.actions.some((a) => a.name === '/hello:greet'), 'rx/actionsChanged', 30000);
		const log = () => fake.output[0].lines.join('\n');
		// The initialize params carry experimental.rxBridge (the protocol trace shows them).
		const init = log().slice(log().indexOf("Sending request 'initialize"));
		const params = JSON.parse(init.slice(init.indexOf('{'), init.indexOf("\n}") + 2));
		assert.deepEqual(params.capabilities.experimental.rxBridge.ui, { select: true, multiselect: true, input: true, confirm: true, form: true, notification: true, status: true, card: true });
		assert.equal(params.capabilities.experimental.rxBridge.sessionUpdates, true);
		assert.equal(params.capabilities.experimental.rxBridge.lmChat, true);
		// Reviewed agent edits (§1.1, §6): VS Code's refactor preview needs
		// the annotations to arrive, so the client must declare them.
		assert.equal(params.capabilities.experimental.rxBridge.reviewEdits, true);
		assert.equal(params.capabilities.workspace.applyEdit, true);
		assert.ok(params.capabilities.workspace.workspaceEdit?.changeAnnotationSupport, 'workspace.workspaceEdit.changeAnnotationSupport is declared');
		assert.ok(params.capabilities.workspace.workspaceEdit?.documentChanges, 'workspace.workspaceEdit.documentChanges is declared');
		assert.equal(params.capabilities.workspace.executeCommand.dynamicRegistration, true);
		assert.equal(params.capabilities.window.workDoneProgress, true);
		// The bridge registers its commands once, after initialized (not also
		// statically in initialize); that must not fail.
		await eventually(() => /Sending response 'client\/registerCapability/.test(log()), 'client/registerCapability answered');
		// A reload keeps the commands: nothing is registered again, and no
		// registration is refused.
		await vscode.commands.executeCommand(CommandId.reload);
		await eventually(() => fake.messages().some((m) => /plugins reloaded \(generation \d+\)/.test(m)), 'the reload');
		assert.equal(log().match(/Sending response 'client\/registerCapability/g)?.length, 1);
		assert.doesNotMatch(log(), /already exists|unregisterCapability/);
		fake.answer = (e) => {
			if (e.type === 'createQuickPick') {
				void eventually(() => !e.input.busy, 'actions').then(() => e.input.pick('/hello:greet'));
				return undefined;
			}
			if (e.type === 'quickPick') return e.items.find((i: { option: string }) => i.option === 'formal');
			if (e.type === 'inputBox') return 'Grace';
			return undefined;
		};
		await vscode.commands.executeCommand(CommandId.runAction);
		await eventually(() => fake.messages().includes('hello: Good day, Grace. — Greeted by the hello example plugin.'), `the notification; saw ${fake.messages().join(' | ')}`);
		// One toast per greeting (issue 30 item 11): the action's result message repeats its notification.
		assert.deepEqual(fake.messages().filter((m) => m.includes('Good day')), ['hello: Good day, Grace. — Greeted by the hello example plugin.']);
		// trace.server verbose: plugin frames are in the log.
		await eventually(() => /\[trace\] hello -> extension\/ui\/action/.test(log()), 'a traced plugin frame');
		await vscode.commands.executeCommand(CommandId.showLog);
		assert.equal(fake.output[0].shown, true);

		// A crash: the supervisor starts a new LanguageClient after the backoff,
		// whose command registrations must not collide with the dead one's.
		const pids = execFileSync('pgrep', ['-P', String(process.pid), '-f', `${BIN} serve`], { encoding: 'utf8' }).trim().split('\n');
		assert.equal(pids.length, 1, `one rx-bridge child: ${pids}`);
		process.kill(Number(pids[0]), 'SIGKILL');
		await eventually(() => api.bridge.state !== 'running', 'the crash to be noticed', 10000);
		await eventually(() => api.bridge.state === 'running', 'the restarted bridge', 20000);
		await eventually(() => api.rx.actions.some((a) => a.name === '/hello:greet'), 'actions after the restart', 30000);
		assert.match(log(), /restarting rx-bridge in 1000 ms/);
		assert.doesNotMatch(log(), /already exists/);
		fake.events = [];
		await vscode.commands.executeCommand(CommandId.runAction, '/hello:greet');
		await eventually(() => fake.messages().some((m) => m.startsWith('hello: Good day, Grace.')), `the notification after the restart; saw ${fake.messages().join(' | ')}`);
	});
});

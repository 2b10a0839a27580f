// Reasonix: Set Up Model… and Install Plugin… on the fake vscode, running
// the real rx-bridge CLI (RX_BRIDGE_BIN) against testdata/fake-openai and
// examples/hello in a temporary home: the key goes to SecretStorage and the
// child's environment only, never to a file; the plugin is installed only
// after Install in the dialog that follows its FULL TRUST preview.
import './support/setup';
import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VirtualDocs } from '../src/docs';
import { FirstRun, keyEnvName, Keys } from '../src/setup';
import { Memento } from './support/harness';
import * as vscode from './support/vscode';
import { fake, FakeInputBox, FakeQuickPick } from './support/vscode';

const CLIENT = path.resolve(__dirname, '..', '..');
const REPO = path.resolve(CLIENT, '..');
const BIN = path.resolve(process.env.RX_BRIDGE_BIN || path.join(REPO, '.bin', 'rx-bridge'));
const KEY = `sk-unit-${process.pid}-${Date.now()}`;

function filesContaining(dir: string, needle: string): string[] {
	const out: string[] = [];
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) out.push(...filesContaining(p, needle));
		else if (fs.readFileSync(p).includes(Buffer.from(needle))) out.push(p);
	}
	return out;
}

describe('first run', () => {
	let server: ChildProcess;
	let url = '';
	let home = '';
	const logFile = path.join(os.tmpdir(), `rx-fake-openai-${process.pid}.log`);
	before(async () => {
		home = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-setup-test-'));
		server = spawn(process.execPath, [path.join(REPO, 'testdata', 'fake-openai', 'server.mjs'), '--key', KEY, '--log', logFile, '--exit-with-stdin'], { stdio: ['pipe', 'pipe', 'inherit'] });
		url = await new Promise<string>((resolve, reject) => {
			let out = '';
			server.stdout!.on('data', (c) => {
				out += c;
				if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]).url);
			});
			server.on('exit', (code) => reject(new Error(`fake-openai exited ${code}`)));
		});
	});
	after(() => {
		server.stdin?.end();
		server.kill();
		fs.rmSync(home, { recursive: true, force: true });
		fs.rmSync(logFile, { force: true });
	});

	function firstRun() {
		const secrets = new vscode.FakeSecrets();
		const keys = new Keys(secrets as never, new Memento() as never);
		const docs = new VirtualDocs();
		vscode.workspace.registerTextDocumentContentProvider('rx-bridge', docs);
		const calls = { restart: 0, reload: 0, env: [] as Record<string, string | undefined>[] };
		const fr = new FirstRun({
			keys,
			docs,
			cliOptions: async (extra) => {
				const env = { ...process.env, RX_BRIDGE_HOME: home, ...(await keys.env()), ...(extra ?? {}) };
				calls.env.push(env);
				return { setting: BIN, home: '', env };
			},
			restartBridge: async () => { calls.restart++; },
			reloadPlugins: async () => { calls.reload++; },
		});
		return { fr, keys, secrets, docs, calls };
	}

	it('Set Up Model…: a URL, the key in a password box, a model from the server\'s list; the key only in SecretStorage', async () => {
		fake.reset();
		const { fr, keys, secrets, calls } = firstRun();
		let password: unknown;
		fake.answer = (e) => {
			if (e.type === 'createQuickPick') {
				const qp = e.input as FakeQuickPick;
				setImmediate(() => qp.pick('Any OpenAI-compatible server…'));
				return undefined;
			}
			if (e.type === 'inputBox') {
				if (e.options.password) {
					password = e.options.password;
					return KEY;
				}
				return url;
			}
			if (e.type === 'quickPick') {
				const m = e.items.find((i: { label: string }) => i.label === 'fake-chat');
				assert.equal(m.description, '32,768 tokens of context');
				return m;
			}
			return undefined;
		};
		const ref = await fr.setupModel();
		assert.equal(ref, 'local/fake-chat', `messages: ${fake.messages().join(' | ')}`);
		assert.equal(password, true);
		const cfg = fs.readFileSync(path.join(home, 'config.toml'), 'utf8');
		assert.match(cfg, /model = "local\/fake-chat"/);
		assert.match(cfg, new RegExp(`api_key_env = "${keyEnvName('local')}"`));
		assert.equal(keyEnvName('local'), 'RX_BRIDGE_KEY_LOCAL');
		assert.equal(await keys.get('RX_BRIDGE_KEY_LOCAL'), KEY);
		assert.deepEqual(await keys.env(), { RX_BRIDGE_KEY_LOCAL: KEY });
		assert.ok([...secrets.data.values()].includes(KEY));
		assert.equal(calls.restart, 1);
		assert.deepEqual(filesContaining(home, KEY), []);
		const log = fs.readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
		assert.ok(log.length >= 2 && log.every((e) => e.auth === true), JSON.stringify(log));
		assert.ok(fake.messages().some((m) => m.includes('local/fake-chat is set up')));
	});

	it('Set Up Model… says the CLI\'s one line when the server refuses the key, and stores nothing', async () => {
		fake.reset();
		const { fr, keys, calls } = firstRun();
		fake.answer = (e) => {
			if (e.type === 'createQuickPick') {
				const qp = e.input as FakeQuickPick;
				setImmediate(() => qp.pick('Any OpenAI-compatible server…'));
				return undefined;
			}
			if (e.type === 'inputBox') return e.options.password ? 'wrong-key' : url;
			return undefined;
		};
		assert.equal(await fr.setupModel(), undefined);
		const errors = fake.events.filter((e) => e.type === 'message' && e.severity === 'error').map((e) => (e as { message: string }).message);
		assert.equal(errors.length, 1);
		assert.match(errors[0], /^Reasonix: .*refused the API key \(HTTP 401\); check the key$/);
		assert.deepEqual(keys.names(), []);
		assert.equal(calls.restart, 0);
	});

	it('Install Plugin…: the FULL TRUST preview first; Cancel installs nothing, Install installs and reloads', async () => {
		fake.reset();
		const { fr, docs, calls } = firstRun();
		const src = path.join(REPO, 'examples', 'hello');
		let dialogs = 0;
		fake.answer = (e) => (e.type === 'message' && e.options?.modal ? (dialogs++, undefined) : undefined);
		assert.equal(await fr.installPlugin(src), false);
		assert.equal(dialogs, 1);
		const preview = docs.get('/install-preview/hello.txt') ?? '';
		assert.match(preview, /runtime: FULL TRUST/);
		assert.match(preview, /Dry run: nothing was written/);
		assert.ok(fake.events.some((e) => e.type === 'showTextDocument'));
		assert.equal(fs.existsSync(path.join(home, 'plugins', 'hello')), false);
		assert.equal(calls.reload, 0);

		fake.answer = (e) => (e.type === 'message' && e.options?.modal ? 'Install' : undefined);
		assert.equal(await fr.installPlugin(src), true);
		assert.ok(fs.existsSync(path.join(home, 'plugins', 'hello')));
		assert.equal(calls.reload, 1);
	});

	it('Install Plugin… asks folder or git source; a git source is typed', async () => {
		fake.reset();
		const { fr } = firstRun();
		let typed = false;
		fake.answer = (e) => {
			if (e.type === 'quickPick') return e.items.find((i: { label: string }) => i.label.includes('A git source'));
			if (e.type === 'inputBox') {
				typed = true;
				return path.join(home, 'no-such-repo.git');
			}
			return undefined;
		};
		assert.equal(await fr.installPlugin(), false);
		assert.ok(typed);
		const errors = fake.events.filter((e) => e.type === 'message' && e.severity === 'error');
		assert.equal(errors.length, 1, JSON.stringify(fake.messages()));
	});
});

void FakeInputBox;

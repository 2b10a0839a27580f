// Reasonix: Set Up Model… and Install Plugin… on the fake vscode, running
// the real rx-bridge CLI (RX_BRIDGE_BIN) against testdata/fake-openai and
// examples/hello in a temporary home: the key goes to SecretStorage and the
// child's environment only, never to a file; the plugin is installed only
// after Install in the dialog that follows its FULL TRUST preview.
import './support/setup';
import assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
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

	function firstRun(dir = home) {
		const secrets = new vscode.FakeSecrets();
		const keys = new Keys(secrets as never, new Memento() as never);
		const docs = new VirtualDocs();
		vscode.workspace.registerTextDocumentContentProvider('rx-bridge', docs);
		const calls = { restart: 0, reload: 0, env: [] as Record<string, string | undefined>[] };
		const fr = new FirstRun({
			keys,
			docs,
			cliOptions: async (extra) => {
				const env = { ...process.env, RX_BRIDGE_HOME: dir, ...(await keys.env()), ...(extra ?? {}) };
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

	it('Remove Stored Key…: lists the keys in SecretStorage and in files setup stored (never a key), confirms, removes each everywhere', async () => {
		fake.reset();
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-removekey-test-'));
		try {
			const { fr, keys, secrets, calls } = firstRun(dir);
			const cli = (args: string[], extra: Record<string, string> = {}, input = '') =>
				execFileSync(BIN, args, { env: { ...process.env, RX_BRIDGE_HOME: dir, RX_BRIDGE_LANG: 'en', ...extra }, input, encoding: 'utf8' });
			const common = ['setup', '--base-url', url, '--model', 'fake-chat'];
			cli([...common, '--name', 'viasecret', '--api-key-env', 'RX_BRIDGE_KEY_VIASECRET'], { RX_BRIDGE_KEY_VIASECRET: KEY });
			await keys.set('RX_BRIDGE_KEY_VIASECRET', KEY);
			cli([...common, '--name', 'viafile', '--api-key-stdin'], {}, KEY + '\n');
			const keyFile = path.join(dir, 'keys', 'viafile.key');
			assert.ok(fs.existsSync(keyFile));
			const config = () => fs.readFileSync(path.join(dir, 'config.toml'), 'utf8');

			// Offered both; Cancel in the confirmation changes nothing.
			let offered: { label: string; description?: string; detail?: string }[] = [];
			fake.answer = (e) => {
				if (e.type === 'quickPick') {
					offered = e.items;
					return e.items.find((i: { label: string }) => i.label === 'viafile');
				}
				return undefined;
			};
			assert.equal(await fr.removeKey(), undefined);
			assert.deepEqual(offered.map((i) => i.label), ['viasecret', 'viafile']);
			assert.match(offered[0].description ?? '', /secret storage/);
			assert.equal(offered[1].description, `key file ${keyFile}`);
			assert.ok(fs.existsSync(keyFile));
			assert.match(config(), /api_key_file = "keys\/viafile.key"/);

			// Remove: the file and its setting go; the other key stays.
			let confirm = '';
			fake.answer = (e) => {
				if (e.type === 'quickPick') return e.items.find((i: { label: string }) => i.label === 'viafile');
				if (e.type === 'message' && e.options?.modal) {
					confirm = e.message;
					return 'Remove';
				}
				return undefined;
			};
			assert.equal(await fr.removeKey(), 'viafile');
			assert.equal(confirm, 'Remove the API key of viafile?');
			assert.equal(fs.existsSync(keyFile), false);
			assert.doesNotMatch(config(), /api_key_file/);
			assert.match(config(), /api_key_env = "RX_BRIDGE_KEY_VIASECRET"/);
			assert.equal(await keys.get('RX_BRIDGE_KEY_VIASECRET'), KEY);
			assert.equal(calls.restart, 1);

			// The secret: out of SecretStorage and config.toml.
			fake.answer = (e) => {
				if (e.type === 'quickPick') {
					offered = e.items;
					return e.items[0];
				}
				return e.type === 'message' && e.options?.modal ? 'Remove' : undefined;
			};
			assert.equal(await fr.removeKey(), 'viasecret');
			assert.deepEqual(offered.map((i) => i.label), ['viasecret']);
			assert.equal(await keys.get('RX_BRIDGE_KEY_VIASECRET'), undefined);
			assert.deepEqual(keys.names(), []);
			assert.equal(secrets.data.size, 0);
			assert.doesNotMatch(config(), /api_key_env/);
			assert.match(config(), /name = "viasecret"/);
			assert.equal(calls.restart, 2);

			// Nothing left to offer.
			let picks = 0;
			fake.answer = (e) => (e.type === 'quickPick' ? (picks++, undefined) : undefined);
			assert.equal(await fr.removeKey(), undefined);
			assert.equal(picks, 0);
			assert.ok(fake.messages().some((m) => m === 'Reasonix: no stored API key to remove.'));
			// The key never showed.
			assert.ok(!fake.messages().some((m) => m.includes(KEY)), fake.messages().join(' | '));
			assert.deepEqual(filesContaining(dir, KEY), []);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
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

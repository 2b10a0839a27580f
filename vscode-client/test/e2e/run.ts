// End-to-end test in a real VS Code: code-server (VS Code 1.139 in a browser)
// driven by headless Chromium through playwright-core, with the examples
// hello and echo-provider installed into a temporary bridge home. The
// extension is installed as a user would: the release package for this
// platform (make vsix), with no rxBridge.path and no rx-bridge on PATH, so
// the binary it carries is the one that runs (and installs the examples).
//
// Every step saves a screenshot under out/e2e/; on failure the screenshots,
// the exthost log, the Reasonix Bridge output and code-server's log stay
// there and the process exits 1 with the reason. Nothing is ever skipped: a
// step that cannot run here fails.

import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, Browser, Page } from 'playwright-core';

const CLIENT = path.resolve(__dirname, '..', '..', '..');
const REPO = path.resolve(CLIENT, '..');
const OUT = path.resolve(process.env.RX_E2E_OUTDIR || path.join(CLIENT, 'out', 'e2e'));
const CHROMIUM = '/usr/bin/chromium';
const PROBE = path.join(CLIENT, 'test', 'e2e', 'probe');

class StepError extends Error {}

let stepNo = 0;
let page: Page | undefined;
const timings: { step: string; ms: number }[] = [];

function log(msg: string): void {
	process.stdout.write(`e2e: ${msg}\n`);
}

async function shot(name: string): Promise<void> {
	if (!page) return;
	const file = path.join(OUT, `${String(++stepNo).padStart(2, '0')}-${name}.png`);
	await page.screenshot({ path: file }).catch((err) => log(`screenshot ${name} failed: ${err}`));
}

function slug(s: string): string {
	return s.replace(/[^a-z0-9]+/gi, '-').replace(/^-+|-+$/g, '').toLowerCase();
}

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
	const t0 = Date.now();
	log(`step: ${name}`);
	try {
		const r = await fn();
		timings.push({ step: name, ms: Date.now() - t0 });
		await shot(slug(name));
		return r;
	} catch (err) {
		await shot(`FAILED-${slug(name)}`);
		throw new StepError(`step "${name}" failed: ${err instanceof Error ? err.message : String(err)}`);
	}
}

function requireFile(p: string, why: string): void {
	if (!fs.existsSync(p)) throw new StepError(`${p} is missing: ${why}`);
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const s = net.createServer();
		s.listen(0, '127.0.0.1', () => {
			const a = s.address();
			s.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
		});
	});
}

async function until<T>(what: string, ms: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
	const end = Date.now() + ms;
	let last: unknown;
	for (;;) {
		try {
			const v = await probe();
			if (v !== undefined && v !== false) return v as T;
		} catch (err) {
			last = err;
		}
		if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${last})` : ''}`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

function readJson(file: string): any {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch {
		return undefined;
	}
}

function copyDir(src: string, dst: string, only?: string[]): void {
	fs.mkdirSync(dst, { recursive: true });
	for (const name of only ?? fs.readdirSync(src)) {
		const s = path.join(src, name);
		const d = path.join(dst, name);
		if (fs.statSync(s).isDirectory()) copyDir(s, d);
		else fs.copyFileSync(s, d);
	}
}

function findFiles(dir: string, pred: (p: string) => boolean, acc: string[] = []): string[] {
	if (!fs.existsSync(dir)) return acc;
	for (const name of fs.readdirSync(dir)) {
		const p = path.join(dir, name);
		const st = fs.statSync(p);
		if (st.isDirectory()) findFiles(p, pred, acc);
		else if (pred(p)) acc.push(p);
	}
	return acc;
}

/** Runs the palette command with this title (F1, type, Enter). */
async function palette(p: Page, title: string): Promise<void> {
	await p.keyboard.press('Escape');
	await p.keyboard.press('F1');
	const input = p.locator('.quick-input-widget .quick-input-box input');
	await input.waitFor({ state: 'visible', timeout: 15000 });
	await input.fill(`>${title}`);
	const row = p.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
	await row.waitFor({ state: 'visible', timeout: 15000 });
	await p.keyboard.press('Enter');
}

function quickRow(p: Page, text: string | RegExp) {
	return p.locator('.quick-input-widget .monaco-list-row', { hasText: text }).first();
}

function notification(p: Page, text: string | RegExp) {
	return p.locator('.notifications-toasts .notification-toast, .notifications-center .notification-list-item', { hasText: text }).first();
}

async function main(): Promise<void> {
	const t0 = Date.now();
	fs.rmSync(OUT, { recursive: true, force: true });
	fs.mkdirSync(OUT, { recursive: true });

	const vsix = path.resolve(process.env.RX_E2E_VSIX || path.join(REPO, 'dist', 'rx-bridge-linux-x64.vsix'));
	requireFile(vsix, 'build the linux-x64 package first (make vsix, or make vscode-test) or set RX_E2E_VSIX');
	requireFile(path.join(REPO, 'examples', 'hello', 'bin', 'hello'), 'build the examples first (make examples)');
	requireFile(path.join(REPO, 'examples', 'echo-provider', 'bin', 'echo-provider'), 'build the examples first (make examples)');

	log('installing or checking code-server, Node 24 and Chromium (scripts/e2e-setup.sh)');
	const setup = execFileSync('bash', [path.join(CLIENT, 'scripts', 'e2e-setup.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
	const env = Object.fromEntries(setup.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
	const node24 = env.NODE24;
	const entry = env.CODE_SERVER_ENTRY;
	requireFile(node24, 'scripts/e2e-setup.sh did not install Node 24');
	requireFile(entry, 'scripts/e2e-setup.sh did not install code-server');
	requireFile(CHROMIUM, 'scripts/e2e-setup.sh did not install Debian chromium');
	timings.push({ step: 'setup', ms: Date.now() - t0 });

	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-bridge-e2e-'));
	const home = path.join(tmp, 'home');
	const userData = path.join(tmp, 'user-data');
	const exts = path.join(tmp, 'extensions');
	const workspace = path.join(tmp, 'workspace');
	for (const d of [home, userData, exts, workspace]) fs.mkdirSync(d, { recursive: true });
	fs.writeFileSync(path.join(workspace, 'README.md'), '# e2e workspace\n');

	// Installed with code-server's own command line, as `code --install-extension` would.
	const pkg = JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8'));
	const probe = JSON.parse(fs.readFileSync(path.join(PROBE, 'package.json'), 'utf8'));
	copyDir(PROBE, path.join(exts, `${probe.publisher}.${probe.name}-${probe.version}`));
	const installed = execFileSync(node24, [entry, '--extensions-dir', exts, '--user-data-dir', userData, '--install-extension', vsix], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
	fs.writeFileSync(path.join(OUT, 'install-vsix.txt'), installed);
	const extDir = fs.readdirSync(exts).find((d) => d.startsWith(`${pkg.publisher}.${pkg.name}-`));
	if (!extDir) throw new StepError(`code-server --install-extension ${vsix} installed nothing into ${exts}: ${installed}`);
	const bin = path.join(exts, extDir, 'bin', 'rx-bridge');
	requireFile(bin, `the package ${vsix} carries no bin/rx-bridge`);
	fs.accessSync(bin, fs.constants.X_OK);

	// No rx-bridge on PATH: only the bundled one can start.
	const searchPath = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !fs.existsSync(path.join(d, 'rx-bridge'))).join(path.delimiter);
	const bridgeEnv = { ...process.env, RX_BRIDGE_HOME: home, PATH: searchPath };
	for (const ex of ['hello', 'echo-provider']) {
		const r = execFileSync(bin, ['plugin', 'install', path.join(REPO, 'examples', ex), '--yes'], { env: bridgeEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
		fs.writeFileSync(path.join(OUT, `install-${ex}.txt`), r);
	}

	// A package of Markdown commands: /kit:review runs from the palette.
	const kit = path.join(tmp, 'kit');
	fs.mkdirSync(path.join(kit, 'commands'), { recursive: true });
	fs.writeFileSync(path.join(kit, 'reasonix-plugin.json'), JSON.stringify({ apiVersion: 'reasonix.io/plugin/v1', name: 'kit', version: '1.0.0', contributes: { commands: ['commands'] } }));
	fs.writeFileSync(path.join(kit, 'commands', 'review.md'), '---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 carefully.\n');
	fs.writeFileSync(path.join(OUT, 'install-kit.txt'), execFileSync(bin, ['plugin', 'install', kit, '--yes'], { env: bridgeEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));

	// No rxBridge.path anywhere (it is a machine setting: Machine/ would hold it).
	fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
	fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
		'rxBridge.trace.server': 'verbose',
		'workbench.startupEditor': 'none',
		'workbench.tips.enabled': false,
		'workbench.welcomePage.walkthroughs.openOnInstall': false,
		'security.workspace.trust.enabled': false,
		'extensions.autoUpdate': false,
		'extensions.autoCheckUpdates': false,
		'telemetry.telemetryLevel': 'off',
		'update.mode': 'none',
	}, null, 2));

	const port = await freePort();
	const csLog = fs.openSync(path.join(OUT, 'code-server.log'), 'w');
	const cs: ChildProcess = spawn(node24, [
		entry, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
		'--bind-addr', `127.0.0.1:${port}`, '--user-data-dir', userData, '--extensions-dir', exts, workspace,
	], {
		detached: true,
		stdio: ['ignore', csLog, csLog],
		env: { ...bridgeEnv, RX_E2E_OUT: OUT, PATH: `${path.dirname(node24)}${path.delimiter}${searchPath}` },
	});
	let browser: Browser | undefined;
	let failed: unknown;
	try {
		await step('code-server listens', () => until('code-server on its port', 60000, () => new Promise<boolean | undefined>((resolve) => {
			const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
			s.on('error', () => resolve(undefined));
		})));
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			headless: true,
			args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
		});
		const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
		page = await ctx.newPage();
		const p = page;

		await step('workbench loads', async () => {
			await p.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
			await p.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60000 });
		});

		const bridge = await step('extension activates and starts its bundled rx-bridge', async () => {
			const b = await until('the Reasonix bridge to run with /hello:greet (probe-bridge.json)', 90000, () => {
				const s = readJson(path.join(OUT, 'probe-bridge.json'));
				if (s?.error) throw new Error(s.error);
				return s?.state === 'running' && s.actions?.includes('/hello:greet') ? s : undefined;
			});
			await palette(p, 'Reasonix: Show Bridge Log');
			await p.locator('.part.panel').waitFor({ state: 'visible', timeout: 15000 });
			// The one that runs is the binary the package brought.
			const pids = execFileSync('pgrep', ['-f', `^${bin} serve`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
			if (pids.length !== 1) throw new Error(`expected one ${bin} serve process, found ${pids.length}`);
			return b;
		});
		log(`bridge ${bridge.info?.bridgeVersion} generation ${bridge.generation}, actions ${bridge.actions.join(', ')}`);

		await step('Run Plugin Action lists /hello:greet', async () => {
			await palette(p, 'Reasonix: Run Plugin Action');
			await quickRow(p, '/hello:greet').waitFor({ state: 'visible', timeout: 20000 });
		});

		await step('greet asks the style in a quick-pick', async () => {
			await quickRow(p, '/hello:greet').click();
			await quickRow(p, 'pirate').waitFor({ state: 'visible', timeout: 20000 });
			for (const s of ['friendly', 'formal']) await quickRow(p, s).waitFor({ state: 'visible', timeout: 5000 });
		});

		await step('greet asks the name in an input box', async () => {
			await quickRow(p, 'pirate').click();
			await p.locator('.quick-input-widget', { hasText: 'Your name' }).waitFor({ state: 'visible', timeout: 20000 });
			const input = p.locator('.quick-input-widget .quick-input-box input');
			await input.fill('Ada');
		});

		await step('the plugin notification appears', async () => {
			await p.keyboard.press('Enter');
			await notification(p, 'Ahoy, Ada!').waitFor({ state: 'visible', timeout: 20000 });
		});

		await step('the plugin status item shows', async () => {
			await palette(p, 'RX E2E: Start Session');
			const s = await until('probe-session.json', 30000, () => readJson(path.join(OUT, 'probe-session.json')));
			if (s.error) throw new Error(`rx/session/new failed: ${s.error}`);
			await p.locator('.statusbar', { hasText: 'hello: ready' }).waitFor({ state: 'visible', timeout: 20000 });
		});

		const lm = await step('vscode.lm streams from the echo provider', async () => {
			await palette(p, 'RX E2E: Ask Echo Model');
			const allow = p.locator('.monaco-dialog-box .monaco-button', { hasText: /^Allow$/ }).first();
			const r = await until('probe-lm.json', 60000, async () => {
				if (await allow.isVisible().catch(() => false)) {
					await shot('lm-access-dialog');
					await allow.click();
				}
				return readJson(path.join(OUT, 'probe-lm.json'));
			});
			if (r.error) throw new Error(`the vscode.lm request failed: ${r.error} (models seen: ${JSON.stringify(r.models)})`);
			if (!Array.isArray(r.fragments) || r.fragments.length < 2) throw new Error(`expected a streamed answer in several fragments, got ${JSON.stringify(r.fragments)}`);
			if (!r.text.includes('hello')) throw new Error(`the echo model answered ${JSON.stringify(r.text)}`);
			await notification(p, 'RX E2E LM').waitFor({ state: 'visible', timeout: 20000 });
			return r;
		});
		log(`lm: ${lm.fragments.length} fragments: ${JSON.stringify(lm.text)}`);

		await step('@reasonix answers in the Chat view', async () => {
			const chatInput = p.locator('.interactive-input-part .monaco-editor').first();
			await chatInput.waitFor({ state: 'visible', timeout: 20000 });
			await chatInput.click();
			await p.keyboard.type('@reasonix ', { delay: 20 });
			await p.keyboard.type('hello there chat', { delay: 20 });
			await shot('chat-typed');
			await p.keyboard.press('Enter');
			await p.locator('.interactive-item-container.interactive-response', { hasText: 'chat' }).first().waitFor({ state: 'visible', timeout: 60000 });
			await until('the chat answer to finish', 30000, async () => {
				const t = await p.locator('.interactive-item-container.interactive-response').last().innerText();
				return /hello there chat/.test(t) ? t : undefined;
			});
		});

		await step('Run Plugin Action lists the /kit:review command with its hint', async () => {
			await palette(p, 'Reasonix: Run Plugin Action');
			await quickRow(p, '/kit:review').waitFor({ state: 'visible', timeout: 20000 });
			await quickRow(p, /<file> — Review a file/).waitFor({ state: 'visible', timeout: 5000 });
		});

		await step('/kit:review asks its arguments in an input box, the hint as placeholder', async () => {
			await quickRow(p, '/kit:review').click();
			const input = p.locator('.quick-input-widget .quick-input-box input');
			await until('the arguments input box', 20000, async () => (await input.getAttribute('placeholder')) === '<file>' || undefined);
			await input.fill('README.md');
		});

		await step('the command runs as a @reasonix turn on the expanded text', async () => {
			await p.keyboard.press('Enter');
			await until('the expanded command answered in the Chat view', 60000, async () => {
				const t = await p.locator('.interactive-item-container.interactive-response').last().innerText().catch(() => '');
				return /Review README\.md carefully\./.test(t) ? t : undefined;
			});
			const req = await p.locator('.interactive-item-container.interactive-request').last().innerText();
			if (!req.includes('/kit:review README.md')) throw new Error(`the chat request reads ${JSON.stringify(req)}`);
		});
	} catch (err) {
		failed = err;
	} finally {
		await browser?.close().catch(() => {});
		if (cs.pid) {
			try { process.kill(-cs.pid, 'SIGTERM'); } catch { /* gone */ }
			await new Promise((r) => setTimeout(r, 1500));
			try { process.kill(-cs.pid, 'SIGKILL'); } catch { /* gone */ }
		}
		fs.closeSync(csLog);
		for (const f of findFiles(path.join(userData, 'logs'), (f) => /exthost\.log$|Reasonix|rxBridge|rx-bridge/i.test(path.basename(f)))) {
			fs.copyFileSync(f, path.join(OUT, `log-${path.relative(path.join(userData, 'logs'), f).replace(/[\\/]/g, '_')}`));
		}
		fs.writeFileSync(path.join(OUT, 'timings.json'), JSON.stringify({ totalMs: Date.now() - t0, steps: timings }, null, 2));
		if (failed) {
			log(`temporary files kept in ${tmp}`);
		} else {
			fs.rmSync(tmp, { recursive: true, force: true });
		}
	}
	if (failed) throw failed;
	log(`passed in ${((Date.now() - t0) / 1000).toFixed(1)} s; screenshots and logs in ${OUT}`);
}

main().then(
	() => {
		process.stdout.write(`${timings.length} passed, 0 failed\n`);
		process.exit(0);
	},
	(err) => {
		process.stderr.write(`e2e: FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
		process.stderr.write(`e2e: screenshots and logs in ${OUT}\n`);
		process.stdout.write(`${timings.length} passed, 1 failed\n`);
		process.exit(1);
	},
);

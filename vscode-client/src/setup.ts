// The first run: Reasonix: Set Up Model… (rx-bridge setup through
// quick-picks, the API key kept in SecretStorage), Reasonix: Install
// Plugin… (rx-bridge plugin install, its FULL TRUST preview shown before
// anything is written) and Reasonix: Open Chat (the Chat view with
// @reasonix in its input).
//
// The key never goes to disk from here: config.toml names an environment
// variable (RX_BRIDGE_KEY_<PROVIDER>), and every rx-bridge the extension
// starts (serve, setup) gets that variable from SecretStorage.

import * as vscode from 'vscode';
import { l10n } from './l10n';
import { CliOptions, CliResult, cliError, runCli } from './cli';
import type { VirtualDocs } from './docs';
import { noIcons } from './text';
import { errorText } from './ui';

export const SetupCommand = {
	setupModel: 'rxBridge.setupModel',
	installPlugin: 'rxBridge.installPlugin',
	openChat: 'rxBridge.openChat',
	getStarted: 'rxBridge.getStarted',
	removeKey: 'rxBridge.removeKey',
} as const;

/** The walkthrough (package.json contributes.walkthroughs), as openWalkthrough names it. */
export const WALKTHROUGH = 'reasonix.rx-bridge#rxBridge.firstRun';

/** VS Code's command that opens the Chat view with a query. */
export const CHAT_OPEN = 'workbench.action.chat.open';
/** VS Code's command that selects a model in the chat's model picker. */
const CHANGE_MODEL = 'workbench.action.chat.changeModel';

/** The variable the key of a provider is passed in. */
export function keyEnvName(provider: string): string {
	return `RX_BRIDGE_KEY_${provider.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** The variable of a key while setup only lists models (no provider name yet). */
export const PROBE_KEY_ENV = 'RX_BRIDGE_KEY_SETUP';

const INDEX = 'rxBridge.keyEnvs';
const SECRET_PREFIX = 'rxBridge.key.';

/** API keys in SecretStorage, by variable name; the names (not secret) in globalState. */
export class Keys {
	constructor(private readonly secrets: vscode.SecretStorage, private readonly state: vscode.Memento) {}

	names(): string[] {
		return this.state.get<string[]>(INDEX, []);
	}

	get(name: string): Thenable<string | undefined> {
		return this.secrets.get(SECRET_PREFIX + name);
	}

	async set(name: string, value: string): Promise<void> {
		await this.secrets.store(SECRET_PREFIX + name, value);
		const names = this.names();
		if (!names.includes(name)) await this.state.update(INDEX, [...names, name].sort());
	}

	async delete(name: string): Promise<void> {
		await this.secrets.delete(SECRET_PREFIX + name);
		await this.state.update(INDEX, this.names().filter((n) => n !== name));
	}

	/** The variables every rx-bridge child gets. */
	async env(): Promise<Record<string, string>> {
		const out: Record<string, string> = {};
		for (const n of this.names()) {
			const v = await this.get(n);
			if (v) out[n] = v;
		}
		return out;
	}
}

export interface Preset {
	kind: string;
	label: string;
	baseUrl?: string;
	/** A cloud service: a key is needed. */
	cloud: boolean;
}

/** rx-bridge setup's providers (cmd/rx-bridge/setup.go). */
export const PRESETS: Preset[] = [
	{ kind: 'deepseek', label: 'DeepSeek', baseUrl: 'https://api.deepseek.com/v1', cloud: true },
	{ kind: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', cloud: true },
	{ kind: 'openrouter', label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', cloud: true },
	{ kind: 'ollama', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', cloud: false },
	{ kind: 'llamacpp', label: 'llama.cpp', baseUrl: 'http://127.0.0.1:8080/v1', cloud: false },
	{ kind: 'vllm', label: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1', cloud: false },
];
export const CUSTOM = 'openai-compatible';

/** Whether anything answers HTTP at base/models (any status: a server is there). */
export async function probe(baseUrl: string, ms = 1500): Promise<boolean> {
	try {
		await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(ms) });
		return true;
	} catch {
		return false;
	}
}

export interface ListedModel {
	id: string;
	ref: string;
	contextWindow?: number;
}

interface SetupJson {
	provider: string;
	baseUrl: string;
	models?: ListedModel[];
	model?: string;
	config?: string;
}

export interface FirstRunDeps {
	keys: Keys;
	docs: VirtualDocs;
	/** The CLI's options, the stored keys in its environment. */
	cliOptions(extraEnv?: Record<string, string>): Promise<CliOptions>;
	/** Restarts the bridge, so config.toml's change takes effect. */
	restartBridge(): Promise<void>;
	/** Reloads the plugins. */
	reloadPlugins(): Promise<void>;
}

/** One provider's key in `rx-bridge setup --list-keys --json`. */
interface ListedKey {
	provider: string;
	keyFile?: string;
	keyEnv?: string;
	/** keyFile is the file setup stored in the home. */
	stored: boolean;
	/** false: a key file no provider of config.toml names. */
	configured: boolean;
}

/** A key Remove Stored Key… offers: in SecretStorage, in a file setup stored, or both. */
export interface StoredKey {
	/** The provider (for a secret no provider names, its variable). */
	provider: string;
	/** The SecretStorage variable holding it. */
	secret?: string;
	/** The key file setup stored. */
	file?: string;
	/** config.toml has the provider with a key setting the CLI takes out. */
	configured: boolean;
}

/**
 * The keys to offer: each provider of config.toml whose key is in
 * SecretStorage (its api_key_env is one of ours) or in a file setup
 * stored, leftover key files, and secrets no provider names any more.
 */
export function storedKeys(listed: ListedKey[], secrets: string[]): StoredKey[] {
	const out: StoredKey[] = [];
	const used = new Set<string>();
	for (const k of listed) {
		const secret = k.keyEnv && secrets.includes(k.keyEnv) ? k.keyEnv : undefined;
		const file = k.stored && k.keyFile ? k.keyFile : undefined;
		if (secret) used.add(secret);
		if (!secret && !file) continue;
		out.push({ provider: k.provider, secret, file, configured: k.configured });
	}
	for (const s of secrets) {
		if (!used.has(s)) out.push({ provider: s, secret: s, configured: false });
	}
	return out;
}

interface ProviderItem extends vscode.QuickPickItem {
	preset?: Preset;
}

export class FirstRun {
	constructor(private readonly deps: FirstRunDeps) {}

	register(): vscode.Disposable[] {
		return [
			vscode.commands.registerCommand(SetupCommand.setupModel, () => this.setupModel()),
			vscode.commands.registerCommand(SetupCommand.installPlugin, (src?: unknown) => this.installPlugin(typeof src === 'string' ? src : undefined)),
			vscode.commands.registerCommand(SetupCommand.openChat, () => openChat()),
			vscode.commands.registerCommand(SetupCommand.removeKey, () => this.removeKey()),
			vscode.commands.registerCommand(SetupCommand.getStarted, () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false)),
		];
	}

	private async cli(args: string[], title: string, extraEnv?: Record<string, string>): Promise<CliResult> {
		const o = await this.deps.cliOptions(extraEnv);
		return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, () => runCli(args, o));
	}

	/** Reasonix: Set Up Model…; resolves with the model ref set up (undefined: cancelled or failed). */
	async setupModel(): Promise<string | undefined> {
		const title = l10n.t('Reasonix: Set Up Model');
		const preset = await this.pickProvider(title);
		if (!preset) return undefined;
		let baseUrl = preset.baseUrl;
		if (preset.kind === CUSTOM) {
			baseUrl = (await vscode.window.showInputBox({
				title,
				prompt: l10n.t('The server\'s API root, before /chat/completions'),
				placeHolder: 'http://127.0.0.1:8080/v1',
				ignoreFocusOut: true,
				validateInput: (v) => /^https?:\/\/\S+$/.test(v.trim()) ? undefined : l10n.t('A URL starting with http:// or https://'),
			}))?.trim();
			if (!baseUrl) return undefined;
		}
		const key = await vscode.window.showInputBox({
			title,
			prompt: preset.cloud
				? l10n.t('The API key of {0} (kept in VS Code\'s secret storage, never written to a file)', preset.label)
				: l10n.t('The API key of the server, if it needs one (kept in VS Code\'s secret storage, never written to a file); empty for none'),
			password: true,
			ignoreFocusOut: true,
			validateInput: (v) => preset.cloud && !v.trim() ? l10n.t('{0} needs an API key', preset.label) : undefined,
		});
		if (key === undefined) return undefined;
		const common = ['setup', '--provider', preset.kind, ...(preset.kind === CUSTOM && baseUrl ? ['--base-url', baseUrl] : [])];
		const k = key.trim();
		const listed = await this.cli([...common, ...(k ? ['--api-key-env', PROBE_KEY_ENV] : []), '--list-models', '--json'],
			l10n.t('Reasonix: asking {0} for its models', baseUrl ?? preset.label), k ? { [PROBE_KEY_ENV]: k } : undefined);
		if (listed.code !== 0) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: {0}', cliError(listed))));
			return undefined;
		}
		let info: SetupJson;
		try {
			info = JSON.parse(listed.stdout);
		} catch (err) {
			void vscode.window.showErrorMessage(l10n.t('Reasonix: rx-bridge setup printed no model list ({0})', errorText(err)));
			return undefined;
		}
		const models = info.models ?? [];
		if (models.length === 0) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: {0} lists no models', info.baseUrl)));
			return undefined;
		}
		const picked = await vscode.window.showQuickPick(models.map((m) => ({
			label: noIcons(m.id),
			description: m.contextWindow ? l10n.t('{0} tokens of context', m.contextWindow.toLocaleString('en-US')) : undefined,
			detail: noIcons(m.ref),
			model: m,
		})), { title, placeHolder: l10n.t('The default model (the server lists {0})', models.length), ignoreFocusOut: true, matchOnDetail: true });
		if (!picked) return undefined;
		const env = keyEnvName(info.provider);
		const write = (replace: boolean) => this.cli(
			[...common, ...(k ? ['--api-key-env', env] : []), '--model', picked.model.id, ...(replace ? ['--replace'] : []), '--json'],
			l10n.t('Reasonix: writing config.toml'), k ? { [env]: k } : undefined);
		let r = await write(false);
		if (r.code !== 0 && /--replace/.test(r.stdout + r.stderr)) {
			const REPLACE = l10n.t('Replace');
			const sure = await vscode.window.showWarningMessage(
				l10n.t('config.toml already has a provider named "{0}". Replace it?', info.provider),
				{ modal: true, detail: noIcons(cliError(r)) }, REPLACE);
			if (sure !== REPLACE) return undefined;
			r = await write(true);
		}
		if (r.code !== 0) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: {0}', cliError(r))));
			return undefined;
		}
		let done: SetupJson;
		try {
			done = JSON.parse(r.stdout);
		} catch {
			done = { ...info, model: picked.model.ref };
		}
		const ref = done.model || picked.model.ref;
		if (k) await this.deps.keys.set(env, k);
		try {
			await this.deps.restartBridge();
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: the model is set up, but the bridge did not restart: {0}', errorText(err))));
			return ref;
		}
		// The chat's model picker shows the new model (it may still show the
		// placeholder of "no model").
		await vscode.commands.executeCommand(CHANGE_MODEL, { vendor: 'reasonix', id: ref, family: info.provider }).then(undefined, () => undefined);
		const OPEN = l10n.t('Open Chat');
		void vscode.window.showInformationMessage(noIcons(l10n.t('Reasonix: {0} is set up and is the default model.', ref)), OPEN).then((b) => {
			if (b === OPEN) void openChat();
		});
		return ref;
	}

	/**
	 * Reasonix: Remove Stored Key…: a quick-pick of the providers whose key
	 * is in SecretStorage or in a file `rx-bridge setup` stored (never the
	 * key itself), a confirmation, then the secret is deleted and
	 * `rx-bridge setup --remove-key` takes the key setting out of
	 * config.toml and deletes the file; the bridge restarts without it.
	 * Resolves with the provider removed (undefined: none, or cancelled).
	 */
	async removeKey(): Promise<string | undefined> {
		const title = l10n.t('Reasonix: Remove Stored Key');
		const listed = await this.cli(['setup', '--list-keys', '--json'], l10n.t('Reasonix: reading config.toml'));
		let keys: ListedKey[] = [];
		if (listed.code === 0) {
			try {
				keys = (JSON.parse(listed.stdout) as { keys?: ListedKey[] }).keys ?? [];
			} catch {
				keys = [];
			}
		} else {
			// The secrets can still go.
			void vscode.window.showWarningMessage(noIcons(l10n.t('Reasonix: {0}', cliError(listed))));
		}
		const offered = storedKeys(keys, this.deps.keys.names());
		if (offered.length === 0) {
			void vscode.window.showInformationMessage(l10n.t('Reasonix: no stored API key to remove.'));
			return undefined;
		}
		const where = (k: StoredKey) => [
			k.secret ? l10n.t('in VS Code\'s secret storage') : '',
			k.file ? l10n.t('key file {0}', k.file) : '',
		].filter(Boolean).join(' · ');
		const picked = await vscode.window.showQuickPick(offered.map((k) => ({
			label: noIcons(k.provider),
			description: noIcons(where(k)),
			detail: k.configured ? undefined : l10n.t('no provider of config.toml uses it'),
			key: k,
		})), { title, placeHolder: l10n.t('The provider whose API key to remove'), ignoreFocusOut: true });
		if (!picked) return undefined;
		const k = picked.key;
		const REMOVE = l10n.t('Remove');
		const sure = await vscode.window.showWarningMessage(
			l10n.t('Remove the API key of {0}?', k.provider),
			{ modal: true, detail: noIcons(l10n.t('It is deleted ({0}) and config.toml no longer names it; the provider stays, without a key, until you set one up again.', where(k))) },
			REMOVE);
		if (sure !== REMOVE) return undefined;
		if (k.configured || k.file) {
			const r = await this.cli(['setup', '--remove-key', k.provider, '--json'], l10n.t('Reasonix: removing the key of {0}', k.provider));
			if (r.code !== 0) {
				void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: {0}', cliError(r))));
				return undefined;
			}
		}
		if (k.secret) await this.deps.keys.delete(k.secret);
		try {
			await this.deps.restartBridge();
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: the key is removed, but the bridge did not restart: {0}', errorText(err))));
			return k.provider;
		}
		void vscode.window.showInformationMessage(noIcons(l10n.t('Reasonix: the API key of {0} is removed.', k.provider)));
		return k.provider;
	}

	private pickProvider(title: string): Promise<Preset | undefined> {
		return new Promise((resolve) => {
			const qp = vscode.window.createQuickPick<ProviderItem>();
			qp.title = title;
			qp.placeholder = l10n.t('Where the model runs');
			qp.ignoreFocusOut = true;
			qp.matchOnDescription = true;
			const local = PRESETS.filter((p) => !p.cloud);
			const answers = new Map<string, boolean | undefined>();
			const custom: Preset = { kind: CUSTOM, label: l10n.t('Any OpenAI-compatible server…'), cloud: false };
			const fill = () => {
				const items: ProviderItem[] = [];
				items.push({ label: l10n.t('Services'), kind: vscode.QuickPickItemKind.Separator });
				for (const p of PRESETS.filter((x) => x.cloud)) items.push({ label: p.label, description: p.baseUrl, preset: p });
				items.push({ label: l10n.t('On this machine'), kind: vscode.QuickPickItemKind.Separator });
				for (const p of local) {
					const a = answers.get(p.kind);
					const state = a === undefined ? l10n.t('probing…') : a ? l10n.t('answers') : l10n.t('not running');
					items.push({ label: `${a ? '$(pass-filled) ' : ''}${p.label}`, description: `${p.baseUrl} — ${state}`, preset: p });
				}
				items.push({ label: custom.label, description: l10n.t('a URL you type'), preset: custom });
				const active = qp.activeItems[0]?.preset;
				qp.items = items;
				if (active) {
					const again = items.find((i) => i.preset === active);
					if (again) qp.activeItems = [again];
				}
			};
			fill();
			qp.busy = true;
			void Promise.all(local.map(async (p) => {
				answers.set(p.kind, await probe(p.baseUrl!));
				fill();
			})).finally(() => { qp.busy = false; });
			let settled = false;
			const done = (v: Preset | undefined) => {
				if (settled) return;
				settled = true;
				qp.dispose();
				resolve(v);
			};
			qp.onDidAccept(() => done(qp.selectedItems[0]?.preset ?? qp.activeItems[0]?.preset));
			qp.onDidHide(() => done(undefined));
			qp.show();
		});
	}

	/**
	 * Reasonix: Install Plugin…: a folder (open dialog) or a git source
	 * (typed); `plugin install --dry-run` shows its FULL TRUST preview in a
	 * read-only document, and only Install in the dialog that follows runs
	 * `plugin install --yes`, then reloads the plugins.
	 */
	async installPlugin(source?: string): Promise<boolean> {
		const title = l10n.t('Reasonix: Install Plugin');
		let src = source;
		if (!src) {
			const FOLDER = l10n.t('$(folder) A folder on this machine…');
			const GIT = l10n.t('$(repo) A git source…');
			const how = await vscode.window.showQuickPick([
				{ label: FOLDER, description: l10n.t('a plugin folder with its manifest') },
				{ label: GIT, description: l10n.t('git:github.com/owner/repo, https://…, a path ending in .git') },
			], { title, ignoreFocusOut: true });
			if (!how) return false;
			if (how.label === FOLDER) {
				const dirs = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: l10n.t('Preview'), title });
				src = dirs?.[0]?.fsPath;
			} else {
				src = (await vscode.window.showInputBox({ title, prompt: l10n.t('The git source of the plugin'), placeHolder: 'git:github.com/owner/repo', ignoreFocusOut: true }))?.trim();
			}
			if (!src) return false;
		}
		const preview = await this.cli(['plugin', 'install', src, '--dry-run'], l10n.t('Reasonix: reading {0}', src));
		if (preview.code !== 0) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: {0}', cliError(preview))));
			return false;
		}
		const doc = `/install-preview/${encodeURIComponent(src.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || 'plugin')}.txt`;
		const uri = this.deps.docs.set(doc, preview.stdout);
		await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
		const INSTALL = l10n.t('Install');
		const sure = await vscode.window.showWarningMessage(
			l10n.t('Install this plugin with FULL TRUST?'),
			{ modal: true, detail: l10n.t('Its runtime runs as you, with your files and network. The preview in the editor shows what it is and what it would run.') },
			INSTALL);
		if (sure !== INSTALL) return false;
		const r = await this.cli(['plugin', 'install', src, '--yes'], l10n.t('Reasonix: installing {0}', src));
		if (r.code !== 0) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: {0}', cliError(r))));
			return false;
		}
		await this.deps.reloadPlugins();
		return true;
	}
}

/** Reasonix: Open Chat: the Chat view with "@reasonix " typed, not sent. */
export async function openChat(): Promise<void> {
	try {
		await vscode.commands.executeCommand(CHAT_OPEN, { query: '@reasonix ', isPartialQuery: true });
	} catch (err) {
		void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: cannot open the Chat view: {0}', errorText(err))));
	}
}

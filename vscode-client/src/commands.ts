// The command palette: Run Plugin Action… (the plugins' UI actions and the
// slash commands of rx/actions: commands, prompts, skills, agents, MCP
// prompts), Reload Plugins, Show Plugins, Restart Bridge, Show Bridge Log.

import * as vscode from 'vscode';
import { l10n } from './l10n';
import { PARTICIPANT_NAME } from './chat';
import { VirtualDocs } from './docs';
import type { Action, PluginContents, PluginInfo } from './protocol';
import type { Rx } from './rx';
import { errorText, showBySeverity } from './ui';
import { noIcons } from './text';

export const CommandId = {
	runAction: 'rxBridge.runAction',
	reload: 'rxBridge.reload',
	showPlugins: 'rxBridge.showPlugins',
	restart: 'rxBridge.restart',
	showLog: 'rxBridge.showLog',
} as const;

export const PLUGINS_DOC = '/plugins.txt';

interface ActionItem extends vscode.QuickPickItem {
	name: string;
	action?: Action;
	/** The empty list's one item: Reasonix: Install Plugin…. */
	install?: boolean;
}

/** The command that fixes an empty plugin list (setup.ts registers it). */
export const INSTALL_PLUGIN_COMMAND = 'rxBridge.installPlugin';

/** The chat command that opens the Chat view with a query and sends it. */
export const CHAT_OPEN = 'workbench.action.chat.open';

/** The chat query that runs a slash command line with @reasonix. */
export function chatQuery(line: string): string {
	return `@${PARTICIPANT_NAME} ${line}`;
}

/** Whether an rx/actions entry is a slash command (runs as a chat turn). */
export function isCommand(a: Action | undefined): boolean {
	return a?.kind === 'command';
}

export class Commands {
	constructor(
		private readonly rx: Rx,
		private readonly docs: VirtualDocs,
		private readonly log: vscode.OutputChannel,
		/** How many notifications a plugin has shown (PluginUI.notifications). */
		private readonly notices: (plugin: string) => number = () => 0,
	) {}

	register(): vscode.Disposable[] {
		return [
			vscode.commands.registerCommand(CommandId.runAction, (name?: unknown) => this.runAction(typeof name === 'string' ? name : undefined)),
			vscode.commands.registerCommand(CommandId.reload, () => this.reload()),
			vscode.commands.registerCommand(CommandId.showPlugins, () => this.showPlugins()),
			vscode.commands.registerCommand(CommandId.restart, () => this.restart()),
			vscode.commands.registerCommand(CommandId.showLog, () => this.log.show(true)),
		];
	}

	/**
	 * Picks an action or command (or takes `name`) and runs it: an action
	 * through rx.runAction (resolves when it ended), a command by asking for
	 * its arguments and sending the line to @reasonix in the Chat view.
	 */
	async runAction(name?: string): Promise<void> {
		let picked: Action | undefined;
		if (name) {
			// A name from elsewhere (a card button, a keybinding) is an action,
			// unless only a command has it.
			const all = this.rx.actions.filter((a) => a.name === name);
			picked = all.find((a) => !isCommand(a)) ?? all[0];
		} else {
			picked = await this.pickAction();
			if (!picked) return;
			name = picked.name;
		}
		if (picked && isCommand(picked)) {
			await this.runCommand(picked);
			return;
		}
		// An action that showed a notification of its own has said what it
		// did: its result message is not toasted a second time.
		const plugin = picked?.plugin || /^\/([^:]+):/.exec(name)?.[1] || '';
		const before = this.notices(plugin);
		try {
			const r = await this.rx.runAction(name);
			if (r.message && this.notices(plugin) === before) showBySeverity('info', noIcons(`${name}: ${r.message}`));
			else if (r.accepted === false) showBySeverity('warn', noIcons(l10n.t('{0} was not accepted', name)));
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: {0} failed: {1}', name, errorText(err))));
		}
	}

	/**
	 * Asks for a command's arguments (its argument hint as the placeholder)
	 * and runs "<name> <arguments>" as a @reasonix chat turn; the agent
	 * resolves the line. Escape runs nothing.
	 */
	async runCommand(a: Action): Promise<void> {
		const args = await vscode.window.showInputBox({
			title: noIcons(`Reasonix: ${a.name}`),
			prompt: a.description ? noIcons(a.description) : l10n.t('The arguments of {0} (may be empty)', noIcons(a.name)),
			placeHolder: a.argumentHint ? noIcons(a.argumentHint) : l10n.t('arguments (optional)'),
			ignoreFocusOut: true,
		});
		if (args === undefined) return;
		const line = args.trim() ? `${a.name} ${args.trim()}` : a.name;
		try {
			await vscode.commands.executeCommand(CHAT_OPEN, { query: chatQuery(line) });
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: cannot open the Chat view to run {0}: {1}', a.name, errorText(err))));
		}
	}

	private pickAction(): Promise<Action | undefined> {
		return new Promise((resolve) => {
			const qp = vscode.window.createQuickPick<ActionItem>();
			qp.title = l10n.t('Reasonix: Run Plugin Action');
			qp.placeholder = l10n.t('Pick a plugin action or command');
			qp.matchOnDescription = true;
			const fill = () => {
				const items = this.rx.actions.map((a) => isCommand(a)
					? {
						label: a.name,
						description: noIcons([a.argumentHint, a.description].filter(Boolean).join(' — ')) || undefined,
						detail: a.source && a.source !== 'command' ? (a.plugin ? l10n.t('{0} of {1}', a.source === 'mcpPrompt' ? 'MCP prompt' : a.source, a.plugin) : (a.source === 'mcpPrompt' ? 'MCP prompt' : a.source)) : undefined,
						name: a.name,
						action: a,
					}
					: {
						label: a.name,
						description: a.label ? noIcons(a.label) : undefined,
						name: a.name,
						action: a,
					});
				if (items.length === 0 && !qp.busy) {
					qp.items = [{ label: `$(add) ${l10n.t('Reasonix: Install Plugin…')}`, description: l10n.t('no plugin is installed yet'), name: '', install: true }];
					qp.placeholder = l10n.t('No plugin actions or commands: run "Reasonix: Install Plugin…"');
				} else {
					qp.items = items;
					qp.placeholder = l10n.t('Pick a plugin action or command');
				}
			};
			const sub = this.rx.onDidChangeActions(fill);
			let settled = false;
			const done = (v: Action | undefined) => {
				if (settled) return;
				settled = true;
				sub.dispose();
				qp.dispose();
				resolve(v);
			};
			qp.onDidAccept(() => {
				const item = qp.selectedItems[0] ?? qp.activeItems[0];
				if (item?.install) {
					done(undefined);
					void vscode.commands.executeCommand(INSTALL_PLUGIN_COMMAND);
					return;
				}
				done(item?.action);
			});
			qp.onDidHide(() => done(undefined));
			qp.busy = true;
			fill();
			qp.show();
			this.rx.refreshActions().then(
				() => { qp.busy = false; fill(); },
				(err) => {
					qp.busy = false;
					fill();
					qp.placeholder = l10n.t('Could not list plugin actions: {0}', errorText(err));
				},
			);
		});
	}

	async reload(): Promise<void> {
		try {
			const r = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Notification, title: l10n.t('Reasonix: reloading plugins') },
				() => this.rx.reload(),
			);
			void vscode.window.showInformationMessage(l10n.t('Reasonix: plugins reloaded (generation {0})', r.generation));
			for (const w of r.warnings ?? []) void vscode.window.showWarningMessage(noIcons(`Reasonix: ${w}`));
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: reload failed, the running plugins stay: {0}', errorText(err))));
		}
	}

	async showPlugins(): Promise<void> {
		let plugins: PluginInfo[];
		try {
			plugins = await this.rx.plugins();
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: could not list plugins: {0}', errorText(err))));
			return;
		}
		const uri = this.docs.set(PLUGINS_DOC, renderPlugins(plugins));
		const doc = await vscode.workspace.openTextDocument(uri);
		await vscode.window.showTextDocument(doc, { preview: true });
	}

	async restart(): Promise<void> {
		try {
			await this.rx.bridge.restart();
			void vscode.window.showInformationMessage(l10n.t('Reasonix: bridge restarted'));
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: restarting the bridge failed: {0}', errorText(err))));
		}
	}
}

/** Plain text, shown in an editor (monospaced): the FULL TRUST blocks verbatim. */
export function renderPlugins(plugins: PluginInfo[]): string {
	if (plugins.length === 0) return `${l10n.t('No plugins are installed. Run "Reasonix: Install Plugin…" (F1) to install one.')}\n`;
	const out: string[] = [];
	for (const p of plugins) {
		const state = p.state ?? (p.running ? 'running' : '');
		out.push(`${p.name}${p.version ? ` ${p.version}` : ''}${p.enabled === false ? ' (disabled)' : ''}${state && state !== 'disabled' ? ` — ${state}` : ''}`);
		if (p.reason && state !== 'running') out.push(`  why: ${p.reason}`);
		if (p.since) out.push(`  since: ${p.since}`);
		if (p.recover) out.push(`  to recover: ${p.recover}`);
		if (p.description) out.push(`  ${p.description}`);
		if (p.source) out.push(`  source: ${p.source}`);
		if (p.root) out.push(`  root: ${p.root}`);
		if (p.manifestKind) out.push(`  manifest: ${p.manifestKind}`);
		if (typeof p.generation === 'number') out.push(`  generation: ${p.generation}`);
		if (p.runtime) {
			const r = p.runtime;
			if (r.capabilities?.length) out.push(`  capabilities: ${r.capabilities.join(', ')}`);
			if (r.intercepts?.length) out.push(`  intercepts: ${r.intercepts.join(', ')}`);
			if (r.replaces?.length) out.push(`  replaces: ${r.replaces.join(', ')}`);
			if (r.required) out.push('  required: yes');
		} else {
			out.push('  runtime: none');
		}
		if (p.contents) out.push(...renderContents(p.contents));
		if (p.error && p.error !== p.reason) out.push(`  error: ${p.error}`);
		if (p.details) {
			out.push('  details (stderr):');
			for (const line of p.details.replace(/\n+$/, '').split('\n')) out.push(`    ${line}`);
		}
		if (p.trust) {
			out.push('');
			for (const line of p.trust.replace(/\n+$/, '').split('\n')) out.push(`  ${line}`);
		}
		out.push('', '');
	}
	return out.join('\n');
}

/** What a plugin serves beside its runtime, as lines of Show Plugins. */
export function renderContents(c: PluginContents): string[] {
	const out: string[] = [];
	const items = (title: string, list: PluginContents['commands'] | undefined, how?: boolean) => {
		if (!list?.length) return;
		out.push(`  ${title}:`);
		for (const i of list) {
			const mode = how ? (i.subagent ? ' [subagent]' : ' [inline]') : '';
			out.push(`    ${i.name}${i.argumentHint ? ` ${i.argumentHint}` : ''}${mode} - ${i.description || '(no description)'}`);
		}
	};
	items('commands', c.commands);
	items('skills', c.skills, true);
	items('agents', c.agents);
	if (c.hooks?.length) {
		out.push('  hooks:');
		for (const h of c.hooks) out.push(`    ${h.event} match=${h.match || '*'} - ${h.target}`);
	}
	if (c.mcpServers?.length) {
		out.push('  MCP servers:');
		for (const m of c.mcpServers) {
			out.push(`    ${m.name} [${m.transport}] - ${m.target} (${m.state}, ${m.tools} tools, ${m.prompts} prompts)${m.error ? `: ${m.error}` : ''}`);
		}
	}
	if (c.themes?.length) out.push(`  themes (desktop only, not served): ${c.themes.join(', ')}`);
	for (const w of c.warnings ?? []) out.push(`  warning: ${w}`);
	return out;
}

// The command palette: Run Plugin Action…, Reload Plugins, Show Plugins,
// Restart Bridge, Show Bridge Log.

import * as vscode from 'vscode';
import { VirtualDocs } from './docs';
import type { PluginInfo } from './protocol';
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
}

export class Commands {
	constructor(
		private readonly rx: Rx,
		private readonly docs: VirtualDocs,
		private readonly log: vscode.OutputChannel,
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

	/** Picks an action (or takes `name`) and runs it; resolves when the action ended. */
	async runAction(name?: string): Promise<void> {
		if (!name) {
			name = await this.pickAction();
			if (!name) return;
		}
		try {
			const r = await this.rx.runAction(name);
			if (r.message) showBySeverity('info', noIcons(`${name}: ${r.message}`));
			else if (r.accepted === false) showBySeverity('warn', noIcons(`${name} was not accepted`));
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(`Reasonix: ${name} failed: ${errorText(err)}`));
		}
	}

	private pickAction(): Promise<string | undefined> {
		return new Promise((resolve) => {
			const qp = vscode.window.createQuickPick<ActionItem>();
			qp.title = 'Reasonix: Run Plugin Action';
			qp.placeholder = 'Pick a plugin action';
			qp.matchOnDescription = true;
			const fill = () => {
				const items = this.rx.actions.map((a) => ({
					label: a.name,
					description: a.label ? noIcons(a.label) : undefined,
					name: a.name,
				}));
				qp.items = items;
				if (items.length === 0 && !qp.busy) qp.placeholder = 'No plugin actions (install a plugin with `rx-bridge plugin install`, then Reasonix: Reload Plugins)';
				else qp.placeholder = 'Pick a plugin action';
			};
			const sub = this.rx.onDidChangeActions(fill);
			let settled = false;
			const done = (v: string | undefined) => {
				if (settled) return;
				settled = true;
				sub.dispose();
				qp.dispose();
				resolve(v);
			};
			qp.onDidAccept(() => done(qp.selectedItems[0]?.name ?? qp.activeItems[0]?.name));
			qp.onDidHide(() => done(undefined));
			qp.busy = true;
			fill();
			qp.show();
			this.rx.refreshActions().then(
				() => { qp.busy = false; fill(); },
				(err) => {
					qp.busy = false;
					fill();
					qp.placeholder = `Could not list plugin actions: ${errorText(err)}`;
				},
			);
		});
	}

	async reload(): Promise<void> {
		try {
			const r = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Notification, title: 'Reasonix: reloading plugins' },
				() => this.rx.reload(),
			);
			void vscode.window.showInformationMessage(`Reasonix: plugins reloaded (generation ${r.generation})`);
			for (const w of r.warnings ?? []) void vscode.window.showWarningMessage(noIcons(`Reasonix: ${w}`));
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(`Reasonix: reload failed, the running plugins stay: ${errorText(err)}`));
		}
	}

	async showPlugins(): Promise<void> {
		let plugins: PluginInfo[];
		try {
			plugins = await this.rx.plugins();
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(`Reasonix: could not list plugins: ${errorText(err)}`));
			return;
		}
		const uri = this.docs.set(PLUGINS_DOC, renderPlugins(plugins));
		const doc = await vscode.workspace.openTextDocument(uri);
		await vscode.window.showTextDocument(doc, { preview: true });
	}

	async restart(): Promise<void> {
		try {
			await this.rx.bridge.restart();
			void vscode.window.showInformationMessage('Reasonix: bridge restarted');
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(`Reasonix: restarting the bridge failed: ${errorText(err)}`));
		}
	}
}

/** Plain text, shown in an editor (monospaced): the FULL TRUST blocks verbatim. */
export function renderPlugins(plugins: PluginInfo[]): string {
	if (plugins.length === 0) return 'No plugins are installed.\n\nInstall one with: rx-bridge plugin install <dir>\n';
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

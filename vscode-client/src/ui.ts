// The plugin UI mapping (EDITOR_PROTOCOL.md §3): rx/ui/request answered by
// native prompts, rx/ui/surface shown as status items, messages, cards (in
// the Reasonix view, opened as a Markdown preview when the user asks) and
// multi-step forms; rx/pluginStateChanged marks a crashed plugin. Nothing
// of a plugin's is ever run or opened; surfaces and requests of stale
// generations are dropped.

import * as vscode from 'vscode';
import { l10n } from './l10n';
import type { Token } from './bridge';
import { CardsView, OPEN_CARD_COMMAND } from './cards';
import { VirtualDocs } from './docs';
import { Generations } from './generation';
import { askFields } from './prompt';
import type {
	CardPayload, FormPayload, NotificationPayload, PluginStateChange, Severity, StatusPayload, UIField, UIRequest, UIAnswer, UISurface,
} from './protocol';
import { escapeMarkdown, noIcons, percent, safeMarkdown } from './text';

export interface UIHost {
	/** Runs `rx.runAction` with the given `/<plugin>:<action>` name. */
	runAction(name: string): Promise<void>;
	/** Sends rx/ui/submit; resolves to `accepted`. */
	submit(plugin: string, surfaceId: string, generation: number, values: Record<string, unknown>): Promise<boolean>;
	/** Reloads the plugins (Reasonix: Reload Plugins). */
	reload(): Promise<void>;
}

export const RELOAD_BUTTON = l10n.t('Reload Plugins');
export const RELOAD_COMMAND = 'rxBridge.reload';

interface StatusEntry {
	item: vscode.StatusBarItem;
	generation: number;
	plugin: string;
}

/** A plugin's crash, as rx/pluginStateChanged told it. */
interface Crash {
	generation: number;
	reason: string;
	recover: string;
}

export class PluginUI implements vscode.Disposable {
	private readonly status = new Map<string, StatusEntry>();
	readonly cards = new CardsView();
	private readonly crashed = new Map<string, Crash>();
	/** Notifications shown, per plugin (an action that notified needs no toast of its result too). */
	private readonly notified = new Map<string, number>();
	private staleSource = new vscode.CancellationTokenSource();
	private readonly subs: vscode.Disposable[] = [];

	constructor(
		private readonly gens: Generations,
		private readonly docs: VirtualDocs,
		private readonly host: UIHost,
	) {
		this.subs.push(gens.onDidAdvance((g) => this.forgetOlderThan(g)));
		this.subs.push(vscode.commands.registerCommand(OPEN_CARD_COMMAND, (key: unknown) => this.openCard(key)));
	}

	/** rx/ui/request: resolves to the answer, `{cancelled: true}` on dismissal or staleness. */
	async request(req: UIRequest, token?: Token): Promise<UIAnswer> {
		if (this.gens.isStale(req.generation)) return { cancelled: true };
		const fields = normalizeFields(req);
		const combined = new vscode.CancellationTokenSource();
		const subs = [
			this.staleSource.token.onCancellationRequested(() => {
				if (this.gens.isStale(req.generation)) combined.cancel();
			}),
		];
		if (token) subs.push(token.onCancellationRequested(() => combined.cancel()) as vscode.Disposable);
		try {
			const values = await askFields({ plugin: req.plugin, title: req.title, message: req.message }, fields, combined.token);
			if (values === undefined || combined.token.isCancellationRequested) return { cancelled: true };
			return { cancelled: false, values };
		} finally {
			for (const s of subs) s.dispose();
			combined.dispose();
		}
	}

	/** rx/ui/surface. */
	surface(s: UISurface): void {
		if (this.gens.isStale(s.generation)) return;
		switch (s.kind) {
			case 'status':
				this.showStatus(s.plugin, s.surfaceId, s.generation, s.payload);
				return;
			case 'notification':
				this.notify(s.plugin, s.payload);
				return;
			case 'card':
				this.showCard(s.plugin, s.surfaceId, s.generation, s.payload);
				return;
			case 'form':
				void this.showForm(s.plugin, s.surfaceId, s.generation, s.payload);
				return;
		}
	}

	/**
	 * rx/pluginStateChanged: a crashed plugin gets one notification with
	 * Reload Plugins, and its status items say crashed (one is made when
	 * it has none) until a reload replaces its generation.
	 */
	pluginState(ch: PluginStateChange): void {
		if (!ch || typeof ch.plugin !== 'string' || ch.state !== 'crashed' || this.gens.isStale(ch.generation)) return;
		const known = this.crashed.get(ch.plugin);
		if (known && known.generation >= ch.generation) return;
		const crash = { generation: ch.generation, reason: ch.reason ?? '', recover: ch.recover ?? '' };
		this.crashed.set(ch.plugin, crash);
		let marked = false;
		for (const e of this.status.values()) {
			if (e.plugin === ch.plugin) {
				this.markCrashed(e.item, ch.plugin, crash);
				marked = true;
			}
		}
		if (!marked) {
			const item = vscode.window.createStatusBarItem(`rxBridge.status.${ch.plugin}.crashed`, vscode.StatusBarAlignment.Left, 50);
			item.name = `Reasonix: ${ch.plugin}`;
			this.status.set(`${ch.plugin}\u0000\u0000crashed`, { item, generation: ch.generation, plugin: ch.plugin });
			this.markCrashed(item, ch.plugin, crash);
		}
		void vscode.window.showErrorMessage(noIcons(crash.reason
			? l10n.t('Reasonix: the plugin {0} crashed ({1}). Reload the plugins to start it again; the chat goes on without it.', ch.plugin, oneLine(crash.reason))
			: l10n.t('Reasonix: the plugin {0} crashed. Reload the plugins to start it again; the chat goes on without it.', ch.plugin)), RELOAD_BUTTON)
			.then((pick) => (pick === RELOAD_BUTTON ? this.host.reload() : undefined));
	}

	private markCrashed(item: vscode.StatusBarItem, plugin: string, crash: Crash): void {
		item.text = `$(error) ${l10n.t('{0}: crashed', noIcons(plugin))}`;
		item.tooltip = [l10n.t('{0} crashed', plugin), crash.reason, crash.recover, l10n.t('Click to reload the plugins.')].filter(Boolean).join('\n');
		item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
		item.accessibilityInformation = { label: l10n.t('{0} crashed; click to reload the plugins', plugin) };
		item.command = RELOAD_COMMAND;
		item.show();
	}

	/** Forgets everything shown, as after a bridge restart. */
	clear(): void {
		for (const e of this.status.values()) e.item.dispose();
		this.status.clear();
		for (const c of this.cards.list()) this.docs.delete(c.uri.path);
		this.cards.clear();
		this.crashed.clear();
		this.staleSource.cancel();
		this.staleSource.dispose();
		this.staleSource = new vscode.CancellationTokenSource();
	}

	statusItems(): ReadonlyMap<string, StatusEntry> {
		return this.status;
	}

	dispose(): void {
		this.clear();
		this.cards.dispose();
		for (const s of this.subs) s.dispose();
	}

	private forgetOlderThan(g: number): void {
		for (const [k, e] of this.status) {
			if (e.generation < g) {
				e.item.dispose();
				this.status.delete(k);
			}
		}
		for (const c of this.cards.list()) {
			if (c.generation < g) {
				this.docs.delete(c.uri.path);
				this.cards.delete(c.key);
			}
		}
		for (const [plugin, c] of this.crashed) {
			if (c.generation < g) this.crashed.delete(plugin);
		}
		// Open prompts of older generations are withdrawn.
		const old = this.staleSource;
		this.staleSource = new vscode.CancellationTokenSource();
		old.cancel();
		old.dispose();
	}

	private showStatus(plugin: string, surfaceId: string, generation: number, p: StatusPayload): void {
		const key = `${plugin}\u0000${surfaceId}`;
		let entry = this.status.get(key);
		if (!entry) {
			const item = vscode.window.createStatusBarItem(`rxBridge.status.${plugin}.${surfaceId}`, vscode.StatusBarAlignment.Left, 50);
			item.name = `Reasonix: ${plugin}`;
			entry = { item, generation, plugin };
			this.status.set(key, entry);
		}
		entry.generation = generation;
		const { item } = entry;
		const crash = this.crashed.get(plugin);
		if (crash && crash.generation >= generation) {
			this.markCrashed(item, plugin, crash);
			return;
		}
		const pct = percent(p.progress);
		const busy = typeof p.progress === 'number' && p.progress < 1;
		const icon = p.severity === 'error' ? '$(error) ' : p.severity === 'warn' ? '$(warning) ' : busy ? '$(sync~spin) ' : '';
		item.text = `${icon}${noIcons(p.label)}${pct ? ` ${pct}` : ''}`;
		const tip = [`${plugin}: ${p.label}`];
		if (p.detail) tip.push(p.detail);
		if (pct) tip.push(l10n.t('progress {0}', pct));
		item.tooltip = tip.join('\n');
		item.backgroundColor = p.severity === 'error'
			? new vscode.ThemeColor('statusBarItem.errorBackground')
			: p.severity === 'warn' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
		item.accessibilityInformation = { label: `${plugin}: ${p.label}${p.detail ? `, ${p.detail}` : ''}${pct ? `, ${pct}` : ''}` };
		item.show();
	}

	/** How many notifications the plugin has shown so far. */
	notifications(plugin: string): number {
		return this.notified.get(plugin) ?? 0;
	}

	private notify(plugin: string, p: NotificationPayload): void {
		this.notified.set(plugin, this.notifications(plugin) + 1);
		const text = noIcons(`${plugin}: ${p.title}${p.body ? ` — ${p.body}` : ''}`);
		showBySeverity(p.severity, text);
	}

	/** A card goes to the Reasonix view; it opens only when the user asks. */
	private showCard(plugin: string, surfaceId: string, generation: number, p: CardPayload): void {
		const key = `${plugin}\u0000${surfaceId}`;
		const path = `/card/${encodeURIComponent(plugin)}/${encodeURIComponent(surfaceId)}.md`;
		const uri = this.docs.set(path, renderCard(plugin, p));
		this.cards.set({ key, plugin, surfaceId, generation, payload: p, uri });
	}

	/** Opens a card as VS Code's Markdown preview, in the active editor group. */
	private async openCard(key: unknown): Promise<void> {
		const card = typeof key === 'string' ? this.cards.get(key) : undefined;
		if (!card) return;
		try {
			await vscode.commands.executeCommand('markdown.showPreview', card.uri);
		} catch {
			const doc = await vscode.workspace.openTextDocument(card.uri);
			await vscode.window.showTextDocument(doc, { preview: true });
		}
	}

	private async showForm(plugin: string, surfaceId: string, generation: number, p: FormPayload): Promise<void> {
		const fields = p.fields?.length ? p.fields : [{ key: 'value', label: p.message, kind: 'input' as const }];
		const src = new vscode.CancellationTokenSource();
		const sub = this.staleSource.token.onCancellationRequested(() => {
			if (this.gens.isStale(generation)) src.cancel();
		});
		try {
			const values = await askFields({ plugin, title: p.title, message: p.message }, fields, src.token);
			if (values === undefined || this.gens.isStale(generation)) return;
			const accepted = await this.host.submit(plugin, surfaceId, generation, values);
			if (!accepted) {
				void vscode.window.showWarningMessage(noIcons(l10n.t('{0}: the form "{1}" is no longer current; nothing was submitted', plugin, p.title ?? surfaceId)));
			}
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('{0}: submitting "{1}" failed: {2}', plugin, p.title ?? surfaceId, errorText(err))));
		} finally {
			sub.dispose();
			src.dispose();
		}
	}
}

export function showBySeverity(severity: Severity | undefined, text: string): void {
	if (severity === 'error') void vscode.window.showErrorMessage(text);
	else if (severity === 'warn') void vscode.window.showWarningMessage(text);
	else void vscode.window.showInformationMessage(text);
}

/** The fields of a request; a request without fields is one field `value`. */
export function normalizeFields(req: UIRequest): UIField[] {
	if (req.fields && req.fields.length > 0) {
		return req.fields.map((f) => ({ ...f, kind: f.kind ?? req.kind }));
	}
	return [{ key: 'value', label: req.message, kind: req.kind, required: req.kind === 'input' }];
}

export function renderCard(plugin: string, p: CardPayload): string {
	const out: string[] = [];
	out.push(`# ${escapeMarkdown(p.title || plugin)}`, '');
	out.push(`*${l10n.t('From the plugin {0}; read-only.', escapeMarkdown(plugin))}*`, '');
	if (p.markdown) out.push(safeMarkdown(p.markdown), '');
	else if (p.text) out.push(...p.text.split('\n').map((l) => `${escapeMarkdown(l)}  `), '');
	if (p.fields?.length) {
		out.push('| | |', '| --- | --- |');
		for (const f of p.fields) out.push(`| ${escapeMarkdown(f.key)} | ${escapeMarkdown(f.value ?? '')} |`);
		out.push('');
	}
	const pct = percent(p.progress);
	if (pct) out.push(l10n.t('Progress: {0}', pct), '');
	if (p.actions?.length) {
		out.push(l10n.t('Actions (in the Reasonix view under this card, or run with "Reasonix: Run Plugin Action…"):'), '');
		for (const a of p.actions) out.push(`- ${escapeMarkdown(a.label)} — \`/${plugin}:${a.actionId}\``);
		out.push('');
	}
	return out.join('\n');
}

function oneLine(s: string): string {
	const t = s.replace(/\s+/g, ' ').trim();
	return t.length > 200 ? `${t.slice(0, 200)}…` : t;
}

export function errorText(err: unknown): string {
	if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
	return String(err);
}

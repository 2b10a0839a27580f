// Plugin cards (rx/ui/surface kind card) in the Reasonix view of the
// panel: one row per card (its title, the plugin), its fields, progress
// and actions below it. A card takes no editor space unless the user
// opens it (a click: VS Code's Markdown preview of the rendered card);
// a new card shows as a badge on the view.

import * as vscode from 'vscode';
import { l10n } from './l10n';
import type { CardPayload } from './protocol';
import { noIcons, percent } from './text';

export const CARDS_VIEW = 'rxBridge.cards';
export const OPEN_CARD_COMMAND = 'rxBridge.openCard';

export interface Card {
	readonly key: string;
	readonly plugin: string;
	readonly surfaceId: string;
	readonly generation: number;
	readonly payload: CardPayload;
	readonly uri: vscode.Uri;
}

type Node =
	| { kind: 'card'; card: Card }
	| { kind: 'row'; card: Card; label: string; description?: string; action?: string };

export class CardsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
	private readonly cards = new Map<string, Card>();
	private readonly emitter = new vscode.EventEmitter<Node | undefined>();
	readonly onDidChangeTreeData = this.emitter.event;
	private view: vscode.TreeView<Node> | undefined;
	private unseen = 0;

	/** Shows the cards in the view with this id (activate does; tests need not). */
	attach(): vscode.Disposable {
		const view = vscode.window.createTreeView(CARDS_VIEW, { treeDataProvider: this, showCollapseAll: false });
		this.view = view;
		const sub = view.onDidChangeVisibility((e) => {
			if (e.visible) this.markSeen();
		});
		return vscode.Disposable.from(view, sub);
	}

	list(): Card[] {
		return [...this.cards.values()];
	}

	set(card: Card): void {
		const isNew = !this.cards.has(card.key);
		this.cards.set(card.key, card);
		if (isNew && !this.view?.visible) this.unseen++;
		this.changed();
	}

	delete(key: string): void {
		if (this.cards.delete(key)) this.changed();
	}

	clear(): void {
		this.cards.clear();
		this.unseen = 0;
		this.changed();
	}

	getTreeItem(n: Node): vscode.TreeItem {
		if (n.kind === 'card') {
			const p = n.card.payload;
			const item = new vscode.TreeItem(noIcons(p.title || n.card.plugin), vscode.TreeItemCollapsibleState.Expanded);
			item.description = noIcons(n.card.plugin);
			item.tooltip = noIcons(l10n.t('{0}: {1} (click to open)', n.card.plugin, p.title ?? n.card.surfaceId));
			item.iconPath = new vscode.ThemeIcon('note');
			item.command = { command: OPEN_CARD_COMMAND, title: l10n.t('Open Card'), arguments: [n.card.key] };
			item.contextValue = 'card';
			return item;
		}
		const item = new vscode.TreeItem(noIcons(n.label), vscode.TreeItemCollapsibleState.None);
		if (n.description) item.description = noIcons(n.description);
		if (n.action) {
			item.iconPath = new vscode.ThemeIcon('play');
			item.command = { command: 'rxBridge.runAction', title: n.label, arguments: [n.action] };
			item.tooltip = n.action;
		}
		return item;
	}

	getChildren(n?: Node): Node[] {
		if (!n) return this.list().map((card) => ({ kind: 'card', card }));
		if (n.kind !== 'card') return [];
		const { card } = n;
		const p = card.payload;
		const rows: Node[] = [];
		for (const f of p.fields ?? []) rows.push({ kind: 'row', card, label: f.key, description: f.value ?? '' });
		const pct = percent(p.progress);
		if (pct) rows.push({ kind: 'row', card, label: 'progress', description: pct });
		for (const a of p.actions ?? []) rows.push({ kind: 'row', card, label: a.label, action: `/${card.plugin}:${a.actionId}` });
		return rows;
	}

	/** The card with this key, for the open command. */
	get(key: string): Card | undefined {
		return this.cards.get(key);
	}

	dispose(): void {
		this.emitter.dispose();
	}

	private markSeen(): void {
		this.unseen = 0;
		this.updateBadge();
	}

	private changed(): void {
		this.emitter.fire(undefined);
		this.updateBadge();
	}

	private updateBadge(): void {
		if (!this.view) return;
		this.view.badge = this.unseen > 0 ? { value: this.unseen, tooltip: l10n.t('{0} new plugin card(s)', this.unseen) } : undefined;
		this.view.message = this.cards.size === 0 ? l10n.t('No plugin cards. Plugins show cards here when they have something to say.') : undefined;
	}
}

// The Sessions view (in the Reasonix panel): the workspace's stored
// sessions, newest first, each with its title, model and when it last
// changed (rx/session/list, shared with Neovim's :Rx sessions). A click
// resumes one in a new chat; its inline and context menu actions are
// Resume in Chat, Rename… and Delete (ChatSessions.act). It refreshes
// after each chat turn, rename, delete and bridge start.

import * as vscode from 'vscode';
import { l10n } from './l10n';
import type { ChatSessions } from './chat';
import { DELETE, RENAME, RESUME } from './chat';
import type { SessionInfo } from './protocol';
import { ago, noIcons } from './text';
import { errorText } from './ui';

export const SESSIONS_VIEW = 'rxBridge.sessionsView';
export const SessionCommand = {
	resume: 'rxBridge.sessions.resume',
	rename: 'rxBridge.sessions.rename',
	delete: 'rxBridge.sessions.delete',
	refresh: 'rxBridge.sessions.refresh',
} as const;

export class SessionsView implements vscode.TreeDataProvider<SessionInfo>, vscode.Disposable {
	private readonly emitter = new vscode.EventEmitter<SessionInfo | undefined>();
	readonly onDidChangeTreeData = this.emitter.event;
	private readonly subs: vscode.Disposable[] = [];
	private view: vscode.TreeView<SessionInfo> | undefined;

	constructor(private readonly chat: ChatSessions) {
		this.subs.push(
			chat.onDidChangeSessions(() => this.refresh()),
			vscode.commands.registerCommand(SessionCommand.resume, (s: unknown) => this.run(RESUME, s)),
			vscode.commands.registerCommand(SessionCommand.rename, (s: unknown) => this.run(RENAME, s)),
			vscode.commands.registerCommand(SessionCommand.delete, (s: unknown) => this.run(DELETE, s)),
			vscode.commands.registerCommand(SessionCommand.refresh, () => this.refresh()),
		);
	}

	/** Shows the sessions in the view (activate does; tests need not). */
	attach(): vscode.Disposable {
		this.view = vscode.window.createTreeView(SESSIONS_VIEW, { treeDataProvider: this, showCollapseAll: false });
		return this.view;
	}

	refresh(): void {
		this.emitter.fire(undefined);
	}

	async getChildren(element?: SessionInfo): Promise<SessionInfo[]> {
		if (element) return [];
		try {
			const list = await this.chat.storedList();
			this.setMessage(list.length === 0 ? l10n.t('No stored session in this workspace yet: a @reasonix chat starts one.') : undefined);
			return list;
		} catch (err) {
			this.setMessage(noIcons(l10n.t('Cannot list the sessions: {0}', errorText(err))));
			return [];
		}
	}

	getTreeItem(s: SessionInfo): vscode.TreeItem {
		const title = noIcons(s.title || l10n.t('(no prompt yet)'));
		const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.None);
		const when = ago(s.updatedAt);
		item.description = noIcons([s.model, when].filter(Boolean).join(' · '));
		item.tooltip = noIcons([title, s.model, when, s.sessionId].filter(Boolean).join('\n'));
		item.iconPath = new vscode.ThemeIcon('comment-discussion');
		item.contextValue = 'session';
		item.id = s.sessionId;
		item.command = { command: SessionCommand.resume, title: l10n.t('Resume in Chat'), arguments: [s] };
		return item;
	}

	private setMessage(m: string | undefined): void {
		if (this.view) this.view.message = m;
	}

	private async run(what: string, s: unknown): Promise<void> {
		if (!isSession(s)) return;
		await this.chat.act(what, s);
	}

	dispose(): void {
		for (const s of this.subs) s.dispose();
		this.emitter.dispose();
	}
}

function isSession(s: unknown): s is SessionInfo {
	return !!s && typeof s === 'object' && typeof (s as SessionInfo).sessionId === 'string';
}

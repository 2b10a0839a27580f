// Read-only virtual documents under the `rx-bridge:` scheme: plugin cards
// (rendered by VS Code's own Markdown preview) and the plugin list.

import * as vscode from 'vscode';

export const SCHEME = 'rx-bridge';

export class VirtualDocs implements vscode.TextDocumentContentProvider, vscode.Disposable {
	private readonly docs = new Map<string, string>();
	private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
	readonly onDidChange = this.emitter.event;

	uri(path: string): vscode.Uri {
		return vscode.Uri.from({ scheme: SCHEME, path });
	}

	set(path: string, content: string): vscode.Uri {
		const uri = this.uri(path);
		this.docs.set(uri.path, content);
		this.emitter.fire(uri);
		return uri;
	}

	get(path: string): string | undefined {
		return this.docs.get(this.uri(path).path);
	}

	has(path: string): boolean {
		return this.docs.has(this.uri(path).path);
	}

	provideTextDocumentContent(uri: vscode.Uri): string {
		return this.docs.get(uri.path) ?? '_This document is no longer available (the plugins were reloaded or the bridge restarted)._\n';
	}

	delete(path: string): void {
		const uri = this.uri(path);
		if (this.docs.delete(uri.path)) this.emitter.fire(uri);
	}

	dispose(): void {
		this.emitter.dispose();
	}
}

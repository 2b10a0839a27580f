// Wires the extension's parts as activate() does, on a test transport.

import { Bridge, BackoffOptions, Transport } from '../../src/bridge';
import { ChatSessions } from '../../src/chat';
import { Commands } from '../../src/commands';
import { VirtualDocs } from '../../src/docs';
import { ChunkRouter, LanguageModels } from '../../src/lm';
import { BridgeLog } from '../../src/log';
import { Method, PluginStateChange, UIRequest, UISurface } from '../../src/protocol';
import { Rx } from '../../src/rx';
import { EditReview } from '../../src/review';
import { SessionsView } from '../../src/sessionsView';
import { PluginUI } from '../../src/ui';
import * as vscode from './vscode';

export const FAST_BACKOFF: BackoffOptions = { delays: [20, 40, 80], stableMs: 60000, maxFailures: 4 };

export class Memento {
	private readonly data = new Map<string, unknown>();
	keys(): string[] { return [...this.data.keys()]; }
	get<T>(key: string, def?: T): T | undefined { return (this.data.has(key) ? this.data.get(key) : def) as T; }
	async update(key: string, value: unknown): Promise<void> { this.data.set(key, value); }
}

export function harness(transport: Transport, backoff: BackoffOptions = FAST_BACKOFF) {
	const log = new BridgeLog(vscode.window.createOutputChannel('Reasonix Bridge') as never);
	const bridge = new Bridge(transport, backoff, (l) => log.info(l));
	const rx = new Rx(bridge);
	const docs = new VirtualDocs();
	vscode.workspace.registerTextDocumentContentProvider('rx-bridge', docs);
	const commands: Commands = new Commands(rx, docs, log as never, (plugin) => ui.notifications(plugin));
	const ui: PluginUI = new PluginUI(rx.generations, docs, {
		runAction: (name) => commands.runAction(name),
		submit: async (plugin, surfaceId, generation, values) => {
			const r = await rx.request<{ accepted: boolean }>(Method.uiSubmit, { plugin, surfaceId, generation, values });
			return r.accepted !== false;
		},
		reload: () => commands.reload(),
	});
	bridge.handlers.onRequest(Method.uiRequest, (p: UIRequest, token) => ui.request(p, token));
	bridge.handlers.onNotification(Method.uiSurface, (p: UISurface) => ui.surface(p));
	bridge.handlers.onNotification(Method.pluginStateChanged, (p: PluginStateChange) => ui.pluginState(p));
	bridge.onDidStart(() => ui.clear());
	const chunks = new ChunkRouter(rx);
	const models = new LanguageModels(rx, chunks);
	const memento = new Memento();
	const chat = new ChatSessions(rx, memento as never);
	const review = new EditReview(() => chat.reviewSink(), docs);
	const sessionsView = new SessionsView(chat);
	bridge.handlers.onApplyEdit((params, next) => review.handle(params, next));
	commands.register();
	return { log, bridge, rx, docs, commands, ui, chunks, models, chat, memento, review, sessionsView };
}

/** A ChatResponseStream that records what was streamed. */
export class RecordingStream {
	readonly parts: { kind: 'markdown' | 'progress' | 'button' | 'reference'; value: string; icons?: boolean; command?: vscode.Uri | { command: string; title: string; arguments?: unknown[] } }[] = [];
	/** Resolves on each button streamed. */
	onButton: ((c: { command: string; title: string; arguments?: unknown[] }) => void) | undefined;
	button(c: { command: string; title: string; arguments?: unknown[] }): void {
		this.parts.push({ kind: 'button', value: c.title, command: c });
		this.onButton?.(c);
	}
	reference(uri: vscode.Uri): void { this.parts.push({ kind: 'reference', value: uri.toString() }); }
	buttons(): { command: string; title: string; arguments?: unknown[] }[] {
		return this.parts.filter((p) => p.kind === 'button').map((p) => p.command as { command: string; title: string; arguments?: unknown[] });
	}
	markdown(v: string | vscode.MarkdownString): void {
		if (typeof v === 'string') this.parts.push({ kind: 'markdown', value: v });
		else this.parts.push({ kind: 'markdown', value: v.value, icons: v.supportThemeIcons });
	}
	progress(v: string): void { this.parts.push({ kind: 'progress', value: v }); }
	text(): string { return this.parts.filter((p) => p.kind === 'markdown').map((p) => p.value).join(''); }
}

export function chatRequest(prompt: string, extra: Record<string, unknown> = {}) {
	return { prompt, command: undefined, references: [], toolReferences: [], model: undefined, ...extra } as never;
}

export async function eventually(cond: () => boolean, what: string, ms = 10000): Promise<void> {
	const end = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 10));
	}
}

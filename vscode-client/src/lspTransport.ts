// The production transport: vscode-languageclient running `rx-bridge serve`
// over stdio. Its own restart logic is off; the Bridge supervisor restarts.

import * as vscode from 'vscode';
import {
	CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, ServerOptions, SetTraceNotification, State, StaticFeature, Trace,
} from 'vscode-languageclient/node';
import { resolveBinary } from './binary';
import { Connection, FatalStartError, HandlerTable, Token, Transport } from './bridge';
import type { BridgeLog } from './log';
import { rxClientCapabilities, ServerInfo } from './protocol';

export const CLIENT_ID = 'rxBridge';
export const CONFIG = 'rxBridge';

/** Adds `experimental.rxBridge` to the initialize params. */
class RxCapabilities implements StaticFeature {
	fillClientCapabilities(capabilities: { experimental?: Record<string, unknown> }): void {
		capabilities.experimental = { ...(capabilities.experimental ?? {}), rxBridge: rxClientCapabilities() };
	}
	initialize(): void {}
	getState() {
		return { kind: 'static' as const };
	}
	clear(): void {}
	dispose(): void {}
}

/** The UI language the bridge is told in initialize's `locale`: rxBridge.language, else VS Code's. */
export function uiLanguage(): string {
	const set = vscode.workspace.getConfiguration(CONFIG).get<string>('language', 'auto');
	return set && set !== 'auto' ? set : vscode.env.language;
}

/** initialize's `locale` is uiLanguage() (the bridge picks its messages' language from it). */
class RxLanguageClient extends LanguageClient {
	protected getLocale(): string {
		return uiLanguage();
	}
}

export class LanguageClientTransport implements Transport {
	/**
	 * bundledDir: the extension's bin folder (see resolveBinary); extraEnv:
	 * variables added to the bridge's environment (the API keys from
	 * SecretStorage; never logged).
	 */
	constructor(
		private readonly log: BridgeLog,
		private readonly bundledDir?: string,
		private readonly extraEnv: () => Promise<Record<string, string>> = async () => ({}),
	) {}

	async start(handlers: HandlerTable): Promise<Connection> {
		const cfg = vscode.workspace.getConfiguration(CONFIG);
		const setting = cfg.get<string>('path', '');
		const bin = await resolveBinary(setting, process.env, process.platform, this.bundledDir);
		if (!bin.path) {
			throw new FatalStartError(`rx-bridge was not found (looked for ${bin.searched})`, 'not_found');
		}
		const args = ['serve'];
		const home = cfg.get<string>('home', '').trim();
		if (home) args.push('--home', home);
		const serverOptions: ServerOptions = { command: bin.path, args, options: { env: { ...process.env, ...(await this.extraEnv()) } } };
		let closedResolve!: () => void;
		const closed = new Promise<void>((r) => { closedResolve = r; });
		const clientOptions: LanguageClientOptions = {
			documentSelector: [{ scheme: 'file' }],
			outputChannel: this.log,
			traceOutputChannel: this.log,
			revealOutputChannelOn: 4, // RevealOutputChannelOn.Never
			progressOnInitialization: false,
			errorHandler: {
				error: () => ({ action: ErrorAction.Continue, handled: true }),
				closed: () => ({ action: CloseAction.DoNotRestart, handled: true }),
			},
			initializationFailedHandler: () => false,
			middleware: {
				workspace: {
					// Reviewed agent edits are asked in the chat (review.ts).
					handleApplyEdit: (params, next) => {
						// The client's own apply ignores the token.
						const apply = async (p: typeof params) => (await next(p, new vscode.CancellationTokenSource().token)) as { applied: boolean; failureReason?: string };
						return handlers.applyEdit ? handlers.applyEdit(params, apply) : apply(params);
					},
				},
			},
		};
		// The trace the initialize request carries follows the setting.
		let trace = traceSetting(cfg.get<string>('trace.server', 'off'));
		this.log.setTracing(trace !== Trace.Off);
		const client = new RxLanguageClient(CLIENT_ID, 'Reasonix Bridge', serverOptions, clientOptions);
		ownTrace(client);
		client.registerFeature(new RxCapabilities());
		for (const [method, handler] of handlers.requests) {
			client.onRequest(method, (params, token) => handler(params, token));
		}
		for (const method of handlers.notifications.keys()) {
			client.onNotification(method, (params) => handlers.dispatchNotification(method, params));
		}
		let started = false;
		client.onDidChangeState((e) => {
			if (started && e.newState === State.Stopped) closedResolve();
		});
		this.log.info(`starting ${bin.path} ${args.join(' ')}`);
		try {
			await client.start();
		} catch (err) {
			await client.dispose(2000).catch(() => {});
			throw err;
		}
		started = true;
		if (client.state === State.Stopped) closedResolve();
		await client.setTrace(trace).catch(() => {});
		// $/setTrace only when rxBridge.trace.server really changed.
		const traceSub = vscode.workspace.onDidChangeConfiguration((e) => {
			if (!e.affectsConfiguration(`${CONFIG}.trace.server`)) return;
			const next = traceSetting(vscode.workspace.getConfiguration(CONFIG).get<string>('trace.server', 'off'));
			if (next === trace) return;
			trace = next;
			this.log.setTracing(next !== Trace.Off);
			void client.setTrace(next)
				.then(() => client.sendNotification(SetTraceNotification.type, { value: Trace.toString(next) }))
				.catch((err) => this.log.warn(`setting the protocol trace: ${String(err)}`));
		});
		void closed.then(() => traceSub.dispose());
		const info: ServerInfo = client.initializeResult?.capabilities?.experimental?.rxBridge ?? {};
		this.log.info(`rx-bridge ${info.bridgeVersion ?? '?'} (protocol ${info.version ?? '?'}), home ${info.home ?? '?'}, generation ${info.generation ?? 0}`);
		let stopping: Promise<void> | undefined;
		return {
			info,
			closed,
			// An undefined token must not be passed on: the rest parameters
			// would turn `params` into a by-position array.
			sendRequest: <R>(method: string, params: unknown, token?: Token) => (token
				? client.sendRequest<R>(method, params, token as vscode.CancellationToken)
				: client.sendRequest<R>(method, params)),
			sendNotification: (method: string, params: unknown) => client.sendNotification(method, params),
			stop: () => {
				stopping ??= client.dispose(2000).catch((err) => {
					this.log.warn(`stopping rx-bridge: ${String(err)}`);
				}).finally(() => closedResolve());
				return stopping;
			},
		};
	}
}

/** rxBridge.trace.server; anything but "messages" or "verbose" is off. */
export function traceSetting(s: string | undefined): Trace {
	switch (s) {
		case 'messages': return Trace.Messages;
		case 'verbose': return Trace.Verbose;
		default: return Trace.Off;
	}
}

/**
 * vscode-languageclient re-reads its trace on every settings change of any
 * extension, and on every log level change, and sends $/setTrace each time
 * (VS Code reports several changes while a window loads). The trace is
 * ours: those two hooks of the client (they do nothing else) are turned
 * off, and the listener in start sends $/setTrace on a real change only.
 */
function ownTrace(client: LanguageClient): void {
	const c = client as unknown as Record<string, unknown>;
	for (const hook of ['hookConfigurationChanged', 'hookLogLevelChanged']) {
		if (typeof c[hook] !== 'function') throw new Error(`vscode-languageclient has no ${hook}: the trace setting would not be kept`);
		c[hook] = () => {};
	}
}

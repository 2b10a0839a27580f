// Test transports for the Bridge supervisor: a plain JSON-RPC connection
// (vscode-jsonrpc, what vscode-languageclient runs on) to either a real
// `rx-bridge serve` child or an in-process scripted fake server. The
// initialize exchange sends the client capabilities of EDITOR_PROTOCOL.md §1.1.

import { ChildProcess, spawn } from 'node:child_process';
import { PassThrough, Readable, Writable } from 'node:stream';
import {
	CancellationToken, createMessageConnection, ResponseError, MessageConnection, StreamMessageReader, StreamMessageWriter, Trace,
} from 'vscode-jsonrpc/node';
import type { Connection, HandlerTable, Token, Transport } from '../../src/bridge';
import { rxClientCapabilities, ServerInfo } from '../../src/protocol';

export function clientCapabilities() {
	return {
		window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: false } } },
		workspace: { applyEdit: true, executeCommand: { dynamicRegistration: true } },
		experimental: { rxBridge: rxClientCapabilities() },
	};
}

export interface IO {
	readable: Readable;
	writable: Writable;
	/** Settles when the server side is gone. */
	exited: Promise<unknown>;
	kill(): void;
}

export interface TraceLine {
	message: string;
	verbose?: string;
}

export class StreamTransport implements Transport {
	/** Everything the client got that the tests may look at. */
	readonly logTraces: TraceLine[] = [];
	readonly logMessages: { type: number; message: string }[] = [];
	readonly registrations: unknown[] = [];
	readonly protocolTrace: string[] = [];
	/** The edits applied (workspace/applyEdit past the extension's review). */
	readonly applied: { label?: string; edit: any }[] = [];
	/** What applying one answers. */
	applyResult: { applied: boolean; failureReason?: string } = { applied: false, failureReason: 'test client' };
	connections: MessageConnection[] = [];
	starts = 0;

	constructor(private readonly open: () => Promise<IO> | IO, private readonly workspace?: string) {}

	async start(handlers: HandlerTable): Promise<Connection> {
		this.starts++;
		const io = await this.open();
		const conn = createMessageConnection(new StreamMessageReader(io.readable), new StreamMessageWriter(io.writable));
		this.connections.push(conn);
		for (const [method, handler] of handlers.requests) {
			conn.onRequest(method, (params: unknown, token: CancellationToken) => handler(params, token as Token));
		}
		for (const method of handlers.notifications.keys()) {
			conn.onNotification(method, (params: unknown) => handlers.dispatchNotification(method, params));
		}
		// What vscode-languageclient answers itself in the extension.
		conn.onRequest('window/workDoneProgress/create', () => null);
		conn.onRequest('client/registerCapability', (p: unknown) => { this.registrations.push(p); return null; });
		conn.onRequest('client/unregisterCapability', () => null);
		conn.onRequest('window/showMessageRequest', () => null);
		// An edit the extension lets through is recorded here (applied).
		conn.onRequest('workspace/applyEdit', (p: { label?: string; edit: unknown }) => {
			const next = async (q: { label?: string; edit: unknown }) => {
				this.applied.push(q);
				return this.applyResult;
			};
			return handlers.applyEdit ? handlers.applyEdit(p, next) : next(p);
		});
		conn.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => null));
		conn.onNotification('$/logTrace', (p: TraceLine) => { this.logTraces.push(p); });
		conn.onNotification('window/logMessage', (p: { type: number; message: string }) => { this.logMessages.push(p); });
		conn.onNotification('window/showMessage', (p: { type: number; message: string }) => { this.logMessages.push(p); });
		conn.onNotification('$/progress', () => {});
		conn.onNotification('telemetry/event', () => {});
		let closedResolve!: () => void;
		const closed = new Promise<void>((r) => { closedResolve = r; });
		conn.onClose(() => closedResolve());
		void io.exited.then(() => closedResolve());
		await conn.trace(Trace.Verbose, { log: (m: string, d?: string) => this.protocolTrace.push(d ? `${m}\n${d}` : m) });
		conn.listen();
		const init = await withTimeout(conn.sendRequest('initialize', {
			processId: process.pid,
			clientInfo: { name: 'rx-bridge vscode-client tests', version: '0' },
			rootUri: this.workspace ? `file://${this.workspace}` : null,
			workspaceFolders: this.workspace ? [{ uri: `file://${this.workspace}`, name: 'ws' }] : null,
			capabilities: clientCapabilities(),
			trace: 'verbose',
		}), 15000, 'initialize') as { capabilities?: { experimental?: { rxBridge?: ServerInfo } } };
		await conn.sendNotification('initialized', {});
		await conn.sendNotification('$/setTrace', { value: 'verbose' });
		const info = init.capabilities?.experimental?.rxBridge ?? {};
		let stopping: Promise<void> | undefined;
		return {
			info,
			closed,
			sendRequest: <R>(method: string, params: unknown, token?: Token) => (token
				? conn.sendRequest(method, params, token as CancellationToken)
				: conn.sendRequest(method, params)) as Promise<R>,
			sendNotification: (method: string, params: unknown) => conn.sendNotification(method, params),
			stop: () => {
				stopping ??= (async () => {
					try {
						await withTimeout(conn.sendRequest('shutdown'), 3000, 'shutdown');
						await conn.sendNotification('exit');
					} catch {
						// already gone
					}
					const gone = await Promise.race([io.exited.then(() => true), sleep(3000).then(() => false)]);
					if (!gone) io.kill();
					conn.dispose();
					closedResolve();
				})();
				return stopping;
			},
		};
	}
}

/** A real child process, e.g. `rx-bridge serve`. */
export function childIO(command: string, args: string[], env: NodeJS.ProcessEnv, stderr: string[]): () => IO {
	return () => {
		const child: ChildProcess = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
		child.stderr!.setEncoding('utf8');
		child.stderr!.on('data', (d: string) => stderr.push(d));
		const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
			child.on('exit', (code, signal) => resolve({ code, signal }));
			child.on('error', (err) => { stderr.push(String(err)); resolve({ code: -1, signal: null }); });
		});
		return {
			readable: child.stdout!,
			writable: child.stdin!,
			exited,
			kill: () => { child.kill('SIGKILL'); },
		};
	};
}

/** The server side of an in-process pipe; scripted by the test. */
export class FakeServer {
	conn!: MessageConnection;
	initializeParams: any;
	info: ServerInfo = { version: 1, bridgeVersion: 'fake', protocolId: 'reasonix.extension.v1', protocolMajor: 1, home: '/fake', generation: 0, plugins: [], models: [], hookPoints: [] };
	readonly received: { method: string; params: any }[] = [];
	private kill: (() => void) | undefined;
	private readonly setups: ((c: MessageConnection) => void)[] = [];

	/** Runs `f` on this connection and every later one (after a restart). */
	setup(f: (c: MessageConnection) => void): void {
		this.setups.push(f);
		if (this.conn) f(this.conn);
	}

	/** The IO factory for StreamTransport. */
	readonly io = (): IO => {
		const toServer = new PassThrough();
		const toClient = new PassThrough();
		const conn = createMessageConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
		this.conn = conn;
		let exit!: () => void;
		const exited = new Promise<void>((r) => { exit = r; });
		conn.onRequest('initialize', (p: unknown) => {
			this.initializeParams = p;
			return { capabilities: { textDocumentSync: { openClose: true, change: 2 }, executeCommandProvider: { commands: ['rx.runAction', 'rx.reload'] }, experimental: { rxBridge: this.info } }, serverInfo: { name: 'rx-bridge', version: 'fake' } };
		});
		conn.onRequest('shutdown', () => null);
		// The bridge takes named parameters only; so does the fake.
		const onRequest = conn.onRequest.bind(conn) as (m: string, h: (...a: unknown[]) => unknown) => unknown;
		(conn as { onRequest: unknown }).onRequest = (m: string, handler: (...a: unknown[]) => unknown) => onRequest(m, (...args: unknown[]) => {
			const last = args[args.length - 1];
			const params = args.slice(0, -1);
			if (params.length > 1) throw new ResponseError(-32602, `${m}: by-position params ${JSON.stringify(params)}`);
			return handler(params[0], last);
		});
		conn.onNotification('exit', () => { this.received.push({ method: 'exit', params: undefined }); conn.dispose(); toClient.end(); exit(); });
		conn.onNotification((method: string, params: unknown) => { this.received.push({ method, params }); });
		conn.onRequest('rx/models', () => ({ models: [{ ref: 'builtin/default' }], default: 'builtin/default' }));
		for (const f of this.setups) f(conn);
		conn.listen();
		this.kill = () => { conn.dispose(); toClient.end(); toServer.end(); exit(); };
		return { readable: toClient, writable: toServer, exited, kill: () => this.kill?.() };
	};

	/** Simulates a crash of the server process. */
	crash(): void {
		this.kill?.();
	}
}

export function sleep(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
	let t: ReturnType<typeof setTimeout> | undefined;
	try {
		return await Promise.race([p, new Promise<T>((_, reject) => { t = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms); })]);
	} finally {
		if (t) clearTimeout(t);
	}
}

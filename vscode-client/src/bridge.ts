// The bridge supervisor: owns the one `rx-bridge serve` process at a time,
// restarts it on request, and after a crash with exponential backoff.
// It knows nothing of VS Code's UI; the transport (LanguageClient in the
// extension, a plain JSON-RPC connection in tests) does the process work.

import type { ServerInfo } from './protocol';

export interface Token {
	readonly isCancellationRequested: boolean;
	onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

export type RequestHandler = (params: any, token: Token) => unknown;
export type NotificationHandler = (params: any) => void;

export interface Disposable {
	dispose(): void;
}

/** workspace/applyEdit's params and result, as the bridge sends and reads them. */
export type ApplyEditHandler = (params: any, next: (params: any) => Promise<{ applied: boolean; failureReason?: string }>) => Promise<{ applied: boolean; failureReason?: string }>;

/** What every connection gets installed before it starts. */
export class HandlerTable {
	readonly requests = new Map<string, RequestHandler>();
	readonly notifications = new Map<string, NotificationHandler[]>();
	/** Sees each workspace/applyEdit first; `next` applies an edit as the client would. */
	applyEdit: ApplyEditHandler | undefined;

	onApplyEdit(handler: ApplyEditHandler): Disposable {
		if (this.applyEdit) throw new Error('a workspace/applyEdit handler is already installed');
		this.applyEdit = handler;
		return { dispose: () => { if (this.applyEdit === handler) this.applyEdit = undefined; } };
	}

	onRequest(method: string, handler: RequestHandler): Disposable {
		if (this.requests.has(method)) {
			throw new Error(`a handler for ${method} is already installed`);
		}
		this.requests.set(method, handler);
		return { dispose: () => { this.requests.delete(method); } };
	}

	onNotification(method: string, handler: NotificationHandler): Disposable {
		const list = this.notifications.get(method) ?? [];
		list.push(handler);
		this.notifications.set(method, list);
		return {
			dispose: () => {
				const i = list.indexOf(handler);
				if (i >= 0) list.splice(i, 1);
			},
		};
	}

	dispatchNotification(method: string, params: unknown): void {
		for (const h of [...(this.notifications.get(method) ?? [])]) {
			try {
				h(params);
			} catch (err) {
				console.error(`rx-bridge: ${method} handler failed:`, err);
			}
		}
	}
}

/** One running `rx-bridge serve`, initialized. */
export interface Connection {
	readonly info: ServerInfo;
	sendRequest<R>(method: string, params: unknown, token?: Token): Promise<R>;
	sendNotification(method: string, params: unknown): Promise<void>;
	/** Settles when the server is gone, whatever the reason. */
	readonly closed: Promise<void>;
	/** LSP shutdown + exit, bounded; idempotent. */
	stop(): Promise<void>;
}

export interface Transport {
	start(handlers: HandlerTable): Promise<Connection>;
}

/** A start failure that retrying cannot fix (the binary is missing, say). */
export class FatalStartError extends Error {
	constructor(message: string, readonly reason: 'not_found' | 'config') {
		super(message);
		this.name = 'FatalStartError';
	}
}

export interface BackoffOptions {
	/** Delays between consecutive crash restarts, in ms; the last repeats. */
	delays: number[];
	/** A connection that lived this long resets the backoff. */
	stableMs: number;
	/** Consecutive failed starts or early crashes before giving up. */
	maxFailures: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
	delays: [1000, 2000, 4000, 8000, 16000, 30000],
	stableMs: 60000,
	maxFailures: 6,
};

export type BridgeState = 'stopped' | 'starting' | 'running' | 'backoff' | 'failed';

type Listener<T> = (value: T) => void;

export class Bridge {
	readonly handlers = new HandlerTable();
	private conn: Connection | undefined;
	private stateValue: BridgeState = 'stopped';
	private failures = 0;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private generationOfStart = 0;
	private waiters: { resolve(c: Connection): void; reject(e: Error): void }[] = [];
	private lastError: Error | undefined;
	private readonly startListeners: Listener<Connection>[] = [];
	private readonly stateListeners: Listener<BridgeState>[] = [];
	private readonly failListeners: Listener<Error>[] = [];

	constructor(
		private readonly transport: Transport,
		private readonly backoff: BackoffOptions = DEFAULT_BACKOFF,
		private readonly log: (line: string) => void = () => {},
	) {}

	get state(): BridgeState {
		return this.stateValue;
	}

	get connection(): Connection | undefined {
		return this.conn;
	}

	/** Why the bridge last stopped or failed to start (cleared once it runs). */
	get error(): Error | undefined {
		return this.lastError;
	}

	onDidStart(l: Listener<Connection>): Disposable {
		return addListener(this.startListeners, l);
	}

	onDidChangeState(l: Listener<BridgeState>): Disposable {
		return addListener(this.stateListeners, l);
	}

	/** Fired when the bridge gives up: a fatal start error or too many crashes. */
	onDidFail(l: Listener<Error>): Disposable {
		return addListener(this.failListeners, l);
	}

	/** Starts the bridge unless it is running or starting. */
	start(): void {
		if (this.stateValue === 'running' || this.stateValue === 'starting') return;
		this.clearTimer();
		this.failures = 0;
		void this.attempt(++this.generationOfStart);
	}

	/** Stops whatever runs, then starts afresh with the backoff reset. */
	async restart(): Promise<Connection> {
		await this.stop();
		this.start();
		return this.ready();
	}

	async stop(): Promise<void> {
		this.generationOfStart++;
		this.clearTimer();
		const c = this.conn;
		this.conn = undefined;
		this.setState('stopped');
		if (c) await c.stop();
	}

	/** The running connection, waiting for a start in progress. */
	ready(): Promise<Connection> {
		if (this.conn && this.stateValue === 'running') return Promise.resolve(this.conn);
		if (this.stateValue === 'failed' || this.stateValue === 'stopped') {
			const why = this.lastError ? `: ${this.lastError.message}` : '';
			return Promise.reject(new Error(`rx-bridge is not running${why}`));
		}
		return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
	}

	private async attempt(gen: number): Promise<void> {
		this.setState('starting');
		let conn: Connection;
		const startedAt = Date.now();
		try {
			conn = await this.transport.start(this.handlers);
		} catch (err) {
			if (gen !== this.generationOfStart) return;
			const e = err instanceof Error ? err : new Error(String(err));
			this.lastError = e;
			this.log(`rx-bridge failed to start: ${e.message}`);
			if (e instanceof FatalStartError) {
				this.fail(e);
				return;
			}
			this.scheduleRestart(gen);
			return;
		}
		if (gen !== this.generationOfStart) {
			await conn.stop();
			return;
		}
		this.conn = conn;
		this.lastError = undefined;
		this.setState('running');
		for (const w of this.waiters.splice(0)) w.resolve(conn);
		for (const l of [...this.startListeners]) {
			try {
				l(conn);
			} catch (err) {
				this.log(`rx-bridge start listener failed: ${String(err)}`);
			}
		}
		void conn.closed.then(() => {
			if (gen !== this.generationOfStart || this.conn !== conn) return;
			this.conn = undefined;
			void conn.stop();
			const lived = Date.now() - startedAt;
			if (lived >= this.backoff.stableMs) this.failures = 0;
			this.lastError = new Error('rx-bridge exited unexpectedly');
			this.log(`rx-bridge exited unexpectedly after ${lived} ms`);
			this.scheduleRestart(gen);
		});
	}

	private scheduleRestart(gen: number): void {
		this.failures++;
		if (this.failures >= this.backoff.maxFailures) {
			this.fail(new Error(`rx-bridge stopped ${this.failures} times in a row (${this.lastError?.message ?? 'unknown'}); not restarting`));
			return;
		}
		const d = this.backoff.delays;
		const delay = d[Math.min(this.failures - 1, d.length - 1)] ?? 1000;
		this.log(`restarting rx-bridge in ${delay} ms (attempt ${this.failures + 1})`);
		this.setState('backoff');
		this.timer = setTimeout(() => {
			this.timer = undefined;
			if (gen === this.generationOfStart) void this.attempt(gen);
		}, delay);
	}

	private fail(e: Error): void {
		this.lastError = e;
		this.setState('failed');
		for (const w of this.waiters.splice(0)) w.reject(e);
		for (const l of [...this.failListeners]) l(e);
	}

	private clearTimer(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
	}

	private setState(s: BridgeState): void {
		if (s === this.stateValue) return;
		this.stateValue = s;
		if (s === 'stopped') {
			for (const w of this.waiters.splice(0)) w.reject(new Error('rx-bridge was stopped'));
		}
		for (const l of [...this.stateListeners]) l(s);
	}
}

function addListener<T>(list: Listener<T>[], l: Listener<T>): Disposable {
	list.push(l);
	return {
		dispose: () => {
			const i = list.indexOf(l);
			if (i >= 0) list.splice(i, 1);
		},
	};
}

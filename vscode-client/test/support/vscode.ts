// A fake `vscode` module: the slice of the API the extension uses, recording
// every call in `fake.events` and asking `fake.answer` for whatever a person
// would answer (a quick-pick choice, a typed value, a button).

type Listener<T> = (e: T) => unknown;

export class Disposable {
	static from(...items: { dispose(): unknown }[]): Disposable {
		return new Disposable(() => { for (const i of items) i.dispose(); });
	}
	constructor(private readonly fn: () => unknown) {}
	dispose(): void { this.fn(); }
}

export class EventEmitter<T> {
	private listeners: Listener<T>[] = [];
	readonly event = (l: Listener<T>): Disposable => {
		this.listeners.push(l);
		return new Disposable(() => { this.listeners = this.listeners.filter((x) => x !== l); });
	};
	fire(e: T): void { for (const l of [...this.listeners]) l(e); }
	dispose(): void { this.listeners = []; }
}

export class CancellationError extends Error {
	constructor() { super('Canceled'); this.name = 'Canceled'; }
}

export interface CancellationToken {
	isCancellationRequested: boolean;
	onCancellationRequested: (l: Listener<void>) => Disposable;
}

export class CancellationTokenSource {
	private readonly emitter = new EventEmitter<void>();
	private cancelled = false;
	readonly token: CancellationToken;
	constructor() {
		const self = this;
		this.token = {
			get isCancellationRequested() { return self.cancelled; },
			onCancellationRequested: (l) => {
				if (self.cancelled) { l(); return new Disposable(() => {}); }
				return self.emitter.event(l);
			},
		};
	}
	cancel(): void {
		if (this.cancelled) return;
		this.cancelled = true;
		this.emitter.fire();
	}
	dispose(): void { this.emitter.dispose(); }
}

export const CancellationTokenNone: CancellationToken = new CancellationTokenSource().token;

export class Uri {
	private constructor(readonly scheme: string, readonly path: string, readonly query = '', readonly fragment = '') {}
	static from(c: { scheme: string; path?: string; query?: string; fragment?: string }): Uri {
		return new Uri(c.scheme, c.path ?? '', c.query ?? '', c.fragment ?? '');
	}
	static file(p: string): Uri { return new Uri('file', p); }
	static parse(s: string): Uri {
		const i = s.indexOf(':');
		let rest = s.slice(i + 1);
		// scheme://authority/path: the (empty) authority is no part of the path.
		if (rest.startsWith('//')) rest = rest.slice(rest.indexOf('/', 2) < 0 ? rest.length : rest.indexOf('/', 2));
		return new Uri(s.slice(0, i), rest);
	}
	static joinPath(base: Uri, ...parts: string[]): Uri {
		return new Uri(base.scheme, [base.path, ...parts].join('/').replace(/\/+/g, '/'));
	}
	get fsPath(): string { return this.path; }
	toString(): string { return `${this.scheme}:${this.path}`; }
}

export enum StatusBarAlignment { Left = 1, Right = 2 }
export enum ViewColumn { Active = -1, Beside = -2, One = 1 }
export enum ProgressLocation { SourceControl = 1, Window = 10, Notification = 15 }
export enum LogLevel { Off = 0, Trace = 1, Debug = 2, Info = 3, Warning = 4, Error = 5 }
export enum LanguageModelChatMessageRole { User = 1, Assistant = 2 }
export enum LanguageModelChatToolMode { Auto = 1, Required = 2 }

export class Position { constructor(readonly line: number, readonly character: number) {} }
export class Range { constructor(readonly start: Position, readonly end: Position) {} }
export class Location { constructor(readonly uri: Uri, readonly range: Range) {} }

export enum TreeItemCollapsibleState { None = 0, Collapsed = 1, Expanded = 2 }
export class TreeItem {
	description?: string;
	tooltip?: unknown;
	iconPath?: unknown;
	command?: { command: string; title: string; arguments?: unknown[] };
	contextValue?: string;
	constructor(public label: string, public collapsibleState = TreeItemCollapsibleState.None) {}
}

export class ThemeColor { constructor(readonly id: string) {} }
export class ThemeIcon { constructor(readonly id: string) {} }

export class MarkdownString {
	isTrusted = false;
	supportHtml = false;
	constructor(public value = '', public supportThemeIcons = false) {}
}

export class LanguageModelTextPart { constructor(public value: string) {} }
export class LanguageModelToolCallPart { constructor(public callId: string, public name: string, public input: object) {} }
export class LanguageModelToolResultPart { constructor(public callId: string, public content: unknown[]) {} }

export class LanguageModelChatMessage {
	static User(content: string | unknown[], name?: string) {
		return new LanguageModelChatMessage(LanguageModelChatMessageRole.User, content, name);
	}
	static Assistant(content: string | unknown[], name?: string) {
		return new LanguageModelChatMessage(LanguageModelChatMessageRole.Assistant, content, name);
	}
	content: unknown[];
	constructor(public role: LanguageModelChatMessageRole, content: string | unknown[], public name?: string) {
		this.content = typeof content === 'string' ? [new LanguageModelTextPart(content)] : content;
	}
}

/** VS Code's ChatReferenceBinaryData: what a pasted or attached image is. */
export class ChatReferenceBinaryData {
	constructor(readonly mimeType: string, readonly data: () => Thenable<Uint8Array>, readonly reference?: Uri) {}
}

/** VS Code's McpStdioServerDefinition. */
export class McpStdioServerDefinition {
	cwd?: Uri;
	constructor(readonly label: string, public command: string, public args: string[] = [], public env: Record<string, string | number | null> = {}, public version?: string) {}
}

export class ChatRequestTurn {
	constructor(readonly prompt: string, readonly command: string | undefined, readonly references: unknown[], readonly participant: string) {}
}
export class ChatResponseTurn {
	constructor(readonly response: unknown[], readonly result: { metadata?: unknown }, readonly participant: string, readonly command?: string) {}
}

const backButton = { iconPath: new ThemeIcon('arrow-left'), tooltip: 'Back' };
export const QuickInputButtons = { Back: backButton };

// ---- the recording and answering part ----

export type FakeEvent =
	| { type: 'quickPick'; items: any[]; options: any }
	| { type: 'inputBox'; options: any }
	| { type: 'message'; severity: 'info' | 'warn' | 'error'; message: string; options?: any; buttons: string[] }
	| { type: 'createQuickPick'; input: FakeQuickPick }
	| { type: 'createInputBox'; input: FakeInputBox }
	| { type: 'command'; command: string; args: unknown[] }
	| { type: 'openTextDocument'; uri: Uri }
	| { type: 'showTextDocument'; uri: Uri }
	| { type: 'statusBarItem'; item: FakeStatusBarItem }
	| { type: 'progress'; title: string }
	| { type: 'openDialog'; options: any };

/** Returns the answer to an event that needs one (undefined = dismissed). */
export type Answerer = (e: FakeEvent) => unknown;

export const fake = {
	events: [] as FakeEvent[],
	answer: (() => undefined) as Answerer,
	waiters: [] as { pred: (e: FakeEvent) => boolean; resolve: (e: FakeEvent) => void }[],
	config: {} as Record<string, unknown>,
	commands: new Map<string, (...args: unknown[]) => unknown>(),
	docs: new Map<string, { provideTextDocumentContent(uri: Uri): string }>(),
	statusItems: [] as FakeStatusBarItem[],
	output: [] as FakeOutputChannel[],
	participants: [] as { id: string; handler: unknown; iconPath?: unknown; dispose(): void }[],
	lmProviders: new Map<string, unknown>(),
	/** MCP server definition providers registered, by id. */
	mcpProviders: new Map<string, any>(),
	/** Files workspace.fs and openTextDocument read, by fsPath. */
	files: new Map<string, string>(),
	treeViews: [] as { id: string; badge?: unknown; message?: string; visible: boolean; provider?: any }[],
	reset(): void {
		this.files.clear();
		workspace.workspaceFolders = undefined;
		env.remoteName = undefined;
		this.treeViews = [];
		this.events = [];
		this.answer = () => undefined;
		this.waiters = [];
		this.config = {};
		this.commands.clear();
		this.docs.clear();
		this.statusItems = [];
		this.output = [];
		this.participants = [];
		this.lmProviders.clear();
		this.mcpProviders.clear();
	},
	/** Resolves with the first event (already seen or future) that matches. */
	waitFor(pred: (e: FakeEvent) => boolean, timeoutMs = 10000): Promise<FakeEvent> {
		const seen = this.events.find(pred);
		if (seen) return Promise.resolve(seen);
		return new Promise((resolve, reject) => {
			const t = setTimeout(() => reject(new Error(`timed out waiting for a fake vscode event; saw: ${this.events.map(describe).join(', ')}`)), timeoutMs);
			this.waiters.push({ pred, resolve: (e) => { clearTimeout(t); resolve(e); } });
		});
	},
	/**
	 * A settings change as VS Code reports it: values set (undefined removes
	 * one), then onDidChangeConfiguration for the keys given. With no keys
	 * it is a change of some other extension's setting (VS Code sends
	 * several of those while a window loads).
	 */
	changeConfig(values: Record<string, unknown> = {}): void {
		for (const [k, v] of Object.entries(values)) {
			if (v === undefined) delete this.config[k];
			else this.config[k] = v;
		}
		const keys = Object.keys(values);
		configChanges.fire({ affectsConfiguration: (section: string) => keys.some((k) => k === section || k.startsWith(`${section}.`)) });
	},
	messages(): string[] {
		return this.events.filter((e) => e.type === 'message').map((e) => (e as { message: string }).message);
	},
};

function describe(e: FakeEvent): string {
	if (e.type === 'message') return `message(${e.severity}: ${e.message})`;
	if (e.type === 'command') return `command(${e.command})`;
	return e.type;
}

function record(e: FakeEvent): void {
	fake.events.push(e);
	for (const w of [...fake.waiters]) {
		if (w.pred(e)) {
			fake.waiters.splice(fake.waiters.indexOf(w), 1);
			w.resolve(e);
		}
	}
}

async function answered(e: FakeEvent, token?: CancellationToken): Promise<any> {
	record(e);
	const a = Promise.resolve(fake.answer(e));
	if (!token) return a;
	return new Promise((resolve, reject) => {
		const sub = token.onCancellationRequested(() => resolve(undefined));
		a.then((v) => { sub.dispose(); resolve(token.isCancellationRequested ? undefined : v); }, reject);
	});
}

class FakeQuickInput {
	title: string | undefined;
	step: number | undefined;
	totalSteps: number | undefined;
	busy = false;
	ignoreFocusOut = false;
	buttons: readonly unknown[] = [];
	visible = false;
	disposed = false;
	readonly acceptEmitter = new EventEmitter<void>();
	readonly hideEmitter = new EventEmitter<void>();
	readonly buttonEmitter = new EventEmitter<unknown>();
	readonly onDidAccept = this.acceptEmitter.event;
	readonly onDidHide = this.hideEmitter.event;
	readonly onDidTriggerButton = this.buttonEmitter.event;
	hide(): void {
		if (!this.visible) return;
		this.visible = false;
		this.hideEmitter.fire();
	}
	dispose(): void {
		this.hide();
		this.disposed = true;
	}
	/** Test helper: press the Back button. */
	back(): void { this.buttonEmitter.fire(QuickInputButtons.Back); }
}

export class FakeQuickPick extends FakeQuickInput {
	items: readonly any[] = [];
	activeItems: readonly any[] = [];
	selectedItems: readonly any[] = [];
	canSelectMany = false;
	placeholder: string | undefined;
	matchOnDescription = false;
	show(): void {
		this.visible = true;
		record({ type: 'createQuickPick', input: this });
		void Promise.resolve(fake.answer({ type: 'createQuickPick', input: this }));
	}
	/** Test helper: accept the items whose label matches. */
	pick(...labels: string[]): void {
		this.selectedItems = this.items.filter((i) => labels.includes(i.label));
		this.activeItems = this.selectedItems;
		this.acceptEmitter.fire();
	}
}

export class FakeInputBox extends FakeQuickInput {
	value = '';
	prompt: string | undefined;
	placeholder: string | undefined;
	validationMessage: string | undefined;
	readonly changeEmitter = new EventEmitter<string>();
	readonly onDidChangeValue = this.changeEmitter.event;
	show(): void {
		this.visible = true;
		record({ type: 'createInputBox', input: this });
		void Promise.resolve(fake.answer({ type: 'createInputBox', input: this }));
	}
	/** Test helper: type a value and press Enter. */
	type(v: string): void {
		this.value = v;
		this.changeEmitter.fire(v);
		this.acceptEmitter.fire();
	}
}

export class FakeStatusBarItem {
	text = '';
	tooltip: unknown;
	name: string | undefined;
	backgroundColor: ThemeColor | undefined;
	accessibilityInformation: unknown;
	command: unknown;
	visible = false;
	disposed = false;
	constructor(readonly id: string, readonly alignment: StatusBarAlignment, readonly priority?: number) {}
	show(): void { this.visible = true; }
	hide(): void { this.visible = false; }
	dispose(): void { this.disposed = true; this.visible = false; }
}

export class FakeOutputChannel {
	lines: string[] = [];
	shown = false;
	constructor(readonly name: string) {}
	append(v: string): void { this.lines.push(v); }
	appendLine(v: string): void { this.lines.push(v); }
	replace(v: string): void { this.lines = [v]; }
	clear(): void { this.lines = []; }
	show(): void { this.shown = true; }
	hide(): void { this.shown = false; }
	dispose(): void {}
}

function message(severity: 'info' | 'warn' | 'error') {
	return (msg: string, ...rest: unknown[]) => {
		let options: unknown;
		if (rest.length && typeof rest[0] === 'object' && rest[0] !== null && !('title' in (rest[0] as object))) options = rest.shift();
		const buttons = rest.map((b) => (typeof b === 'string' ? b : (b as { title: string }).title));
		return answered({ type: 'message', severity, message: msg, options, buttons });
	};
}

export const window = {
	showInformationMessage: message('info'),
	showWarningMessage: message('warn'),
	showErrorMessage: message('error'),
	async showQuickPick(items: any, options?: any, token?: CancellationToken) {
		const list = await Promise.resolve(items);
		return answered({ type: 'quickPick', items: list, options: options ?? {} }, token);
	},
	async showInputBox(options?: any, token?: CancellationToken) {
		return answered({ type: 'inputBox', options: options ?? {} }, token);
	},
	async showOpenDialog(options?: any) {
		return answered({ type: 'openDialog', options: options ?? {} });
	},
	createQuickPick() { return new FakeQuickPick(); },
	createInputBox() { return new FakeInputBox(); },
	createStatusBarItem(id: string, alignment: StatusBarAlignment, priority?: number) {
		const item = new FakeStatusBarItem(id, alignment, priority);
		fake.statusItems.push(item);
		record({ type: 'statusBarItem', item });
		return item;
	},
	createOutputChannel(name: string) {
		const c = new FakeOutputChannel(name);
		fake.output.push(c);
		return c;
	},
	async withProgress(opts: { title: string }, task: (p: unknown, t: CancellationToken) => Promise<unknown>) {
		record({ type: 'progress', title: opts.title });
		return task({ report() {} }, CancellationTokenNone);
	},
	createTreeView(id: string, opts: { treeDataProvider?: unknown }) {
		const v = { id, badge: undefined as unknown, message: undefined as string | undefined, visible: false, provider: opts?.treeDataProvider as any, onDidChangeVisibility: new EventEmitter<{ visible: boolean }>().event, dispose() {} };
		fake.treeViews.push(v);
		return v;
	},
	async showTextDocument(doc: { uri: Uri }) {
		record({ type: 'showTextDocument', uri: doc.uri });
		return {};
	},
};

/** Fires workspace.onDidChangeConfiguration (fake.changeConfig). */
const configChanges = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
/** Fire to report a change of workspace.workspaceFolders. */
export const workspaceFolderChanges = new EventEmitter<unknown>();

export const workspace = {
	registerTextDocumentContentProvider(scheme: string, p: { provideTextDocumentContent(uri: Uri): string }) {
		fake.docs.set(scheme, p);
		return new Disposable(() => fake.docs.delete(scheme));
	},
	async openTextDocument(uri: Uri) {
		record({ type: 'openTextDocument', uri });
		if (uri.scheme === 'file') {
			const text = fake.files.get(uri.fsPath);
			if (text === undefined) throw new Error(`no file ${uri.fsPath}`);
			return {
				uri,
				getText: (r?: Range) => {
					if (!r) return text;
					return text.split('\n').slice(r.start.line, r.end.line + 1).join('\n');
				},
			};
		}
		const p = fake.docs.get(uri.scheme);
		return { uri, getText: () => p?.provideTextDocumentContent(uri) ?? '' };
	},
	fs: {
		async stat(uri: Uri) {
			if (!fake.files.has(uri.fsPath)) throw new Error(`no file ${uri.fsPath}`);
			return { type: 1, size: fake.files.get(uri.fsPath)!.length };
		},
		async readFile(uri: Uri) {
			const t = fake.files.get(uri.fsPath);
			if (t === undefined) throw new Error(`no file ${uri.fsPath}`);
			return new TextEncoder().encode(t);
		},
	},
	getConfiguration(section: string) {
		return {
			get<T>(key: string, def?: T): T {
				const k = `${section}.${key}`;
				return (k in fake.config ? fake.config[k] : def) as T;
			},
		};
	},
	onDidChangeConfiguration: configChanges.event,
	onDidChangeWorkspaceFolders: workspaceFolderChanges.event,
	workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,
	asRelativePath(u: Uri | string): string {
		const p = typeof u === 'string' ? u : u.fsPath;
		for (const f of workspace.workspaceFolders ?? []) {
			if (p.startsWith(`${f.uri.fsPath}/`)) return p.slice(f.uri.fsPath.length + 1);
		}
		return p;
	},
};

export const commands = {
	registerCommand(id: string, fn: (...args: unknown[]) => unknown) {
		if (fake.commands.has(id)) throw new Error(`command '${id}' already exists`);
		fake.commands.set(id, fn);
		return new Disposable(() => fake.commands.delete(id));
	},
	async executeCommand(id: string, ...args: unknown[]) {
		record({ type: 'command', command: id, args });
		const fn = fake.commands.get(id);
		if (fn) return fn(...args);
		return undefined;
	},
};

export const chat = {
	createChatParticipant(id: string, handler: unknown) {
		const p = { id, handler, iconPath: undefined as unknown, dispose() {} };
		fake.participants.push(p);
		return p;
	},
};

export const lm = {
	registerLanguageModelChatProvider(vendor: string, provider: unknown) {
		fake.lmProviders.set(vendor, provider);
		return new Disposable(() => fake.lmProviders.delete(vendor));
	},
	registerMcpServerDefinitionProvider(id: string, provider: unknown) {
		if (fake.mcpProviders.has(id)) throw new Error(`MCP server definition provider '${id}' already registered`);
		fake.mcpProviders.set(id, provider);
		return new Disposable(() => fake.mcpProviders.delete(id));
	},
};

export const env = {
	remoteName: undefined as string | undefined,
	language: 'en',
	async openExternal(uri: Uri) {
		record({ type: 'command', command: 'env.openExternal', args: [uri.toString()] });
		return true;
	},
};

export const version = '1.139.0';

export enum QuickPickItemKind { Separator = -1, Default = 0 }

/** vscode.l10n with no bundle: the English message, its {0} / {name} filled in. */
export const l10n = {
	t(message: string | { message: string; args?: unknown[] | Record<string, unknown> }, ...args: unknown[]): string {
		const msg = typeof message === 'string' ? message : message.message;
		const vals: unknown = typeof message === 'string'
			? (args.length === 1 && args[0] && typeof args[0] === 'object' && !Array.isArray(args[0]) ? args[0] : args)
			: message.args ?? [];
		return msg.replace(/\{([^}]+)\}/g, (m, k: string) => {
			const v = (vals as Record<string, unknown>)[k];
			return v === undefined ? m : String(v);
		});
	},
	bundle: undefined,
	uri: undefined,
};

/** SecretStorage in memory. */
export class FakeSecrets {
	readonly data = new Map<string, string>();
	readonly onDidChange = new EventEmitter<{ key: string }>().event;
	async get(key: string): Promise<string | undefined> { return this.data.get(key); }
	async store(key: string, value: string): Promise<void> { this.data.set(key, value); }
	async delete(key: string): Promise<void> { this.data.delete(key); }
	async keys(): Promise<string[]> { return [...this.data.keys()]; }
}

// Base classes vscode-languageclient extends when it loads.
export class CallHierarchyItem {}
export class CodeLens {}
export class CompletionItem {}
export class DocumentLink {}
export class InlayHint {}
export class SymbolInformation {}
export class TypeHierarchyItem {}
export class CodeAction {}
export class Diagnostic {}


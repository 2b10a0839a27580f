// Wire types of the rx/ namespace, as docs/EDITOR_PROTOCOL.md defines them.
// Only the members this client reads or writes are typed; the bridge may add
// optional members inside a version.

export const PROTOCOL_VERSION = 1;

export const Method = {
	actions: 'rx/actions',
	actionsChanged: 'rx/actionsChanged',
	plugins: 'rx/plugins',
	uiRequest: 'rx/ui/request',
	uiSurface: 'rx/ui/surface',
	uiSubmit: 'rx/ui/submit',
	models: 'rx/models',
	lmChat: 'rx/lm/chat',
	lmChunk: 'rx/lm/chunk',
	sessionNew: 'rx/session/new',
	sessionPrompt: 'rx/session/prompt',
	sessionCancel: 'rx/session/cancel',
	sessionSetModel: 'rx/session/setModel',
	sessionUpdate: 'rx/session/update',
	sessionRequestPermission: 'rx/session/requestPermission',
	executeCommand: 'workspace/executeCommand',
} as const;

export const Command = {
	runAction: 'rx.runAction',
	reload: 'rx.reload',
} as const;

/** `experimental.rxBridge` of the client's initialize params (§1.1). */
export function rxClientCapabilities() {
	return {
		version: PROTOCOL_VERSION,
		ui: {
			select: true, multiselect: true, input: true, confirm: true,
			form: true, notification: true, status: true, card: true,
		},
		sessionUpdates: true,
		lmChat: true,
	};
}

/** `experimental.rxBridge` of the server's initialize result (§1.2). */
export interface ServerInfo {
	version?: number;
	bridgeVersion?: string;
	protocolId?: string;
	protocolMajor?: number;
	home?: string;
	generation?: number;
	plugins?: { name: string; version?: string; runtime?: boolean; enabled?: boolean }[];
	models?: string[];
	hookPoints?: string[];
}

export interface Action {
	name: string;
	plugin: string;
	actionId: string;
	label?: string;
}

export interface ActionsResult {
	generation: number;
	actions: Action[];
}

export interface ActionsChanged extends ActionsResult {
	hookPoints?: string[];
	warnings?: string[];
}

export interface RunActionResult {
	accepted: boolean;
	message?: string;
}

export interface ReloadResult {
	generation: number;
	warnings?: string[];
}

export interface PluginInfo {
	name: string;
	version?: string;
	description?: string;
	enabled?: boolean;
	source?: string;
	root?: string;
	manifestKind?: string;
	running?: boolean;
	generation?: number;
	/** running, crashed, failed to start, disabled, not started, no runtime. */
	state?: string;
	reason?: string;
	since?: string;
	recover?: string;
	/** The redacted stderr tail of a crash or failed start. */
	details?: string;
	runtime?: {
		command?: string;
		args?: string[];
		intercepts?: string[];
		replaces?: string[];
		capabilities?: string[];
		required?: boolean;
		priority?: number;
	} | null;
	trust?: string;
	error?: string;
}

export type FieldKind = 'confirm' | 'input' | 'select' | 'multiselect';

export interface UIField {
	key: string;
	label?: string;
	kind?: FieldKind;
	options?: string[];
	default?: unknown;
	required?: boolean;
}

export interface UIRequest {
	plugin: string;
	surfaceId: string;
	sessionId?: string;
	generation: number;
	kind: FieldKind;
	title?: string;
	message?: string;
	fields?: UIField[];
}

export type UIValue = boolean | string | string[];

export interface UIResult {
	cancelled: boolean;
	values?: Record<string, UIValue>;
}

export interface StatusPayload {
	label: string;
	detail?: string;
	severity?: Severity;
	progress?: number;
}

export interface NotificationPayload {
	title: string;
	body?: string;
	severity?: Severity;
}

export interface CardPayload {
	title?: string;
	markdown?: string;
	text?: string;
	fields?: { key: string; value?: string }[];
	progress?: number;
	actions?: { actionId: string; label: string }[];
}

export interface FormPayload {
	title?: string;
	message?: string;
	fields: UIField[];
}

export type Severity = 'info' | 'warn' | 'error';

export type UISurface =
	| SurfaceBase<'status', StatusPayload>
	| SurfaceBase<'notification', NotificationPayload>
	| SurfaceBase<'card', CardPayload>
	| SurfaceBase<'form', FormPayload>;

interface SurfaceBase<K extends string, P> {
	plugin: string;
	surfaceId: string;
	sessionId?: string;
	generation: number;
	kind: K;
	payload: P;
}

export interface ModelInfo {
	ref: string;
	displayName?: string;
	origin?: { kind: 'plugin' | 'builtin'; id?: string };
	contextWindow?: number;
	tools?: boolean;
	vision?: boolean;
	reasoning?: boolean;
	efforts?: string[];
	defaultEffort?: string;
}

export interface ModelsResult {
	models: ModelInfo[];
	default?: string;
}

export interface ProviderToolCall {
	id: string;
	name: string;
	arguments: string;
}

export interface ProviderMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content?: string;
	name?: string;
	tool_call_id?: string;
	tool_calls?: ProviderToolCall[];
}

export interface ProviderToolSchema {
	name: string;
	description?: string;
	parameters: unknown;
}

export interface ProviderChunk {
	type: 'text' | 'reasoning' | 'tool_call_start' | 'tool_call_args_delta' | 'tool_call' | 'usage' | 'done' | 'error';
	text?: string;
	toolCall?: ProviderToolCall;
	usage?: Usage;
}

export interface Usage {
	promptTokens: number;
	completionTokens: number;
	totalTokens: number;
	cacheHitTokens?: number;
	cacheMissTokens?: number;
	reasoningTokens?: number;
}

export interface LmChatParams {
	requestId: string;
	model: string;
	effort: string;
	messages: ProviderMessage[];
	tools: ProviderToolSchema[];
	maxTokens: number;
}

export interface LmChunk {
	requestId: string;
	chunk: ProviderChunk;
}

export interface LmChatResult {
	text: string;
	reasoning?: string;
	toolCalls?: ProviderToolCall[];
	usage?: Usage;
	finishReason?: string;
}

export interface SessionNewResult {
	sessionId: string;
	model: string;
}

export interface SessionPromptResult {
	stopReason: 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled' | string;
	text: string;
}

export interface ContentBlock {
	type: string;
	text?: string;
}

export type ToolKind = 'read' | 'edit' | 'search' | 'execute' | 'other';
export type ToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

export type SessionUpdateBody =
	| { sessionUpdate: 'agent_message_chunk'; content: ContentBlock }
	| { sessionUpdate: 'agent_thought_chunk'; content: ContentBlock }
	| { sessionUpdate: 'tool_call'; toolCallId: string; title?: string; kind?: ToolKind; status?: ToolStatus; rawInput?: unknown }
	| { sessionUpdate: 'tool_call_update'; toolCallId: string; title?: string; status?: ToolStatus; content?: { type: string; content?: ContentBlock }[] }
	| { sessionUpdate: 'usage'; usage: Usage }
	| { sessionUpdate: 'notice'; severity?: Severity; text: string }
	| { sessionUpdate: 'permission'; toolCallId: string; outcome: 'allowed' | 'denied' | 'cancelled'; by?: string };

export interface SessionUpdate {
	sessionId: string;
	update: SessionUpdateBody;
}

export interface PermissionRequest {
	sessionId: string;
	toolCall: { toolCallId: string; title?: string; kind?: ToolKind; rawInput?: unknown };
	options: { optionId: string; name: string; kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always' | string }[];
}

export interface PermissionResult {
	outcome: { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };
}

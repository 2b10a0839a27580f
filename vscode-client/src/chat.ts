// Agent sessions in the Chat view: the @reasonix participant. Each chat
// conversation is one rx/ session (its id travels in the result metadata);
// rx/session/update streams into the response, the chat's cancel button
// sends rx/session/cancel, and permission questions are modal Yes/No-style
// prompts with the bridge's options.

import * as vscode from 'vscode';
import { VENDOR } from './lm';
import {
	Method, ModelInfo, PermissionRequest, PermissionResult, SessionRef, PromptResult, SessionUpdate,
	SessionUpdateBody,
} from './protocol';
import type { Rx } from './rx';
import { escapeMarkdown, noIcons } from './text';
import { errorText } from './ui';

export const PARTICIPANT_ID = 'rxBridge.reasonix';
/** The participant's name, as typed: @reasonix. */
export const PARTICIPANT_NAME = 'reasonix';
export const MODEL_KEY = 'rxBridge.chat.model';

export interface ChatMetadata {
	sessionId?: string;
	model?: string;
	stopReason?: string;
}

/** Where one running turn writes. */
export interface TurnSink {
	/** Model output, Markdown. */
	markdown(text: string): void;
	/** A line of ours (tool calls, notices), Markdown with $(icons); plugin text in it is escaped. */
	line(text: string): void;
	progress(text: string): void;
}

export class ChatSessions implements vscode.Disposable {
	private readonly sinks = new Map<string, TurnSink>();
	private readonly tools = new Map<string, string>();
	/** Sessions created on the current bridge process. */
	private live = new Set<string>();
	private readonly subs: { dispose(): void }[] = [];

	constructor(private readonly rx: Rx, private readonly memento: vscode.Memento) {
		this.subs.push(rx.bridge.handlers.onNotification(Method.sessionUpdate, (p: SessionUpdate) => this.update(p)));
		this.subs.push(rx.bridge.handlers.onRequest(Method.sessionRequestPermission, (p: PermissionRequest) => this.permission(p)));
		this.subs.push(rx.bridge.onDidStart(() => { this.live = new Set(); }));
	}

	readonly handler: vscode.ChatRequestHandler = (request, context, stream, token) => this.handle(request, context, stream, token);

	async handle(
		request: vscode.ChatRequest,
		context: vscode.ChatContext,
		stream: vscode.ChatResponseStream,
		token: vscode.CancellationToken,
	): Promise<vscode.ChatResult> {
		const previous = previousMetadata(context);
		try {
			if (request.command === 'model') return await this.chooseModel(stream, previous);
			if (request.command === 'commands') return await this.listCommands(stream, previous);
			return await this.turn(request, stream, token, previous);
		} catch (err) {
			return { errorDetails: { message: noIcons(`Reasonix: ${errorText(err)}`) }, metadata: previous };
		}
	}

	private async turn(
		request: vscode.ChatRequest,
		stream: vscode.ChatResponseStream,
		token: vscode.CancellationToken,
		previous: ChatMetadata,
	): Promise<vscode.ChatResult> {
		const wanted = this.wantedModel(request);
		let sessionId = previous.sessionId && this.live.has(previous.sessionId) ? previous.sessionId : undefined;
		let model = previous.model;
		if (!sessionId) {
			stream.progress('Starting a Reasonix session…');
			const m = wanted ?? (await this.defaultModel());
			const r = await this.rx.request<SessionRef>(Method.sessionNew, m ? { model: m } : {});
			sessionId = r.sessionId;
			model = r.model;
			this.live.add(sessionId);
		} else if (wanted && wanted !== model) {
			await this.rx.request(Method.sessionSetModel, { sessionId, model: wanted });
			model = wanted;
		}
		const id = sessionId;
		let streamedAnswer = false;
		let thinking = false;
		this.sinks.set(id, {
			markdown: (t) => {
				streamedAnswer = true;
				thinking = false;
				stream.markdown(new vscode.MarkdownString(t));
			},
			line: (t) => {
				thinking = false;
				stream.markdown(new vscode.MarkdownString(t, true));
			},
			progress: (t) => {
				if (t === THINKING && thinking) return;
				thinking = t === THINKING;
				stream.progress(t);
			},
		});
		const cancelSub = token.onCancellationRequested(() => {
			void this.rx.notify(Method.sessionCancel, { sessionId: id }).catch(() => {});
		});
		try {
			const r = await this.rx.request<PromptResult>(Method.sessionPrompt, { sessionId: id, prompt: promptText(request) });
			if (!streamedAnswer && r.text) stream.markdown(new vscode.MarkdownString(r.text));
			const note = stopNote(r.stopReason);
			if (note) stream.markdown(new vscode.MarkdownString(`\n\n*${note}*`));
			return { metadata: { sessionId: id, model, stopReason: r.stopReason } satisfies ChatMetadata };
		} finally {
			cancelSub.dispose();
			this.sinks.delete(id);
		}
	}

	/**
	 * The model asked for: the chat's own model picker when it is ours, else
	 * `@reasonix /model`'s choice; the caller falls back to rx/models' default.
	 */
	private wantedModel(request: vscode.ChatRequest): string | undefined {
		const m = (request as { model?: vscode.LanguageModelChat }).model;
		if (m && m.vendor === VENDOR && m.id) return m.id;
		return this.memento.get<string>(MODEL_KEY) || undefined;
	}

	private async defaultModel(): Promise<string | undefined> {
		try {
			return (await this.rx.models()).default || undefined;
		} catch {
			return undefined;
		}
	}

	private async chooseModel(stream: vscode.ChatResponseStream, previous: ChatMetadata): Promise<vscode.ChatResult> {
		const r = await this.rx.models();
		const current = previous.model ?? this.memento.get<string>(MODEL_KEY) ?? r.default;
		const items = (r.models ?? []).map((m: ModelInfo) => ({
			label: noIcons(m.displayName || m.ref),
			description: m.ref === current ? `${m.ref} (current)` : m.ref,
			detail: m.origin?.kind === 'plugin' ? `from the plugin ${m.origin.id ?? ''}` : 'built in',
			ref: m.ref,
		}));
		if (items.length === 0) {
			stream.markdown('No models are available. Install a provider plugin or configure one in `config.toml`.');
			return { metadata: previous };
		}
		const picked = await vscode.window.showQuickPick(items, { title: 'Reasonix: model for this chat', ignoreFocusOut: true });
		if (!picked) {
			stream.markdown('Model unchanged.');
			return { metadata: previous };
		}
		await this.memento.update(MODEL_KEY, picked.ref);
		let model = previous.model;
		if (previous.sessionId && this.live.has(previous.sessionId)) {
			await this.rx.request(Method.sessionSetModel, { sessionId: previous.sessionId, model: picked.ref });
			model = picked.ref;
		}
		stream.markdown(new vscode.MarkdownString(`Model: \`${picked.ref}\``));
		return { metadata: { ...previous, model: model ?? picked.ref } };
	}

	/**
	 * `@reasonix /commands`: the slash commands of the running plugins
	 * (commands, prompts, skills, agents, MCP prompts), each a link that puts
	 * `@reasonix /<name> ` in the chat input for its arguments. VS Code's own
	 * "/" completion lists only the participant's static commands, so this
	 * is where the dynamic ones are found.
	 */
	private async listCommands(stream: vscode.ChatResponseStream, previous: ChatMetadata): Promise<vscode.ChatResult> {
		const list = (await this.rx.refreshActions()).filter((a) => a.kind === 'command');
		if (list.length === 0) {
			stream.markdown('No plugin commands. Install a plugin package with commands, skills or MCP prompts (`rx-bridge plugin install`), then run **Reasonix: Reload Plugins**.');
			return { metadata: previous };
		}
		const lines = ['Plugin commands (pick one to type its arguments):', ''];
		for (const a of list) {
			const args = encodeURIComponent(JSON.stringify([{ query: `@${PARTICIPANT_NAME} ${a.name} `, isPartialQuery: true }]));
			let line = `- [${escapeMarkdown(a.name)}](command:${CHAT_OPEN_COMMAND}?${args})`;
			if (a.argumentHint) line += ` ${escapeMarkdown(noIcons(a.argumentHint))}`;
			if (a.description) line += ` — ${escapeMarkdown(noIcons(a.description))}`;
			lines.push(line);
		}
		const md = new vscode.MarkdownString(lines.join('\n') + '\n');
		md.isTrusted = { enabledCommands: [CHAT_OPEN_COMMAND] };
		stream.markdown(md);
		return { metadata: previous };
	}

	update(p: SessionUpdate): void {
		if (!p || typeof p.sessionId !== 'string' || !p.update) return;
		const sink = this.sinks.get(p.sessionId);
		if (!sink) return;
		renderUpdate(p.update, sink, this.tools);
	}

	async permission(p: PermissionRequest): Promise<PermissionResult> {
		const title = p.toolCall?.title || 'a tool';
		const sink = this.sinks.get(p.sessionId);
		sink?.line(`\n\n$(shield) Permission asked: ${escapeMarkdown(title)}\n\n`);
		const options = p.options ?? [];
		const names = options.map((o) => noIcons(o.name));
		let detail: string | undefined;
		if (p.toolCall?.rawInput !== undefined) {
			try {
				detail = JSON.stringify(p.toolCall.rawInput, null, 2);
			} catch {
				detail = undefined;
			}
		}
		const picked = await vscode.window.showWarningMessage(noIcons(`Reasonix wants to run: ${title}`), { modal: true, detail }, ...names);
		const i = picked === undefined ? -1 : names.indexOf(picked);
		if (i < 0) return { outcome: { outcome: 'cancelled' } };
		return { outcome: { outcome: 'selected', optionId: options[i].optionId } };
	}

	dispose(): void {
		for (const s of this.subs) s.dispose();
	}
}

export const THINKING = 'Thinking…';

/** VS Code's command that opens the Chat view with a query. */
const CHAT_OPEN_COMMAND = 'workbench.action.chat.open';

export function renderUpdate(u: SessionUpdateBody, sink: TurnSink, tools: Map<string, string>): void {
	// A subagent run's text is its own: only its answer, as the tool result
	// of the call that started it, reaches the session's. Its progress
	// shows, with its tool calls and notices named after it.
	const sub = 'subagent' in u && u.subagent ? u.subagent : undefined;
	switch (u.sessionUpdate) {
		case 'agent_message_chunk':
			if (sub) sink.progress(noIcons(`${sub.name} is working…`));
			else if (u.content?.type === 'text' && u.content.text) sink.markdown(u.content.text);
			return;
		case 'agent_thought_chunk':
			sink.progress(sub ? noIcons(`${sub.name} is thinking…`) : THINKING);
			return;
		case 'tool_call': {
			const title = (sub ? `${sub.name} › ` : '') + (u.title || 'a tool call');
			tools.set(u.toolCallId, title);
			sink.progress(noIcons(`Running ${title}`));
			sink.line(`\n\n$(tools) ${escapeMarkdown(title)}\n\n`);
			return;
		}
		case 'tool_call_update': {
			// Keyed by toolCallId, unique within the session (the model's
			// own ids repeat); the key itself is no name for people.
			const title = tools.get(u.toolCallId) || u.title || 'a tool call';
			if (u.status === 'completed') {
				sink.line(`$(check) ${escapeMarkdown(title)} done\n\n`);
				tools.delete(u.toolCallId);
			} else if (u.status === 'failed') {
				const why = (u.content ?? []).map((c) => c.content?.text ?? '').filter(Boolean).join(' ');
				sink.line(`$(error) ${escapeMarkdown(title)} failed${why ? `: ${escapeMarkdown(why)}` : ''}\n\n`);
				tools.delete(u.toolCallId);
			} else if (u.status === 'in_progress') {
				sink.progress(noIcons(`Running ${title}`));
			}
			return;
		}
		case 'notice': {
			const icon = u.severity === 'error' ? '$(error)' : u.severity === 'warn' ? '$(warning)' : '$(info)';
			sink.line(`\n\n${icon} ${escapeMarkdown((sub ? `${sub.name}: ` : '') + u.text)}\n\n`);
			return;
		}
		case 'permission': {
			const title = tools.get(u.toolCallId) || 'a tool call';
			sink.line(`$(shield) ${escapeMarkdown(title)}: ${u.outcome}${u.by ? ` by ${escapeMarkdown(u.by)}` : ''}\n\n`);
			return;
		}
		default:
			return;
	}
}

function previousMetadata(context: vscode.ChatContext): ChatMetadata {
	for (let i = context.history.length - 1; i >= 0; i--) {
		const turn = context.history[i];
		if (turn instanceof vscode.ChatResponseTurn && turn.participant === PARTICIPANT_ID) {
			const md = turn.result?.metadata as ChatMetadata | undefined;
			if (md?.sessionId) return md;
		}
	}
	return {};
}

/**
 * The prompt as typed. A /<command> the chat parsed as a slash command of
 * ours that is no static one (model, commands) is a plugin command: it goes
 * back in front, for the agent to resolve.
 */
export function promptText(request: vscode.ChatRequest): string {
	if (request.command && request.command !== 'model' && request.command !== 'commands') {
		return `/${request.command}${request.prompt ? ` ${request.prompt}` : ''}`;
	}
	return request.prompt;
}

function stopNote(reason: string): string | undefined {
	switch (reason) {
		case 'end_turn':
		case 'refusal':
			return undefined;
		case 'cancelled':
			return 'Cancelled.';
		case 'max_tokens':
			return 'Stopped: the model reached its output limit.';
		case 'max_turn_requests':
			return 'Stopped: the step budget of this turn ran out.';
		default:
			return `Stopped: ${reason}`;
	}
}

// Agent sessions in the Chat view: the @reasonix participant. Each chat
// conversation is one rx/ session (its id travels in the result metadata;
// after a window reload or a bridge restart the conversation's session is
// reloaded with rx/session/load); rx/session/update streams into the
// response, the chat's cancel button sends rx/session/cancel, the files
// and selections attached to a request go along as the prompt's
// resources, and a permission question is asked in the response itself,
// with one button per answer. The model is the chat's own model picker
// (@reasonix /model sets it).

import * as vscode from 'vscode';
import { l10n } from './l10n';
import { modelInformation, noModelText, SETUP_MODEL_COMMAND, SETUP_MODEL_ID, VENDOR } from './lm';
import * as path from 'node:path';
import {
	ImageContent, Method, ModelInfo, PermissionRequest, PermissionResult, PromptResource, SessionInfo, SessionListResult, SessionRef, PromptResult,
	SessionUpdate, SessionUpdateBody, TurnEdit, UndoTurnResult,
} from './protocol';
import type { ReviewSink } from './review';
import type { Rx } from './rx';
import { ago, escapeMarkdown, noIcons } from './text';
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
	/** A user message of a replayed conversation (a live turn shows its prompt itself). */
	user?(text: string): void;
	/** A line of ours (tool calls, notices), Markdown with $(icons); plugin text in it is escaped. */
	line(text: string): void;
	progress(text: string): void;
	/** A button in the response that runs a command. */
	button(command: vscode.Command): void;
	/** The tools of a model round returned: the next update starts a new round. */
	roundEnded(): void;
	/** A model round's token usage. */
	usage(u: Usage): void;
	/** Settles when the turn has ended (a live turn's sink). */
	readonly ended?: Promise<void>;
}

/** The command a permission button runs: (question id, option id). */
export const ANSWER_COMMAND = 'rxBridge.answerPermission';

/** The command the "Undo turn" button of an answer runs: (session id, turn). */
export const UNDO_TURN_COMMAND = 'rxBridge.undoTurn';
export const UNDO_ANYWAY = l10n.t('Undo Anyway');

/** Reasonix: Sessions… — the stored sessions, to resume in a new chat, rename or delete. */
export const SESSIONS_COMMAND = 'rxBridge.sessions';
export const RESUME = l10n.t('Resume in Chat');
export const RENAME = l10n.t('Rename…');
export const DELETE = l10n.t('Delete');
/** The name of a stored session nobody prompted yet. */
const NO_PROMPT = l10n.t('(no prompt yet)');

/** VS Code's command that selects a model in the chat's model picker (every chat widget). */
export const CHANGE_MODEL_COMMAND = 'workbench.action.chat.changeModel';

/** Attachments larger than this go as links (the agent reads them with its tools). */
export const MAX_RESOURCE_TEXT = 256 * 1024;

/**
 * The most image bytes one prompt may carry, decoded: the bridge's limit
 * (docs/EDITOR_PROTOCOL.md §5.4), checked here too so a huge paste is
 * refused before it is encoded and sent.
 */
export const MAX_PROMPT_IMAGE_BYTES = 5 * 1024 * 1024;

export class ChatSessions implements vscode.Disposable {
	private readonly sinks = new Map<string, TurnSink>();
	/** The sessions whose turn runs in a chat response now, oldest first. */
	private readonly running: string[] = [];
	private readonly tools = new Map<string, string>();
	/** Sessions created on the current bridge process. */
	private live = new Set<string>();
	private readonly subs: { dispose(): void }[] = [];
	private readonly sessionsChanged = new vscode.EventEmitter<void>();
	/** Permission questions waiting for a button. */
	private readonly questions = new Map<string, (optionId: string | undefined) => void>();
	/** Questions answered, by id: the answer's name (VS Code cannot disable a chat button). */
	private readonly answers = new Map<string, string>();
	/** Undo turn buttons used, by session and turn: the turn they undid. */
	private readonly undone = new Map<string, number>();
	private questionCounter = 0;

	constructor(private readonly rx: Rx, private readonly memento: vscode.Memento) {
		this.subs.push(rx.bridge.handlers.onNotification(Method.sessionUpdate, (p: SessionUpdate) => this.update(p)));
		this.subs.push(rx.bridge.handlers.onRequest(Method.sessionRequestPermission, (p: PermissionRequest, token) => this.permission(p, token as vscode.CancellationToken)));
		this.subs.push(rx.bridge.onDidStart(() => { this.live = new Set(); this.sessionsChanged.fire(); }));
		this.subs.push(vscode.commands.registerCommand(ANSWER_COMMAND, (id: unknown, optionId: unknown) => this.answer(id, optionId)));
		this.subs.push(vscode.commands.registerCommand(UNDO_TURN_COMMAND, (sessionId: unknown, turn: unknown) => this.undoTurn(sessionId, turn)));
		this.subs.push(vscode.commands.registerCommand(SESSIONS_COMMAND, () => this.sessions()));
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
			if (request.command === 'resume') return await this.resume(request.prompt.trim(), stream, previous);
			if (request.command === 'mode') return await this.chooseMode(request.prompt.trim(), stream, previous);
			return await this.turn(request, stream, token, previous);
		} catch (err) {
			return { errorDetails: { message: noIcons(l10n.t('Reasonix: {0}', errorText(err))) }, metadata: previous };
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
		if (!sessionId && previous.sessionId) {
			// The conversation's session from before a window reload or a
			// bridge restart: reopen it, so the agent has its history.
			try {
				const r = await this.rx.request<SessionRef>(Method.sessionLoad, { sessionId: previous.sessionId });
				sessionId = r.sessionId;
				model = r.model;
				this.live.add(sessionId);
				modeNote(stream, r);
			} catch (err) {
				stream.markdown(new vscode.MarkdownString(`$(warning) ${escapeMarkdown(l10n.t('The session of this chat could not be resumed ({0}); a new one starts without its history.', errorText(err)))}\n\n`, true));
			}
			if (sessionId && wanted && wanted !== model) {
				await this.rx.request(Method.sessionSetModel, { sessionId, model: wanted });
				model = wanted;
			}
		}
		if (!sessionId) {
			const m = wanted ?? (await this.defaultModel());
			if (!m && !(await this.hasModels())) return noModel(stream, previous);
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
		// VS Code counts a response's progress messages as its steps
		// ("Completed 3 steps"): one per model round, the first thing the
		// round does; a round ends when its tools returned.
		let inRound = false;
		const round = (what: string) => {
			if (inRound) return;
			inRound = true;
			stream.progress(what);
		};
		const used: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
		let usageSeen = false;
		let endTurn!: () => void;
		const ended = new Promise<void>((resolve) => { endTurn = resolve; });
		this.sinks.set(id, {
			ended,
			markdown: (t) => {
				streamedAnswer = true;
				round(ANSWERING);
				stream.markdown(new vscode.MarkdownString(t));
			},
			line: (t) => {
				stream.markdown(new vscode.MarkdownString(t, true));
			},
			progress: (t) => round(t),
			button: (c) => {
				stream.button(c);
			},
			roundEnded: () => { inRound = false; },
			usage: (u) => {
				usageSeen = true;
				used.promptTokens += u.promptTokens ?? 0;
				used.completionTokens += u.completionTokens ?? 0;
				used.totalTokens += u.totalTokens ?? 0;
			},
		});
		const cancelSub = token.onCancellationRequested(() => {
			void this.rx.notify(Method.sessionCancel, { sessionId: id }).catch(() => {});
		});
		this.running.push(id);
		try {
			const resources = await attachments(request);
			for (const r of resources) {
				try {
					stream.reference(vscode.Uri.parse(r.uri));
				} catch {
					// a URI VS Code cannot show is still sent
				}
			}
			const images = await imageAttachments(request);
			const params = {
				sessionId: id, prompt: promptText(request),
				...(resources.length > 0 ? { resources } : {}),
				...(images.length > 0 ? { images } : {}),
			};
			const r = await this.rx.request<PromptResult>(Method.sessionPrompt, params);
			if (!streamedAnswer && r.text) stream.markdown(new vscode.MarkdownString(r.text));
			const note = stopNote(r.stopReason);
			if (note) stream.markdown(new vscode.MarkdownString(`\n\n*${note}*`));
			if (usageSeen && used.totalTokens > 0) stream.markdown(new vscode.MarkdownString(`\n\n*${usageNote(used)}*`));
			if (r.edits && r.edits.length > 0) {
				stream.markdown(changedFiles(r.edits));
				stream.button({ command: UNDO_TURN_COMMAND, title: l10n.t('Undo turn'), arguments: [id, r.turn] });
			}
			return { metadata: { sessionId: id, model, stopReason: r.stopReason } satisfies ChatMetadata };
		} finally {
			cancelSub.dispose();
			this.sinks.delete(id);
			this.running.splice(this.running.indexOf(id), 1);
			endTurn();
			this.sessionsChanged.fire();
		}
	}

	/**
	 * Where an agent edit is reviewed: the response of the turn running
	 * (workspace/applyEdit does not name its session; the newest turn's).
	 */
	reviewSink(): ReviewSink | undefined {
		const id = this.running[this.running.length - 1];
		return id ? this.sinks.get(id) : undefined;
	}

	/**
	 * The model asked for: the chat's own model picker when it is ours (one
	 * source of truth: `@reasonix /model` sets the picker), else
	 * `@reasonix /model`'s last choice; the caller falls back to rx/models'
	 * default.
	 */
	private wantedModel(request: vscode.ChatRequest): string | undefined {
		const m = (request as { model?: vscode.LanguageModelChat }).model;
		if (m && m.vendor === VENDOR && m.id && m.id !== SETUP_MODEL_ID) return m.id;
		return this.memento.get<string>(MODEL_KEY) || undefined;
	}

	/**
	 * A resumed session's model in the chat's model picker (and as the
	 * fallback choice), so the chat shows the model the session is on and
	 * its next turn does not switch it back to the picker's.
	 */
	private async showModel(ref: string | undefined): Promise<void> {
		if (!ref) return;
		await this.memento.update(MODEL_KEY, ref);
		const m = (await this.rx.models().catch(() => undefined))?.models?.find((x) => x.ref === ref);
		if (!m) return;
		const info = modelInformation(m);
		await vscode.commands.executeCommand(CHANGE_MODEL_COMMAND, { vendor: VENDOR, id: info.id, family: info.family }).then(undefined, () => undefined);
	}

	private async hasModels(): Promise<boolean> {
		try {
			return ((await this.rx.models()).models ?? []).length > 0;
		} catch {
			return false;
		}
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
			description: m.ref === current ? l10n.t('{0} (current)', m.ref) : m.ref,
			detail: m.origin?.kind === 'plugin' ? l10n.t('from the plugin {0}', m.origin.id ?? '') : l10n.t('built in'),
			ref: m.ref,
		}));
		if (items.length === 0) return noModel(stream, previous);
		const picked = await vscode.window.showQuickPick(items, { title: l10n.t('Reasonix: model for this chat'), ignoreFocusOut: true });
		if (!picked) {
			stream.markdown(l10n.t('Model unchanged.'));
			return { metadata: previous };
		}
		await this.memento.update(MODEL_KEY, picked.ref);
		// The chat's model picker answers the next turn: it shows the choice.
		const info = modelInformation((r.models ?? []).find((m) => m.ref === picked.ref)!);
		let inPicker = true;
		try {
			await vscode.commands.executeCommand(CHANGE_MODEL_COMMAND, { vendor: VENDOR, id: info.id, family: info.family });
		} catch {
			inPicker = false;
		}
		let model = previous.model;
		if (previous.sessionId && this.live.has(previous.sessionId)) {
			await this.rx.request(Method.sessionSetModel, { sessionId: previous.sessionId, model: picked.ref });
			model = picked.ref;
		}
		const where = inPicker ? l10n.t(' (also in the chat\'s model picker)') : '';
		stream.markdown(new vscode.MarkdownString(l10n.t('Model: {0} {1}{2}', escapeMarkdown(noIcons(info.name)), `\`${picked.ref}\``, where)));
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
			stream.markdown(l10n.t('No plugin commands. Run "Reasonix: Install Plugin…" to install a plugin with commands, skills or MCP prompts.'));
			stream.button({ command: INSTALL_PLUGIN_COMMAND, title: l10n.t('Reasonix: Install Plugin…') });
			return { metadata: previous };
		}
		const lines = [l10n.t('Plugin commands (pick one to type its arguments):'), ''];
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

	/**
	 * `@reasonix /resume <session id>`: this chat goes on with a stored
	 * session, its conversation replayed in the response (rx/session/load).
	 * Without an id: the workspace's stored sessions, each a link that
	 * resumes it. Reasonix: Sessions… runs it in a new chat.
	 */
	private async resume(id: string, stream: vscode.ChatResponseStream, previous: ChatMetadata): Promise<vscode.ChatResult> {
		if (!id) return this.listSessions(stream, previous);
		if (this.running.includes(id)) {
			stream.markdown(new vscode.MarkdownString(`$(history) ${escapeMarkdown(l10n.t('A turn of this session is running in another chat; resume it here when that turn has ended.'))}`, true));
			return { metadata: previous };
		}
		if (this.live.has(id)) {
			// Open on this bridge, in a chat that may have been closed (VS
			// Code does not say): closed and loaded again, so its
			// conversation is replayed here. A chat still showing it goes on
			// with it too.
			await this.rx.request(Method.sessionClose, { sessionId: id });
			this.live.delete(id);
		}
		// The prompt's lines kept: each escaped, joined by hard line breaks.
		const you = (t: string) => stream.markdown(new vscode.MarkdownString(`\n\n$(account) **${l10n.t('You:')}** ${t.split(/\r?\n/).map((l) => escapeMarkdown(noIcons(l))).join('  \n')}\n\n`, true));
		this.sinks.set(id, {
			markdown: (t) => stream.markdown(new vscode.MarkdownString(t)),
			user: you,
			line: (t) => stream.markdown(new vscode.MarkdownString(t, true)),
			progress: () => {},
			button: () => {},
			roundEnded: () => {},
			usage: () => {},
		});
		let r: SessionRef;
		try {
			r = await this.rx.request<SessionRef>(Method.sessionLoad, { sessionId: id });
		} finally {
			this.sinks.delete(id);
		}
		this.live.add(r.sessionId);
		stream.markdown(new vscode.MarkdownString(`\n\n---\n\n$(history) ${escapeMarkdown(l10n.t('Session resumed on {0}: this chat goes on with it.', r.model ?? ''))}`, true));
		modeNote(stream, r);
		await this.showModel(r.model);
		return { metadata: { sessionId: r.sessionId, model: r.model } };
	}

	/**
	 * `@reasonix /mode [normal|plan]`: switches the session of this chat
	 * between normal and plan mode (rx/session/setMode); without a mode,
	 * asked in a quick pick. A session from before a reload is reopened
	 * first.
	 */
	private async chooseMode(arg: string, stream: vscode.ChatResponseStream, previous: ChatMetadata): Promise<vscode.ChatResult> {
		let id = previous.sessionId;
		if (!id) {
			stream.markdown(l10n.t('This chat has no session yet: ask something first, then switch its mode.'));
			return { metadata: previous };
		}
		let mode = arg.toLowerCase();
		if (!mode) {
			const picked = await vscode.window.showQuickPick([
				{ label: l10n.t('Normal'), description: l10n.t('every tool the approval mode allows'), mode: 'normal' },
				{ label: l10n.t('Plan'), description: l10n.t('read, search and plan: edits and commands are refused'), mode: 'plan' },
			], { title: l10n.t('Reasonix: mode of this chat\'s session'), ignoreFocusOut: true });
			if (!picked) {
				stream.markdown(l10n.t('Mode unchanged.'));
				return { metadata: previous };
			}
			mode = picked.mode;
		}
		if (!this.live.has(id)) {
			id = (await this.rx.request<SessionRef>(Method.sessionLoad, { sessionId: id })).sessionId;
			this.live.add(id);
		}
		await this.rx.request(Method.sessionSetMode, { sessionId: id, mode });
		stream.markdown(new vscode.MarkdownString(mode === 'plan'
			? `$(list-ordered) ${l10n.t('Plan mode: the agent reads, searches and plans; every edit or command is refused until `@reasonix /mode normal`.')}`
			: `$(check) ${l10n.t('Normal mode: the agent runs every tool the approval mode allows.')}`, true));
		return { metadata: { ...previous, sessionId: id } };
	}

	private async storedSessions(): Promise<SessionInfo[]> {
		return (await this.rx.request<SessionListResult>(Method.sessionList, {})).sessions ?? [];
	}

	private async listSessions(stream: vscode.ChatResponseStream, previous: ChatMetadata): Promise<vscode.ChatResult> {
		const list = await this.storedSessions();
		if (list.length === 0) {
			stream.markdown(l10n.t('No stored sessions in this workspace yet: a `@reasonix` chat starts one.'));
			return { metadata: previous };
		}
		const now = Date.now();
		const lines = [l10n.t('Stored sessions (pick one to resume it in this chat):'), ''];
		for (const s of list) {
			const args = encodeURIComponent(JSON.stringify([{ query: `@${PARTICIPANT_NAME} /resume ${s.sessionId}` }]));
			const when = ago(s.updatedAt, now);
			lines.push(`- [${escapeMarkdown(noIcons(s.title || NO_PROMPT))}](command:${CHAT_OPEN_COMMAND}?${args}) — ${escapeMarkdown(noIcons(s.model))}${when ? `, ${when}` : ''}`);
		}
		const md = new vscode.MarkdownString(lines.join('\n') + '\n');
		md.isTrusted = { enabledCommands: [CHAT_OPEN_COMMAND] };
		stream.markdown(md);
		return { metadata: previous };
	}

	/**
	 * Reasonix: Sessions…: picks a stored session of the workspace, then
	 * resumes it in a new chat, renames it or deletes it (after a modal
	 * confirmation).
	 */
	async sessions(): Promise<void> {
		let list: SessionInfo[];
		try {
			list = await this.storedSessions();
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: cannot list the sessions: {0}', errorText(err))));
			return;
		}
		if (list.length === 0) {
			void vscode.window.showInformationMessage(l10n.t('Reasonix: no stored session in this workspace yet; a @reasonix chat starts one.'));
			return;
		}
		const now = Date.now();
		const picked = await vscode.window.showQuickPick(list.map((s) => ({
			label: noIcons(s.title || NO_PROMPT),
			description: noIcons(s.model),
			detail: ago(s.updatedAt, now) || undefined,
			session: s,
		})), { title: l10n.t('Reasonix: Sessions'), placeHolder: l10n.t('Pick a session to resume, rename or delete'), matchOnDescription: true, ignoreFocusOut: true });
		if (!picked) return;
		const what = await vscode.window.showQuickPick([RESUME, RENAME, DELETE], { title: noIcons(`Reasonix: ${picked.label}`), ignoreFocusOut: true });
		if (what) await this.act(what, picked.session);
	}

	/** Fired when the stored sessions may have changed (a turn, a rename, a delete, a bridge start). */
	readonly onDidChangeSessions = this.sessionsChanged.event;

	/** The workspace's stored sessions, newest first. */
	storedList(): Promise<SessionInfo[]> {
		return this.storedSessions();
	}

	/**
	 * Resume in Chat (a new chat replays it and goes on with it), Rename…
	 * or Delete (after a modal confirmation) of a stored session: Reasonix:
	 * Sessions… and the Sessions view.
	 */
	async act(what: string, s: SessionInfo): Promise<void> {
		const picked = { label: noIcons(s.title || NO_PROMPT) };
		try {
			if (what === RESUME) {
				// A new chat, so the session is not mixed into the one shown.
				await vscode.commands.executeCommand(NEW_CHAT_COMMAND).then(undefined, () => undefined);
				await vscode.commands.executeCommand(CHAT_OPEN_COMMAND, { query: `@${PARTICIPANT_NAME} /resume ${s.sessionId}` });
			} else if (what === RENAME) {
				const title = await vscode.window.showInputBox({
					title: noIcons(l10n.t('Reasonix: rename {0}', picked.label)),
					prompt: l10n.t('The new title (empty: the start of its first prompt again)'),
					value: s.title,
					ignoreFocusOut: true,
				});
				if (title === undefined) return;
				await this.rx.request(Method.sessionRename, { sessionId: s.sessionId, title });
				this.sessionsChanged.fire();
				void vscode.window.showInformationMessage(noIcons(title.trim() ? l10n.t('Reasonix: session renamed to "{0}"', title.trim()) : l10n.t('Reasonix: the session is named by its first prompt again')));
			} else if (what === DELETE) {
				const sure = await vscode.window.showWarningMessage(noIcons(l10n.t('Delete the session "{0}" and its transcript?', picked.label)), { modal: true }, DELETE);
				if (sure !== DELETE) return;
				await this.rx.request(Method.sessionDelete, { sessionId: s.sessionId });
				this.live.delete(s.sessionId);
				this.sessionsChanged.fire();
				void vscode.window.showInformationMessage(noIcons(l10n.t('Reasonix: deleted "{0}"', picked.label)));
			}
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: {0} failed: {1}', what ?? l10n.t('the session'), errorText(err))));
		}
	}

	update(p: SessionUpdate): void {
		if (!p || typeof p.sessionId !== 'string' || !p.update) return;
		const sink = this.sinks.get(p.sessionId);
		if (!sink) return;
		renderUpdate(p.update, sink, this.tools);
	}

	/**
	 * rx/session/requestPermission: asked in the response of the turn that
	 * wants the tool (the tool, a readable summary of its input, a button
	 * per answer: Allow once, Allow for this session, Deny); without a
	 * visible turn, in a quick pick with the same rows. Withdrawn (the
	 * turn was cancelled) it is answered cancelled.
	 */
	async permission(p: PermissionRequest, token?: vscode.CancellationToken): Promise<PermissionResult> {
		const options = p.options ?? [];
		const title = p.toolCall?.title || l10n.t('a tool');
		const summary = inputSummary(p.toolCall?.rawInput);
		const sink = this.sinks.get(p.sessionId);
		let optionId: string | undefined;
		if (sink) {
			const id = `q${++this.questionCounter}`;
			const lines = [`\n\n$(shield) **${l10n.t('Reasonix wants to run {0}', escapeMarkdown(noIcons(title)))}**`];
			for (const [k, v] of summary) lines.push(`- ${escapeMarkdown(k)}: ${escapeMarkdown(v)}`);
			sink.line(lines.join('\n') + '\n\n');
			const answered = new Promise<string | undefined>((resolve) => {
				this.questions.set(id, resolve);
				token?.onCancellationRequested(() => resolve(undefined));
			});
			for (const o of options) sink.button({ command: ANSWER_COMMAND, title: noIcons(o.name), arguments: [id, o.optionId] });
			try {
				optionId = await answered;
			} finally {
				this.questions.delete(id);
				const name = options.find((o) => o.optionId === optionId)?.name;
				this.answers.set(id, name ? noIcons(name) : l10n.t('cancelled'));
			}
		} else {
			const items = options.map((o) => ({ label: noIcons(o.name), optionId: o.optionId }));
			const picked = await vscode.window.showQuickPick(items, {
				title: noIcons(l10n.t('Reasonix wants to run {0}', title)),
				placeHolder: noIcons(summary.map(([k, v]) => `${k}: ${v}`).join(' · ')) || undefined,
				ignoreFocusOut: true,
			}, token);
			optionId = picked?.optionId;
		}
		if (optionId === undefined || !options.some((o) => o.optionId === optionId)) return { outcome: { outcome: 'cancelled' } };
		return { outcome: { outcome: 'selected', optionId } };
	}

	/** A permission button: answers its question once; a stale button says so. */
	private answer(id: unknown, optionId: unknown): void {
		const resolve = typeof id === 'string' ? this.questions.get(id) : undefined;
		if (!resolve || typeof optionId !== 'string') {
			const was = typeof id === 'string' ? this.answers.get(id) : undefined;
			void vscode.window.showInformationMessage(was
				? l10n.t('Reasonix: this question was already answered: {0}.', was)
				: l10n.t('Reasonix: this question was already answered.'));
			return;
		}
		this.questions.delete(id as string);
		resolve(optionId);
	}

	/**
	 * The "Undo turn" button: rx/session/undoTurn, which reverts the newest
	 * turn of the session not undone yet. Files the user changed since the
	 * turn are skipped: named, with "Undo Anyway" to restore them too.
	 */
	async undoTurn(sessionId: unknown, turn: unknown, force = false): Promise<UndoTurnResult | undefined> {
		if (typeof sessionId !== 'string') return undefined;
		// A second click of an answer's Undo turn would undo an older turn:
		// it says what the first one did instead.
		const button = `${sessionId}\u0000${typeof turn === 'number' ? turn : ''}`;
		const did = this.undone.get(button);
		if (did !== undefined && !force) {
			void vscode.window.showInformationMessage(l10n.t('Reasonix: turn {0} was already undone.', did));
			return undefined;
		}
		let r: UndoTurnResult;
		try {
			r = await this.rx.request<UndoTurnResult>(Method.sessionUndoTurn, force ? { sessionId, force } : { sessionId });
		} catch (err) {
			void vscode.window.showErrorMessage(noIcons(l10n.t('Reasonix: cannot undo the turn: {0}', errorText(err))));
			return undefined;
		}
		if (typeof turn === 'number') this.undone.set(button, r.turn);
		const which = typeof turn === 'number' && turn !== r.turn ? l10n.t('turn {0} (the newest not undone; this answer was turn {1})', r.turn, turn) : l10n.t('turn {0}', r.turn);
		const restored = r.restored.map((p) => path.basename(p));
		if (r.skipped.length === 0) {
			void vscode.window.showInformationMessage(noIcons(l10n.t('Reasonix: undid {0}: restored {1}.', which, restored.join(', ') || l10n.t('nothing'))));
			return r;
		}
		const skipped = r.skipped.map((s) => `${path.basename(s.path)} (${s.reason})`).join(', ');
		const done = restored.length > 0 ? l10n.t('restored {0}; ', restored.join(', ')) : '';
		const pick = await vscode.window.showWarningMessage(noIcons(l10n.t('Reasonix: undid {0} in part: {1}not restored: {2}.', which, done, skipped)), UNDO_ANYWAY);
		if (pick === UNDO_ANYWAY) return this.undoTurn(sessionId, r.turn, true);
		return r;
	}

	dispose(): void {
		for (const s of this.subs) s.dispose();
		this.sessionsChanged.dispose();
	}
}

/** A turn's changed files, as links in its answer. */
export function changedFiles(edits: readonly TurnEdit[]): vscode.MarkdownString {
	const rows = edits.map((e) => {
		const uri = vscode.Uri.file(e.path);
		const name = escapeMarkdown(vscode.workspace.asRelativePath(uri, false));
		return `- [${name}](${uri.toString()})${e.created ? l10n.t(' (new)') : ''}`;
	});
	const md = new vscode.MarkdownString(`\n\n$(diff) **${l10n.t('Changed files')}**\n\n${rows.join('\n')}\n\n`, true);
	return md;
}

export const THINKING = l10n.t('Thinking…');
export const ANSWERING = l10n.t('Answering…');

/** Token counts as usage updates report them. */
export interface Usage {
	promptTokens: number;
	completionTokens: number;
	totalTokens: number;
}

/** A turn's token usage, summed over its model rounds. */
export function usageNote(u: Usage): string {
	return l10n.t('{0} tokens ({1} in, {2} out)', u.totalTokens, u.promptTokens, u.completionTokens);
}

/** VS Code's command that opens the Chat view with a query. */
const CHAT_OPEN_COMMAND = 'workbench.action.chat.open';
/** VS Code's command that starts a new conversation in the Chat view. */
const NEW_CHAT_COMMAND = 'workbench.action.chat.newChat';

export function renderUpdate(u: SessionUpdateBody, sink: TurnSink, tools: Map<string, string>): void {
	// A subagent run's text is its own: only its answer, as the tool result
	// of the call that started it, reaches the session's. Its progress
	// shows, with its tool calls and notices named after it.
	const sub = 'subagent' in u && u.subagent ? u.subagent : undefined;
	switch (u.sessionUpdate) {
		case 'user_message_chunk':
			if (!sub && u.content?.type === 'text' && u.content.text) sink.user?.(u.content.text);
			return;
		case 'agent_message_chunk':
			if (sub) sink.progress(noIcons(l10n.t('{0} is working…', sub.name)));
			else if (u.content?.type === 'text' && u.content.text) sink.markdown(u.content.text);
			return;
		case 'agent_thought_chunk':
			sink.progress(sub ? noIcons(l10n.t('{0} is thinking…', sub.name)) : THINKING);
			return;
		case 'tool_call': {
			const title = (sub ? `${sub.name} › ` : '') + (u.title || l10n.t('a tool call'));
			tools.set(u.toolCallId, title);
			sink.progress(noIcons(l10n.t('Running {0}', title)));
			const plan = planChecklist(u.rawInput);
			sink.line(plan ?? `\n\n$(tools) ${escapeMarkdown(title)}\n\n`);
			return;
		}
		case 'tool_call_update': {
			// Keyed by toolCallId, unique within the session (the model's
			// own ids repeat); the key itself is no name for people.
			const title = tools.get(u.toolCallId) || u.title || l10n.t('a tool call');
			if (u.status === 'completed') {
				sink.line(`$(check) ${l10n.t('{0} done', escapeMarkdown(title))}\n\n`);
				tools.delete(u.toolCallId);
				if (!sub) sink.roundEnded();
			} else if (u.status === 'failed') {
				const why = (u.content ?? []).map((c) => c.content?.text ?? '').filter(Boolean).join(' ');
				sink.line(`$(error) ${why ? l10n.t('{0} failed: {1}', escapeMarkdown(title), escapeMarkdown(why)) : l10n.t('{0} failed', escapeMarkdown(title))}\n\n`);
				tools.delete(u.toolCallId);
				if (!sub) sink.roundEnded();
			} else if (u.status === 'in_progress') {
				sink.progress(noIcons(l10n.t('Running {0}', title)));
			}
			return;
		}
		case 'notice': {
			const icon = u.severity === 'error' ? '$(error)' : u.severity === 'warn' ? '$(warning)' : '$(info)';
			sink.line(`\n\n${icon} ${escapeMarkdown((sub ? `${sub.name}: ` : '') + u.text)}\n\n`);
			return;
		}
		case 'usage':
			if (!sub && u.usage) sink.usage(u.usage);
			return;
		case 'permission': {
			const title = tools.get(u.toolCallId) || l10n.t('a tool call');
			sink.line(`$(shield) ${escapeMarkdown(title)}: ${u.by ? l10n.t('{0} by {1}', u.outcome, escapeMarkdown(u.by)) : u.outcome}\n\n`);
			return;
		}
		default:
			return;
	}
}

/**
 * The agent's plan (its todo_write call: {todos: [{content, status}]}) as
 * a checklist; undefined for any other input.
 */
export function planChecklist(raw: unknown): string | undefined {
	const todos = (raw as { todos?: unknown } | undefined)?.todos;
	if (!Array.isArray(todos) || todos.length === 0) return undefined;
	const rows: string[] = [];
	for (const t of todos) {
		if (!t || typeof t !== 'object' || typeof (t as { content?: unknown }).content !== 'string') return undefined;
		const { content, status } = t as { content: string; status?: string };
		const icon = status === 'completed' ? '$(pass-filled)' : status === 'in_progress' ? '$(circle-large-filled)' : '$(circle-large-outline)';
		const text = escapeMarkdown(noIcons(content.replace(/\s+/g, ' ').trim()));
		rows.push(`- ${icon} ${status === 'completed' ? `~~${text}~~` : status === 'in_progress' ? `**${text}**` : text}`);
	}
	return `\n\n$(checklist) **${escapeMarkdown(l10n.t('Plan'))}**\n\n${rows.join('\n')}\n\n`;
}

/** The command that fixes "no plugins" (setup.ts registers it). */
export const INSTALL_PLUGIN_COMMAND = 'rxBridge.installPlugin';

/** The answer while the bridge has no model: the one step that fixes it, as a button. */
function noModel(stream: vscode.ChatResponseStream, previous: ChatMetadata): vscode.ChatResult {
	stream.markdown(noModelText());
	stream.button({ command: SETUP_MODEL_COMMAND, title: l10n.t('Reasonix: Set Up Model…') });
	return { metadata: previous };
}

/** Says so when a session was reopened in plan mode (left so by an ACP client, say). */
function modeNote(stream: vscode.ChatResponseStream, r: SessionRef): void {
	if (r.mode === 'plan') {
		stream.markdown(new vscode.MarkdownString(`\n\n$(list-ordered) ${l10n.t('This session is in plan mode: the agent reads, searches and plans, and edits nothing. `@reasonix /mode normal` switches it.')}\n\n`, true));
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

/** How long a value of a tool's input is shown before it is cut. */
const SUMMARY_VALUE = 200;

/** A tool's input as key/value rows a person reads (no JSON braces). */
export function inputSummary(raw: unknown): [string, string][] {
	if (raw === undefined || raw === null) return [];
	const show = (v: unknown): string => {
		let t: string;
		if (typeof v === 'string') t = v;
		else if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) t = v.map(String).join(' ');
		else if (typeof v === 'object' && v !== null) t = JSON.stringify(v);
		else t = String(v);
		t = t.replace(/\s+/g, ' ').trim();
		return t.length > SUMMARY_VALUE ? `${t.slice(0, SUMMARY_VALUE)}…` : t;
	};
	if (typeof raw !== 'object' || Array.isArray(raw)) return [['input', show(raw)]];
	return Object.entries(raw as Record<string, unknown>).map(([k, v]) => [k, show(v)]);
}

interface Reference {
	readonly id: string;
	readonly value: unknown;
	readonly range?: [number, number];
}

/**
 * The files and selections attached to a request (`request.references`,
 * `#file`), as the prompt's resources: a file with its text as the editor
 * has it (unsaved changes included), a selection as its lines (the URI
 * names them with #L<first>-<last>), a value with no place as its text.
 * A `#file:<path>` typed in the prompt that VS Code did not turn into a
 * reference is resolved in the workspace. A file too large or not text
 * goes as a link, for the agent's own tools.
 */
export async function attachments(request: vscode.ChatRequest): Promise<PromptResource[]> {
	const out: PromptResource[] = [];
	const seen = new Set<string>();
	const add = (r: PromptResource) => {
		if (seen.has(r.uri)) return;
		seen.add(r.uri);
		out.push(r);
	};
	const refs = (request.references ?? []) as readonly Reference[];
	for (const ref of refs) {
		const v = ref.value;
		if (v instanceof vscode.Uri) {
			add(await fileResource(v));
		} else if (v instanceof vscode.Location) {
			add(await selectionResource(v));
		} else if (typeof v === 'string' && v) {
			add({ uri: `vscode-chat-variable:${ref.id}`, text: v });
		}
	}
	const covered = (at: number) => refs.some((r) => r.range && at >= r.range[0] && at < r.range[1]);
	for (const m of request.prompt.matchAll(/#file:(\S+)/g)) {
		if (covered(m.index ?? 0)) continue;
		const uri = await workspaceFile(m[1]);
		if (uri) add(await fileResource(uri));
	}
	return out;
}

/**
 * The binary data of a chat reference (vscode.ChatReferenceBinaryData: an
 * image pasted or attached in the chat). The class is not in the
 * @types/vscode release the extension builds against, though VS Code hands
 * its instances to every participant; so it is recognised by shape.
 */
interface BinaryData {
	readonly mimeType: string;
	data(): Thenable<Uint8Array>;
}

function isBinaryData(v: unknown): v is BinaryData {
	return typeof v === 'object' && v !== null
		&& typeof (v as BinaryData).mimeType === 'string'
		&& typeof (v as BinaryData).data === 'function';
}

/**
 * The images attached to a request (pasted, dropped or picked into the
 * chat: references whose value is binary data of an image/* type), in
 * order, as the prompt's image blocks. More than MAX_PROMPT_IMAGE_BYTES
 * together fails the request with a message saying so; whether the model
 * takes images at all the bridge decides, naming the model when not.
 */
export async function imageAttachments(request: vscode.ChatRequest): Promise<ImageContent[]> {
	const out: ImageContent[] = [];
	let total = 0;
	for (const ref of (request.references ?? []) as readonly Reference[]) {
		const v = ref.value;
		if (!isBinaryData(v) || !v.mimeType.startsWith('image/')) continue;
		const bytes = await v.data();
		total += bytes.byteLength;
		if (total > MAX_PROMPT_IMAGE_BYTES) {
			throw new Error(l10n.t('the attached images are larger than {0} MiB together; attach fewer or smaller images', MAX_PROMPT_IMAGE_BYTES / (1024 * 1024)));
		}
		out.push({ type: 'image', mimeType: v.mimeType, data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') });
	}
	return out;
}

async function workspaceFile(rel: string): Promise<vscode.Uri | undefined> {
	for (const f of vscode.workspace.workspaceFolders ?? []) {
		const uri = vscode.Uri.joinPath(f.uri, rel);
		try {
			await vscode.workspace.fs.stat(uri);
			return uri;
		} catch {
			// not in this folder
		}
	}
	return undefined;
}

async function fileResource(uri: vscode.Uri): Promise<PromptResource> {
	try {
		const bytes = await vscode.workspace.fs.readFile(uri);
		if (bytes.byteLength > MAX_RESOURCE_TEXT || bytes.includes(0)) return { uri: uri.toString() };
		const doc = await vscode.workspace.openTextDocument(uri);
		return { uri: uri.toString(), text: doc.getText() };
	} catch {
		return { uri: uri.toString() };
	}
}

async function selectionResource(loc: vscode.Location): Promise<PromptResource> {
	const first = loc.range.start.line + 1;
	const last = loc.range.end.line + 1;
	const uri = `${loc.uri.toString()}#L${first}-${last}`;
	try {
		const doc = await vscode.workspace.openTextDocument(loc.uri);
		const text = doc.getText(loc.range);
		return text.length > MAX_RESOURCE_TEXT ? { uri } : { uri, text };
	} catch {
		return { uri };
	}
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
			return l10n.t('Cancelled.');
		case 'max_tokens':
			return l10n.t('Stopped: the model reached its output limit.');
		case 'max_turn_requests':
			return l10n.t('Stopped: the step budget of this turn ran out.');
		default:
			return l10n.t('Stopped: {0}', reason);
	}
}

// Plugin models in VS Code's model list: a LanguageModelChatProvider that
// lists rx/models and answers through rx/lm/chat, streaming rx/lm/chunk.

import * as vscode from 'vscode';
import { l10n } from './l10n';
import type { Token } from './bridge';
import {
	LmChatParams, LmChatResult, LmChunk, Method, ModelInfo, ProviderChunk, ProviderMessage, ProviderToolSchema,
} from './protocol';
import type { Rx } from './rx';
import { errorText } from './ui';

export const VENDOR = 'reasonix';

/**
 * The model listed while the bridge has none: without any model VS Code
 * refuses every chat request before a participant sees it ("Language model
 * unavailable"); with this one, @reasonix answers with the one step that
 * fixes it, and the picker itself says it.
 */
export const SETUP_MODEL_ID = 'reasonix-set-up-a-model';
/** The command that fixes "no model" (setup.ts registers it). */
export const SETUP_MODEL_COMMAND = 'rxBridge.setupModel';

export function noModelText(): string {
	return l10n.t('No model is set up yet. Run "Reasonix: Set Up Model…" (a service such as DeepSeek or OpenAI, or a model server on this machine), then ask again.');
}

export function setupPlaceholder(): vscode.LanguageModelChatInformation {
	return {
		id: SETUP_MODEL_ID,
		name: l10n.t('No model: run Reasonix: Set Up Model…'),
		family: VENDOR,
		version: '1',
		detail: 'rx-bridge',
		tooltip: noModelText(),
		maxInputTokens: 8192,
		maxOutputTokens: 1024,
		// Agent mode lists only models that call tools: it must be there.
		capabilities: { toolCalling: true, imageInput: false },
	};
}

/** Routes rx/lm/chunk notifications to the request that owns them. */
export class ChunkRouter {
	private readonly sinks = new Map<string, (c: ProviderChunk) => void>();

	constructor(rx: Rx) {
		rx.bridge.handlers.onNotification(Method.lmChunk, (p: LmChunk) => {
			if (p && typeof p.requestId === 'string' && p.chunk) this.sinks.get(p.requestId)?.(p.chunk);
		});
	}

	listen(requestId: string, sink: (c: ProviderChunk) => void): vscode.Disposable {
		this.sinks.set(requestId, sink);
		return new vscode.Disposable(() => { this.sinks.delete(requestId); });
	}
}

let requestCounter = 0;

export function nextRequestId(): string {
	return `vscode-lm-${process.pid}-${++requestCounter}`;
}

export class LanguageModels implements vscode.LanguageModelChatProvider, vscode.Disposable {
	private readonly emitter = new vscode.EventEmitter<void>();
	readonly onDidChangeLanguageModelChatInformation = this.emitter.event;
	private readonly sub: { dispose(): void };

	constructor(private readonly rx: Rx, private readonly chunks: ChunkRouter) {
		this.sub = rx.onDidReload(() => this.emitter.fire());
	}

	async provideLanguageModelChatInformation(
		_options: vscode.PrepareLanguageModelChatModelOptions,
		token: vscode.CancellationToken,
	): Promise<vscode.LanguageModelChatInformation[]> {
		let models: ModelInfo[];
		try {
			models = (await this.rx.models(token)).models ?? [];
		} catch {
			models = [];
		}
		return models.length > 0 ? models.map(modelInformation) : [setupPlaceholder()];
	}

	async provideLanguageModelChatResponse(
		model: vscode.LanguageModelChatInformation,
		messages: readonly vscode.LanguageModelChatRequestMessage[],
		options: vscode.ProvideLanguageModelChatResponseOptions,
		progress: vscode.Progress<vscode.LanguageModelResponsePart>,
		token: vscode.CancellationToken,
	): Promise<void> {
		if (model.id === SETUP_MODEL_ID) throw new Error(noModelText());
		const mo = options.modelOptions ?? {};
		const params: LmChatParams = {
			requestId: nextRequestId(),
			model: model.id,
			effort: typeof mo.effort === 'string' ? mo.effort : '',
			messages: toProviderMessages(messages),
			tools: (options.tools ?? []).map(toToolSchema),
			maxTokens: typeof mo.maxTokens === 'number' ? mo.maxTokens : 0,
		};
		await streamChat(this.rx, this.chunks, params, progress, token);
	}

	async provideTokenCount(
		_model: vscode.LanguageModelChatInformation,
		text: string | vscode.LanguageModelChatRequestMessage,
	): Promise<number> {
		const s = typeof text === 'string' ? text : toProviderMessages([text]).map((m) => m.content ?? '').join('\n');
		return Math.ceil(s.length / 4);
	}

	dispose(): void {
		this.sub.dispose();
		this.emitter.dispose();
	}
}

/** Runs one rx/lm/chat, reporting chunks as they come; the final result fills in what was not streamed. */
export async function streamChat(
	rx: Rx,
	chunks: ChunkRouter,
	params: LmChatParams,
	progress: vscode.Progress<vscode.LanguageModelResponsePart>,
	token: vscode.CancellationToken,
): Promise<LmChatResult> {
	let streamedText = false;
	const streamedCalls = new Set<string>();
	let cancelled = false;
	const sink = chunks.listen(params.requestId, (c) => {
		if (cancelled) return;
		if (c.type === 'text' && c.text) {
			streamedText = true;
			progress.report(new vscode.LanguageModelTextPart(c.text));
		} else if (c.type === 'tool_call' && c.toolCall) {
			streamedCalls.add(c.toolCall.id);
			progress.report(new vscode.LanguageModelToolCallPart(c.toolCall.id, c.toolCall.name, parseArgs(c.toolCall.arguments)));
		}
	});
	const cancelSub = token.onCancellationRequested(() => { cancelled = true; });
	try {
		const r = await rx.request<LmChatResult>(Method.lmChat, params, token as Token);
		if (token.isCancellationRequested) throw new vscode.CancellationError();
		if (!streamedText && r.text) progress.report(new vscode.LanguageModelTextPart(r.text));
		for (const tc of r.toolCalls ?? []) {
			if (!streamedCalls.has(tc.id)) progress.report(new vscode.LanguageModelToolCallPart(tc.id, tc.name, parseArgs(tc.arguments)));
		}
		return r;
	} catch (err) {
		if (token.isCancellationRequested) throw new vscode.CancellationError();
		throw new Error(l10n.t('Reasonix: {0}: {1}', params.model, errorText(err)));
	} finally {
		cancelSub.dispose();
		sink.dispose();
	}
}

export function modelInformation(m: ModelInfo): vscode.LanguageModelChatInformation {
	const ctx = m.contextWindow && m.contextWindow > 0 ? m.contextWindow : 8192;
	return {
		id: m.ref,
		name: m.displayName || m.ref,
		family: m.origin?.id || m.ref.split('/').slice(0, -1).join('/') || VENDOR,
		version: '1',
		detail: m.origin?.kind === 'plugin' ? `plugin ${m.origin.id ?? ''}`.trim() : 'rx-bridge',
		tooltip: m.ref,
		maxInputTokens: ctx,
		maxOutputTokens: Math.max(1024, Math.floor(ctx / 4)),
		capabilities: { toolCalling: !!m.tools, imageInput: !!m.vision },
	};
}

function parseArgs(s: string | undefined): object {
	if (!s) return {};
	try {
		const v = JSON.parse(s);
		return v && typeof v === 'object' ? v : { value: v };
	} catch {
		return { arguments: s };
	}
}

function toToolSchema(t: vscode.LanguageModelChatTool): ProviderToolSchema {
	return {
		name: t.name,
		description: t.description,
		parameters: t.inputSchema ?? { type: 'object', properties: {} },
	};
}

const ROLE_SYSTEM = 3;

/** VS Code messages as the extension protocol's ProviderMessage list. */
export function toProviderMessages(messages: readonly vscode.LanguageModelChatRequestMessage[]): ProviderMessage[] {
	const out: ProviderMessage[] = [];
	for (const m of messages) {
		const texts: string[] = [];
		const calls: NonNullable<ProviderMessage['tool_calls']> = [];
		const results: ProviderMessage[] = [];
		for (const part of m.content) {
			if (part instanceof vscode.LanguageModelTextPart) {
				texts.push(part.value);
			} else if (part instanceof vscode.LanguageModelToolCallPart) {
				calls.push({ id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) });
			} else if (part instanceof vscode.LanguageModelToolResultPart) {
				results.push({ role: 'tool', tool_call_id: part.callId, content: resultText(part.content) });
			}
		}
		const role: ProviderMessage['role'] = m.role === vscode.LanguageModelChatMessageRole.Assistant
			? 'assistant'
			: (m.role as number) === ROLE_SYSTEM ? 'system' : 'user';
		out.push(...results);
		if (texts.length > 0 || calls.length > 0) {
			const msg: ProviderMessage = { role, content: texts.join('') };
			if (m.name) msg.name = m.name;
			if (calls.length > 0) msg.tool_calls = calls;
			out.push(msg);
		}
	}
	return out;
}

function resultText(content: readonly unknown[]): string {
	return content.map((c) => {
		if (c instanceof vscode.LanguageModelTextPart) return c.value;
		if (typeof c === 'string') return c;
		try {
			return JSON.stringify(c);
		} catch {
			return String(c);
		}
	}).join('');
}

// Review of agent edits (EDITOR_PROTOCOL.md §6). An edit the approval
// mode asks about arrives as a workspace/applyEdit whose changes carry a
// change annotation that needs confirmation. VS Code's Refactor Preview,
// which would show it, starts every such change unticked and takes the
// focus from the chat: its obvious click, Apply, applied nothing and told
// the agent the edit was rejected. It is asked here instead, where the
// turn runs: in the chat response, the file and its changes as a diff,
// with Accept (everything shown), Reject, Choose Changes… (a list of the
// changes, every one ticked: untick what to leave out) and Show Diff (a
// diff editor that does not take the focus). Only what was accepted is
// applied; nothing accepted answers applied false (the user rejected it).

import * as path from 'node:path';
import * as vscode from 'vscode';
import { l10n } from './l10n';
import type { VirtualDocs } from './docs';
import { escapeMarkdown, noIcons } from './text';

/** The command of the review buttons: (review id, answer). */
export const REVIEW_COMMAND = 'rxBridge.review';

export interface LspPosition { line: number; character: number }
export interface LspRange { start: LspPosition; end: LspPosition }
export interface LspTextEdit { range: LspRange; newText: string; annotationId?: string }
export interface LspTextDocumentEdit { textDocument: { uri: string; version?: number | null }; edits: LspTextEdit[] }
export interface LspResourceOperation { kind: 'create' | 'rename' | 'delete'; uri?: string; oldUri?: string; newUri?: string; annotationId?: string; options?: unknown }
export type LspDocumentChange = LspTextDocumentEdit | LspResourceOperation;
export interface LspChangeAnnotation { label: string; needsConfirmation?: boolean; description?: string }
export interface LspWorkspaceEdit {
	changes?: Record<string, LspTextEdit[]>;
	documentChanges?: LspDocumentChange[];
	changeAnnotations?: Record<string, LspChangeAnnotation>;
}
export interface ApplyEditParams { label?: string; edit: LspWorkspaceEdit }
export interface ApplyEditResult { applied: boolean; failureReason?: string; failedChange?: number }
/** Applies an edit as the language client does (no review left in it). */
export type ApplyNext = (p: ApplyEditParams) => Promise<ApplyEditResult>;

/** Where a review is asked: the response of the chat turn that runs. */
export interface ReviewSink {
	/** Markdown with $(icons); text in it is escaped by the caller. */
	line(md: string): void;
	button(c: vscode.Command): void;
	/** Settles when the turn has ended: a review still open is withdrawn. */
	readonly ended?: Promise<void>;
}

/** One change of a reviewed edit. */
export interface Hunk {
	/** Index in documentChanges of its TextDocumentEdit (or resource operation). */
	change: number;
	/** Index in that TextDocumentEdit's edits; -1 for a resource operation. */
	edit: number;
	uri: string;
	/** The lines it replaces and the lines it puts there. */
	oldText: string;
	newText: string;
	/** 1-based line where it starts. */
	line: number;
}

type Answer = { kind: 'accept' } | { kind: 'reject' } | { kind: 'some'; keep: Set<number> };
/** An answer of the list; cancelled: Escape. */
type Picked = Answer & { cancelled?: boolean };

/** Shown lines of one change in the chat; the diff editor has all of it. */
const SHOWN_LINES = 12;

export function isReview(edit: LspWorkspaceEdit | undefined): boolean {
	return Object.values(edit?.changeAnnotations ?? {}).some((a) => a?.needsConfirmation === true);
}

function isTextDocumentEdit(c: LspDocumentChange): c is LspTextDocumentEdit {
	return (c as LspTextDocumentEdit).textDocument !== undefined;
}

/** A string offset of an LSP position (UTF-16, as JavaScript strings are). */
export function offsetAt(text: string, p: LspPosition): number {
	let off = 0;
	for (let line = 0; line < p.line; line++) {
		const nl = text.indexOf('\n', off);
		if (nl < 0) return text.length;
		off = nl + 1;
	}
	const eol = text.indexOf('\n', off);
	const end = eol < 0 ? text.length : eol;
	return Math.min(off + p.character, end);
}

/** text with the edits applied (LSP edits all refer to the original text). */
export function applyTextEdits(text: string, edits: readonly LspTextEdit[]): string {
	const spans = edits.map((e) => ({ from: offsetAt(text, e.range.start), to: offsetAt(text, e.range.end), text: e.newText }));
	spans.sort((a, b) => b.from - a.from || b.to - a.to);
	let out = text;
	for (const s of spans) out = out.slice(0, s.from) + s.text + out.slice(s.to);
	return out;
}

/** The changes of a reviewed edit, in order, with the text they replace. */
export function hunks(edit: LspWorkspaceEdit, texts: ReadonlyMap<string, string>): Hunk[] {
	const out: Hunk[] = [];
	const changes = edit.documentChanges ?? [];
	const withText = new Set(changes.filter(isTextDocumentEdit).filter((c) => c.edits.length > 0).map((c) => c.textDocument.uri));
	changes.forEach((c, i) => {
		if (isTextDocumentEdit(c)) {
			const text = texts.get(c.textDocument.uri) ?? '';
			c.edits.forEach((e, j) => {
				out.push({
					change: i, edit: j, uri: c.textDocument.uri,
					oldText: text.slice(offsetAt(text, e.range.start), offsetAt(text, e.range.end)),
					newText: e.newText,
					line: e.range.start.line + 1,
				});
			});
		} else {
			const uri = c.uri ?? c.oldUri ?? '';
			// A file created with text is reviewed by its text.
			if (!withText.has(uri)) out.push({ change: i, edit: -1, uri, oldText: '', newText: '', line: 1 });
		}
	});
	return out;
}

/**
 * The edit with only the kept changes, their annotations dropped (so it
 * lands without another review); undefined when nothing is kept. A file's
 * creation stays when any of its changes does.
 */
export function keepOnly(edit: LspWorkspaceEdit, all: readonly Hunk[], keep: ReadonlySet<number>): LspWorkspaceEdit | undefined {
	const kept = all.filter((_, i) => keep.has(i));
	if (kept.length === 0) return undefined;
	const keptUris = new Set(kept.map((h) => h.uri));
	const changes: LspDocumentChange[] = [];
	(edit.documentChanges ?? []).forEach((c, i) => {
		if (isTextDocumentEdit(c)) {
			const edits = c.edits
				.filter((_, j) => kept.some((h) => h.change === i && h.edit === j))
				.map((e) => ({ range: e.range, newText: e.newText }));
			if (edits.length > 0) changes.push({ textDocument: c.textDocument, edits });
			return;
		}
		const uri = c.uri ?? c.oldUri ?? '';
		if (keptUris.has(uri)) {
			const { annotationId: _drop, ...op } = c;
			changes.push(op as LspResourceOperation);
		}
	});
	return { documentChanges: changes };
}

function fileName(uri: string): string {
	try {
		const u = vscode.Uri.parse(uri);
		const rel = vscode.workspace.asRelativePath(u, false);
		return rel || path.basename(u.path);
	} catch {
		return uri;
	}
}

/** A fenced diff block of a change, with a fence no line of it can close. */
function diffBlock(h: Hunk): string {
	const cut = (lines: string[], sign: string) => {
		const shown = lines.slice(0, SHOWN_LINES).map((l) => `${sign} ${noIcons(l)}`);
		if (lines.length > SHOWN_LINES) shown.push(`${sign} ${l10n.t('… ({0} more lines)', lines.length - SHOWN_LINES)}`);
		return shown;
	};
	const lines = (t: string) => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));
	const body = [...cut(lines(h.oldText), '-'), ...cut(lines(h.newText), '+')];
	let fence = '```';
	while (body.some((l) => l.includes(fence))) fence += '`';
	return `${fence}diff\n${body.join('\n')}\n${fence}`;
}

/** A change in one line, for the list of Choose Changes…. */
function hunkLabel(h: Hunk): { label: string; description: string } {
	const first = (t: string) => t.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
	const clip = (t: string) => (t.length > 60 ? `${t.slice(0, 60)}…` : t);
	if (h.edit < 0) return { label: noIcons(l10n.t('Create {0}', fileName(h.uri))), description: '' };
	const was = clip(first(h.oldText));
	const now = clip(first(h.newText));
	const what = was && now ? `${was} → ${now}` : now ? `+ ${now}` : `− ${was}`;
	return { label: noIcons(what), description: noIcons(l10n.t('{0}, line {1}', fileName(h.uri), h.line)) };
}

export class EditReview implements vscode.Disposable {
	private counter = 0;
	/** Open reviews: their clicks not taken yet, and who waits for one. */
	private readonly pending = new Map<string, { clicks: string[]; wake?: () => void }>();
	/** Reviews answered: what a click on one of their buttons says now. */
	private readonly answered = new Map<string, string>();
	private readonly subs: vscode.Disposable[] = [];

	constructor(private readonly sink: () => ReviewSink | undefined, private readonly docs: VirtualDocs) {
		this.subs.push(vscode.commands.registerCommand(REVIEW_COMMAND, (id: unknown, answer: unknown) => this.click(id, answer)));
	}

	/** workspace/applyEdit: an edit that needs confirmation is reviewed, anything else applied. */
	async handle(params: ApplyEditParams, next: ApplyNext): Promise<ApplyEditResult> {
		if (!isReview(params?.edit) || !params.edit.documentChanges) return next(params);
		const edit = params.edit;
		const texts = new Map<string, string>();
		for (const c of edit.documentChanges ?? []) {
			if (isTextDocumentEdit(c) && !texts.has(c.textDocument.uri)) texts.set(c.textDocument.uri, await currentText(c.textDocument.uri));
		}
		const all = hunks(edit, texts);
		const sink = this.sink();
		const answer = sink ? await this.askInChat(sink, edit, all, texts) : await this.askInPicker(all);
		const keep = answer.kind === 'accept' ? new Set(all.map((_, i) => i)) : answer.kind === 'some' ? answer.keep : new Set<number>();
		const files = [...new Set(all.map((h) => fileName(h.uri)))].join(', ');
		const filtered = keepOnly(edit, all, keep);
		if (!filtered) {
			sink?.line(`$(close) ${escapeMarkdown(noIcons(l10n.t('Rejected the change to {0}.', files)))}\n\n`);
			return { applied: false, failureReason: 'the user rejected the edit' };
		}
		const r = await next({ label: params.label, edit: filtered });
		if (!r.applied) {
			sink?.line(`$(error) ${escapeMarkdown(noIcons(l10n.t('The change to {0} could not be applied: {1}', files, r.failureReason ?? l10n.t('no reason given'))))}\n\n`);
		} else if (keep.size === all.length) {
			sink?.line(`$(check) ${escapeMarkdown(noIcons(l10n.t('Accepted the change to {0}.', files)))}\n\n`);
		} else {
			sink?.line(`$(check) ${escapeMarkdown(noIcons(l10n.t('Accepted {0} of {1} changes to {2}.', keep.size, all.length, files)))}\n\n`);
		}
		return r;
	}

	/** In the chat response: the diff, and Accept / Reject / Choose Changes… / Show Diff. */
	private async askInChat(sink: ReviewSink, edit: LspWorkspaceEdit, all: Hunk[], texts: ReadonlyMap<string, string>): Promise<Answer> {
		const id = `r${++this.counter}`;
		const uris = [...new Set(all.map((h) => h.uri))];
		const lines = [`\n\n$(diff) **${escapeMarkdown(noIcons(l10n.t('Reasonix wants to change {0}', uris.map(fileName).join(', '))))}**`];
		for (const uri of uris) {
			const mine = all.filter((h) => h.uri === uri);
			if (uris.length > 1) lines.push('', `**${escapeMarkdown(noIcons(fileName(uri)))}**`);
			for (const h of mine) {
				if (h.edit < 0) lines.push('', escapeMarkdown(noIcons(l10n.t('Create {0}', fileName(uri)))));
				else lines.push('', escapeMarkdown(l10n.t('Line {0}:', h.line)), '', diffBlock(h));
			}
		}
		sink.line(lines.join('\n') + '\n\n');
		this.pending.set(id, { clicks: [] });
		sink.button({ command: REVIEW_COMMAND, title: l10n.t('Accept'), arguments: [id, 'accept'] });
		sink.button({ command: REVIEW_COMMAND, title: l10n.t('Reject'), arguments: [id, 'reject'] });
		if (all.length > 1) sink.button({ command: REVIEW_COMMAND, title: l10n.t('Choose Changes…'), arguments: [id, 'choose'] });
		sink.button({ command: REVIEW_COMMAND, title: l10n.t('Show Diff'), arguments: [id, 'diff'] });
		try {
			for (;;) {
				const a = await Promise.race([this.nextClick(id), sink.ended?.then(() => 'ended') ?? new Promise<string>(() => {})]);
				// The turn ended (cancelled) before an answer: nothing is applied.
				if (a === 'ended') return this.done(id, { kind: 'reject' }, l10n.t('Reasonix: this change was withdrawn: its turn ended.'));
				if (a === 'accept') return this.done(id, { kind: 'accept' }, l10n.t('Reasonix: this change was already accepted.'));
				if (a === 'reject') return this.done(id, { kind: 'reject' }, l10n.t('Reasonix: this change was already rejected.'));
				if (a === 'choose') {
					const chosen = await this.askInPicker(all, true);
					if (!chosen.cancelled) return this.done(id, chosen, l10n.t('Reasonix: this change was already answered.'));
				}
				if (a === 'diff') await this.showDiff(id, edit, all, texts);
			}
		} finally {
			this.pending.delete(id);
		}
	}

	/** The next button click of review id. */
	private nextClick(id: string): Promise<string> {
		const q = this.pending.get(id)!;
		const a = q.clicks.shift();
		if (a !== undefined) return Promise.resolve(a);
		return new Promise((resolve) => {
			q.wake = () => {
				q.wake = undefined;
				resolve(q.clicks.shift()!);
			};
		});
	}

	private done(id: string, answer: Answer, outcome: string): Answer {
		this.answered.set(id, outcome);
		return answer;
	}

	/** A review button: a click of an answered review says so and does nothing else. */
	private click(id: unknown, answer: unknown): void {
		if (typeof id !== 'string' || typeof answer !== 'string') return;
		const q = this.pending.get(id);
		const outcome = this.answered.get(id);
		if (!q || outcome !== undefined) {
			void vscode.window.showInformationMessage(outcome ?? l10n.t('Reasonix: this change was already answered.'));
			return;
		}
		q.clicks.push(answer);
		q.wake?.();
	}

	/** A list of the changes, each ticked: untick what to leave out. Escape rejects (or, from the chat, goes back to it). */
	private async askInPicker(all: Hunk[], fromChat = false): Promise<Picked> {
		const items = all.map((h, i) => ({ ...hunkLabel(h), picked: true, index: i }));
		const files = [...new Set(all.map((h) => fileName(h.uri)))].join(', ');
		const picked = await vscode.window.showQuickPick(items, {
			title: noIcons(l10n.t('Reasonix wants to change {0}', files)),
			placeHolder: fromChat
				? l10n.t('Untick the changes to leave out, then press Enter (Escape: back to the chat)')
				: l10n.t('Untick the changes to leave out, then press Enter (Escape rejects them all)'),
			canPickMany: true,
			ignoreFocusOut: true,
		});
		if (!picked) return { kind: 'reject', cancelled: true };
		if (picked.length === 0) return { kind: 'reject' };
		if (picked.length === all.length) return { kind: 'accept' };
		return { kind: 'some', keep: new Set(picked.map((p) => p.index)) };
	}

	/** Each file's diff (now → proposed) in a diff editor that leaves the focus where it is. */
	private async showDiff(id: string, edit: LspWorkspaceEdit, all: Hunk[], texts: ReadonlyMap<string, string>): Promise<void> {
		for (const uri of [...new Set(all.map((h) => h.uri))]) {
			const c = (edit.documentChanges ?? []).find((x): x is LspTextDocumentEdit => isTextDocumentEdit(x) && x.textDocument.uri === uri);
			const before = texts.get(uri) ?? '';
			const after = c ? applyTextEdits(before, c.edits) : before;
			const name = path.basename(vscode.Uri.parse(uri).path);
			const left = texts.has(uri) && before !== '' ? vscode.Uri.parse(uri) : this.docs.set(`/review/${id}/before/${name}`, before);
			const right = this.docs.set(`/review/${id}/proposed/${name}`, after);
			await vscode.commands.executeCommand('vscode.diff', left, right, noIcons(l10n.t('{0} (proposed by Reasonix)', fileName(uri))), { preserveFocus: true, preview: true });
		}
	}

	dispose(): void {
		for (const s of this.subs) s.dispose();
	}
}

async function currentText(uri: string): Promise<string> {
	try {
		return (await vscode.workspace.openTextDocument(vscode.Uri.parse(uri))).getText();
	} catch {
		return '';
	}
}

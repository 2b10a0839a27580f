// Plugin text is shown as plain text (EDITOR_PROTOCOL.md preamble): these
// helpers keep VS Code from reading anything into it.
import { l10n } from './l10n';

/** Breaks `$(icon)` syntax, which labels, status items and messages render. */
export function noIcons(s: string | undefined): string {
	return (s ?? '').replace(/\$\(/g, '$\u200b(');
}

/** Escapes every Markdown metacharacter, so the text renders as typed. */
export function escapeMarkdown(s: string | undefined): string {
	return (s ?? '').replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, '\\$&');
}

/**
 * Makes plugin Markdown safe for VS Code's renderers: no raw HTML (every `<`
 * outside code becomes text) and no `command:` links. Inside code, where
 * Markdown shows `<` as typed, it is left alone, so `a < b` in a code span
 * or fenced block does not read `a &lt; b`. Only code no CommonMark parser
 * (nor the preview's math) could read otherwise counts as code: a fenced
 * block whose fence starts the line, and a code span closed on its own
 * line, its opening backtick not escaped, holding no `|` (a table cell
 * boundary), in a paragraph that has not yet had a backtick run left open,
 * a link's `](`, a possible reference definition or a `$`. Anything else
 * is escaped as text. A fence left open is closed, so what follows the
 * plugin's Markdown is not swallowed by it.
 */
export function safeMarkdown(s: string | undefined): string {
	const out: string[] = [];
	let fence: { ch: string; len: number } | undefined;
	let tainted = false; // this paragraph can no longer hold a code span we are sure of
	for (const line of (s ?? '').split(/\r\n?|\n/)) {
		if (fence) {
			const close = /^ {0,3}(`+|~+)[ \t]*$/.exec(line);
			if (close && close[1][0] === fence.ch && close[1].length >= fence.len) fence = undefined;
			out.push(line);
			continue;
		}
		const open = /^(`{3,}|~{3,})(.*)$/.exec(line);
		if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
			fence = { ch: open[1][0], len: open[1].length };
			tainted = false;
			out.push(line.slice(0, open[1].length) + textOnly(open[2]));
			continue;
		}
		if (line.trim() === '') tainted = false;
		if (/^ {0,3}\[/.test(line)) tainted = true;
		const safe = inlineSafe(line, tainted);
		out.push(safe.text);
		tainted = safe.tainted;
	}
	if (fence) out.push(fence.ch.repeat(fence.len));
	return out.join('\n');
}

/**
 * One line outside fences: code spans kept as typed, the rest made text;
 * tainted says whether the paragraph is, after this line.
 */
function inlineSafe(line: string, tainted: boolean): { text: string; tainted: boolean } {
	let text = '';
	let from = 0;
	for (let i = 0; i < line.length; ) {
		if (line[i] !== '`') {
			if (line[i] === '$' || line.startsWith('](', i)) tainted = true;
			i++;
			continue;
		}
		let slashes = 0;
		while (line[i - 1 - slashes] === '\\') slashes++;
		if (slashes % 2 === 1) {
			i++; // an escaped backtick; the rest of its run may still open a span
			continue;
		}
		let n = 1;
		while (line[i + n] === '`') n++;
		const end = closingRun(line, i + n, n);
		if (end < 0) tainted = true; // it may close on a later line
		if (tainted || end < 0 || line.slice(i, end).includes('|')) {
			i += n;
			continue;
		}
		text += textOnly(line.slice(from, i)) + line.slice(i, end + n);
		i = from = end + n;
	}
	return { text: text + textOnly(line.slice(from)), tainted };
}

/** Where the next run of exactly n backticks starts at or after i, or -1. */
function closingRun(line: string, i: number, n: number): number {
	while ((i = line.indexOf('`', i)) >= 0) {
		let m = 1;
		while (line[i + m] === '`') m++;
		if (m === n) return i;
		i += m;
	}
	return -1;
}

function textOnly(s: string): string {
	return s
		.replace(/</g, '&lt;')
		.replace(/\]\(\s*<?\s*command:/gi, '](#blocked-command:')
		.replace(/^(\[[^\]]*\]:\s*)command:/gim, '$1#blocked-command:');
}

/** "3 min ago" for an RFC 3339 time, "" when it cannot be read. */
export function ago(stamp: string | undefined, now = Date.now()): string {
	const t = stamp ? Date.parse(stamp) : NaN;
	if (!Number.isFinite(t)) return '';
	const s = Math.max(0, Math.floor((now - t) / 1000));
	if (s < 60) return l10n.t('just now');
	if (s < 3600) return l10n.t('{0} min ago', Math.floor(s / 60));
	if (s < 86400) return l10n.t('{0} h ago', Math.floor(s / 3600));
	const d = Math.floor(s / 86400);
	return d === 1 ? l10n.t('1 day ago') : l10n.t('{0} days ago', d);
}

export function percent(progress: number | null | undefined): string | undefined {
	if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
	const p = Math.max(0, Math.min(1, progress));
	return `${Math.round(p * 100)}%`;
}

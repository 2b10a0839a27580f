// Plugin text is shown as plain text (EDITOR_PROTOCOL.md preamble): these
// helpers keep VS Code from reading anything into it.

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
 * becomes text) and no `command:` links.
 */
export function safeMarkdown(s: string | undefined): string {
	return (s ?? '')
		.replace(/</g, '&lt;')
		.replace(/\]\(\s*<?\s*command:/gi, '](#blocked-command:')
		.replace(/^(\[[^\]]*\]:\s*)command:/gim, '$1#blocked-command:');
}

export function percent(progress: number | null | undefined): string | undefined {
	if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
	const p = Math.max(0, Math.min(1, progress));
	return `${Math.round(p * 100)}%`;
}

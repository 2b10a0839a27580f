// The extension's strings: vscode.l10n (VS Code's display language, the
// bundles in l10n/), unless the rxBridge.language setting names a language:
// then that language's bundle, read here. Every user-visible string of src/
// goes through l10n.t('…') with a literal message (test/l10n.test.ts checks
// that each one has its zh-cn translation).

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

let bundle: Record<string, string> | undefined;

/** Loads the bundle of rxBridge.language ('auto' or '': VS Code's own l10n). */
export function useLanguage(extensionPath: string, language: string | undefined): void {
	bundle = undefined;
	const lang = (language ?? '').trim().toLowerCase();
	if (!lang || lang === 'auto') return;
	if (lang === 'en') {
		bundle = {};
		return;
	}
	try {
		bundle = JSON.parse(fs.readFileSync(path.join(extensionPath, 'l10n', `bundle.l10n.${lang}.json`), 'utf8'));
	} catch {
		bundle = undefined;
	}
}

function format(message: string, args: unknown[]): string {
	return message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
}

export const l10n = {
	t(message: string, ...args: (string | number | boolean)[]): string {
		if (!bundle) return vscode.l10n.t(message, ...args);
		return format(bundle[message] ?? message, args);
	},
};

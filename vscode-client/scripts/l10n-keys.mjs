// Prints, as a sorted JSON object, every l10n.t('…') message of src/ (the
// English bundle's keys and values): the zh-cn bundle must have each one
// (test/l10n.test.ts). Usage: node scripts/l10n-keys.mjs
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The literal first arguments of l10n.t( in a TypeScript source. */
export function messages(src) {
	const out = [];
	const re = /\bl10n\.t\(\s*(['"])((?:\\.|(?!\1)[^\\\n])*)\1\s*[,)]/g;
	for (const m of src.matchAll(re)) out.push(JSON.parse(`"${m[2].replace(/\\'/g, "'").replace(/"/g, '\\"').replace(/\\\\"/g, '\\"')}"`));
	return out;
}

/** Calls whose first argument is not a single literal (not checkable). */
export function dynamicCalls(src) {
	return [...src.matchAll(/\bl10n\.t\(\s*(?!['"])/g)].length;
}

export function srcMessages(dir) {
	const all = new Set();
	for (const f of readdirSync(dir)) {
		if (!f.endsWith('.ts') || f === 'l10n.ts') continue;
		for (const m of messages(readFileSync(join(dir, f), 'utf8'))) all.add(m);
	}
	return [...all].sort();
}

if (process.argv[1] && process.argv[1].endsWith('l10n-keys.mjs')) {
	const keys = srcMessages(new URL('../src', import.meta.url).pathname);
	process.stdout.write(JSON.stringify(Object.fromEntries(keys.map((k) => [k, k])), null, '\t') + '\n');
}

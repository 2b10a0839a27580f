// Every user-visible string of the extension has its Simplified Chinese
// text: the vscode.l10n.t messages of src/ in l10n/bundle.l10n.zh-cn.json,
// the %placeholders% of package.json in package.nls.json and
// package.nls.zh-cn.json. Each file's keys are sorted.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const CLIENT = path.resolve(__dirname, '..', '..');
const read = (f: string) => JSON.parse(fs.readFileSync(path.join(CLIENT, f), 'utf8')) as Record<string, string>;

/** The message literals of vscode.l10n.t('…') calls in a source text. */
export function messages(src: string): string[] {
	const out: string[] = [];
	for (const m of src.matchAll(/l10n\.t\(\s*'((?:[^'\\]|\\.)*)'/g)) out.push(m[1].replace(/\\(.)/g, '$1'));
	return out;
}

function sorted(keys: string[]): boolean {
	return keys.every((k, i) => i === 0 || keys[i - 1] < k);
}

describe('localisation', () => {
	it('translates every vscode.l10n.t message of src/ into Simplified Chinese', () => {
		const zh = read('l10n/bundle.l10n.zh-cn.json');
		const src = path.join(CLIENT, 'src');
		const missing: string[] = [];
		for (const f of fs.readdirSync(src).filter((f) => f.endsWith('.ts'))) {
			for (const m of messages(fs.readFileSync(path.join(src, f), 'utf8'))) {
				if (!zh[m]?.trim()) missing.push(`${f}: ${m}`);
			}
		}
		assert.deepEqual(missing, []);
		assert.ok(sorted(Object.keys(zh)), 'the bundle\'s keys are sorted');
		for (const [en, t] of Object.entries(zh)) {
			const want = (en.match(/\{\d+\}/g) ?? []).sort();
			assert.deepEqual((t.match(/\{\d+\}/g) ?? []).sort(), want, `the placeholders of ${en}`);
		}
	});

	it('has an English and a Chinese text for every %placeholder% of package.json', () => {
		const pkg = fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8');
		assert.equal(JSON.parse(pkg).l10n, './l10n');
		const keys = [...pkg.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]);
		assert.ok(keys.length > 0);
		for (const f of ['package.nls.json', 'package.nls.zh-cn.json']) {
			const nls = read(f);
			assert.deepEqual(keys.filter((k) => !nls[k]?.trim()), [], `${f} lacks keys`);
			assert.ok(sorted(Object.keys(nls)), `${f}'s keys are sorted`);
		}
	});
});

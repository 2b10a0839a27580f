// Localisation: every l10n.t('…') message of src/ has its zh-cn translation
// (l10n/bundle.l10n.zh-cn.json), with the same {n} placeholders; every
// %key% of package.json is in package.nls.json and package.nls.zh-cn.json;
// the files stay sorted by key (merges); rxBridge.language switches l10n.t.
import './support/setup';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { l10n, useLanguage } from '../src/l10n';
import { uiLanguage } from '../src/lspTransport';
import { env, fake } from './support/vscode';

const CLIENT = path.resolve(__dirname, '..', '..');
const SRC = path.join(CLIENT, 'src');

/** The literal first arguments of l10n.t( in a source (single or double quotes). */
export function messages(src: string): string[] {
	const out: string[] = [];
	const re = /\bl10n\.t\(\s*(['"])((?:\\.|(?!\1)[^\\\n])*)\1\s*[,)]/g;
	for (const m of src.matchAll(re)) {
		// The literal's escapes as JavaScript reads them.
		out.push(m[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c)));
	}
	return out;
}

function sources(): [string, string][] {
	return fs.readdirSync(SRC).filter((f) => f.endsWith('.ts') && f !== 'l10n.ts').map((f) => [f, fs.readFileSync(path.join(SRC, f), 'utf8')]);
}

function placeholders(s: string): string {
	return [...s.matchAll(/\{\d+\}/g)].map((m) => m[0]).sort().join(',');
}

function readJson(rel: string): Record<string, string> {
	return JSON.parse(fs.readFileSync(path.join(CLIENT, rel), 'utf8'));
}

describe('localisation', () => {
	it('the scanner finds the messages of l10n.t calls', () => {
		assert.deepEqual(messages(`a(l10n.t('One {0}', x)); b(l10n.t("it's"), l10n.t('don\\'t'));`), ['One {0}', "it's", "don't"]);
	});

	it('every l10n.t message of src/ is a literal with a zh-cn translation', () => {
		const zh = readJson('l10n/bundle.l10n.zh-cn.json');
		const missing: string[] = [];
		const wrong: string[] = [];
		let n = 0;
		for (const [file, src] of sources()) {
			const dynamic = [...src.matchAll(/\bl10n\.t\(\s*(?!['"])/g)].length;
			assert.equal(dynamic, 0, `${file}: l10n.t called with a message that is not a string literal`);
			assert.doesNotMatch(src, /vscode\.l10n\.t\(/, `${file}: call l10n.t of ./l10n (rxBridge.language), not vscode.l10n.t`);
			for (const m of messages(src)) {
				n++;
				if (!zh[m]) missing.push(`${file}: ${JSON.stringify(m)}`);
				else if (placeholders(zh[m]) !== placeholders(m)) wrong.push(`${file}: ${JSON.stringify(m)} → ${JSON.stringify(zh[m])}`);
			}
		}
		assert.ok(n > 50, `only ${n} messages found: the scanner is broken`);
		assert.deepEqual(missing, [], `messages without a zh-cn translation in l10n/bundle.l10n.zh-cn.json:\n${missing.join('\n')}`);
		assert.deepEqual(wrong, [], 'translations whose placeholders differ');
	});

	it('package.json\'s %keys% are in package.nls.json and package.nls.zh-cn.json', () => {
		const pkg = fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8');
		const en = readJson('package.nls.json');
		const zh = readJson('package.nls.zh-cn.json');
		const used = [...pkg.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]);
		assert.ok(used.length > 30);
		for (const k of used) {
			assert.ok(en[k], `package.nls.json lacks ${k}`);
			assert.ok(zh[k], `package.nls.zh-cn.json lacks ${k}`);
		}
		assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort(), 'package.nls.zh-cn.json and package.nls.json have different keys');
		// The contributions' titles and descriptions are all localised.
		const contributes = JSON.parse(pkg).contributes;
		for (const c of contributes.commands) assert.match(c.title, /^%.+%$/, `command ${c.command}'s title is not localised`);
		for (const s of contributes.walkthroughs[0].steps) {
			assert.match(s.title, /^%.+%$/);
			assert.match(s.description, /^%.+%$/);
		}
	});

	it('the localisation files are sorted by key', () => {
		for (const f of ['package.nls.json', 'package.nls.zh-cn.json', 'l10n/bundle.l10n.zh-cn.json']) {
			const keys = Object.keys(readJson(f));
			assert.deepEqual(keys, [...keys].sort(), `${f} is not sorted by key`);
		}
	});

	it('rxBridge.language zh-cn gives the Chinese strings, auto VS Code\'s', () => {
		useLanguage(CLIENT, 'zh-cn');
		try {
			assert.equal(l10n.t('Reasonix: {0} is set up and is the default model.', 'local/x'), 'Reasonix：local/x 已设置好，并成为默认模型。');
			assert.equal(l10n.t('not a key {0}', 'x'), 'not a key x');
		} finally {
			useLanguage(CLIENT, 'auto');
		}
		assert.equal(l10n.t('Reasonix: {0} is set up and is the default model.', 'local/x'), 'Reasonix: local/x is set up and is the default model.');
	});

	it('initialize\'s locale: rxBridge.language, else VS Code\'s display language', () => {
		fake.reset();
		env.language = 'zh-cn';
		try {
			assert.equal(uiLanguage(), 'zh-cn');
			env.language = 'en';
			assert.equal(uiLanguage(), 'en');
			fake.config['rxBridge.language'] = 'zh-cn';
			assert.equal(uiLanguage(), 'zh-cn');
			fake.config['rxBridge.language'] = 'auto';
			assert.equal(uiLanguage(), 'en');
		} finally {
			env.language = 'en';
			fake.reset();
		}
	});
});

import './support/setup';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { resolveBinary } from '../src/binary';
import { Generations } from '../src/generation';
import MarkdownIt from 'markdown-it';
import { ago, escapeMarkdown, noIcons, safeMarkdown } from '../src/text';

describe('resolveBinary', () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-bin-'));
	const exe = path.join(dir, 'rx-bridge');
	fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
	const plain = path.join(dir, 'not-executable');
	fs.writeFileSync(plain, '', { mode: 0o644 });

	it('looks the default name up on PATH', async () => {
		assert.deepEqual(await resolveBinary('', { PATH: `/nonexistent:${dir}` }), { path: exe, searched: 'rx-bridge on PATH' });
		assert.equal((await resolveBinary(undefined, { PATH: dir })).path, exe);
	});

	it('takes a path as is and checks that it is an executable file', async () => {
		assert.equal((await resolveBinary(exe, {})).path, exe);
		assert.equal((await resolveBinary(plain, {})).path, undefined);
		assert.equal((await resolveBinary(dir, {})).path, undefined);
	});

	it('says where it looked when nothing is found', async () => {
		const r = await resolveBinary('rx-bridge', { PATH: '/a:/b' });
		assert.equal(r.path, undefined);
		assert.equal(r.searched, 'rx-bridge on PATH (/a:/b)');
	});

	it('finds rx-bridge.exe on Windows, by name on PATH (or Path) and by path', async () => {
		const win = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-bin-win-'));
		const exe = path.join(win, 'rx-bridge.exe');
		fs.writeFileSync(exe, '', { mode: 0o755 });
		assert.deepEqual(await resolveBinary('', { PATH: `/nonexistent:${win}` }, 'win32'), { path: exe, searched: 'rx-bridge.exe on PATH' });
		assert.equal((await resolveBinary('', { Path: win }, 'win32')).path, exe);
		assert.equal((await resolveBinary(path.join(win, 'rx-bridge'), {}, 'win32')).path, exe);
		assert.equal((await resolveBinary(exe, {}, 'win32')).path, exe);
		// Elsewhere the .exe is not looked for.
		assert.equal((await resolveBinary('', { PATH: win }, 'linux')).path, undefined);
	});

	it('uses the binary bundled with the extension unless the setting names one, and PATH last', async () => {
		const ext = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-bin-ext-'));
		const bundled = path.join(ext, 'bin', 'rx-bridge');
		fs.mkdirSync(path.dirname(bundled));
		fs.writeFileSync(bundled, '#!/bin/sh\n', { mode: 0o755 });
		const bin = path.join(ext, 'bin');
		assert.deepEqual(await resolveBinary('', { PATH: dir }, 'linux', bin), { path: bundled, searched: bundled });
		assert.equal((await resolveBinary(undefined, { PATH: dir }, 'linux', bin)).path, bundled);
		// The setting wins, by path or by name on PATH, and even when it names nothing.
		assert.equal((await resolveBinary(exe, {}, 'linux', bin)).path, exe);
		assert.equal((await resolveBinary('rx-bridge', { PATH: dir }, 'linux', bin)).path, exe);
		assert.equal((await resolveBinary('/nonexistent/rx-bridge', { PATH: dir }, 'linux', bin)).path, undefined);
		// No bundled binary (the platform-neutral package): PATH, and the message names both.
		const none = path.join(dir, 'no-bin');
		assert.equal((await resolveBinary('', { PATH: dir }, 'linux', none)).path, exe);
		assert.deepEqual(await resolveBinary('', { PATH: '/a' }, 'linux', none), { searched: `${path.join(none, 'rx-bridge')}, then rx-bridge on PATH (/a)` });
		// A bundled file that cannot be run is not used.
		fs.chmodSync(bundled, 0o644);
		assert.equal((await resolveBinary('', { PATH: dir }, 'linux', bin)).path, exe);
	});

	it('finds the bundled rx-bridge.exe on Windows', async () => {
		const ext = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-bin-ext-win-'));
		const bundled = path.join(ext, 'rx-bridge.exe');
		fs.writeFileSync(bundled, '', { mode: 0o755 });
		fs.writeFileSync(path.join(ext, 'rx-bridge'), '', { mode: 0o755 });
		assert.equal((await resolveBinary('', {}, 'win32', ext)).path, bundled);
		assert.equal((await resolveBinary('', {}, 'linux', ext)).path, path.join(ext, 'rx-bridge'));
	});
});

describe('Generations', () => {
	it('only moves forward, and starts afresh for a new bridge process', () => {
		const g = new Generations();
		const seen: number[] = [];
		g.onDidAdvance((n) => seen.push(n));
		g.advance(2);
		g.advance(1);
		g.advance(undefined);
		assert.equal(g.current, 2);
		assert.equal(g.isStale(1), true);
		assert.equal(g.isStale(2), false);
		assert.equal(g.isStale(undefined), false);
		g.reset(0);
		assert.equal(g.isStale(1), false);
		assert.deepEqual(seen, [2, 0]);
	});
});

describe('plugin text', () => {
	it('keeps $(icons) from rendering', () => {
		assert.equal(noIcons('a $(zap) b'), 'a $\u200b(zap) b');
	});
	it('escapes Markdown', () => {
		assert.equal(escapeMarkdown('*x* [l](u) <b>'), '\\*x\\* \\[l\\]\\(u\\) \\<b\\>');
	});
	it('keeps plugin Markdown but neither HTML nor command links', () => {
		assert.equal(safeMarkdown('**b** <img src=x>'), '**b** &lt;img src=x>');
		assert.equal(safeMarkdown('[x](command:foo)'), '[x](#blocked-command:foo)');
		assert.equal(safeMarkdown('[x]: command:foo'), '[x]: #blocked-command:foo');
		assert.equal(safeMarkdown('[x](https://example.com)'), '[x](https://example.com)');
	});
	it('says how long ago a stored session changed', () => {
		const now = Date.parse('2026-12-03T10:00:00Z');
		const cases: [string | undefined, string][] = [
			['2026-12-03T09:59:30.5Z', 'just now'], ['2026-12-03T09:57:00Z', '3 min ago'], ['2026-12-03T07:00:00Z', '3 h ago'],
			['2026-12-02T09:00:00Z', '1 day ago'], ['2026-11-20T10:00:00Z', '13 days ago'], ['2026-12-03T10:05:00Z', 'just now'],
			['yesterday', ''], [undefined, ''],
		];
		for (const [stamp, want] of cases) assert.equal(ago(stamp, now), want, String(stamp));
	});
	it('shows < as typed in code, and only in code no parser reads otherwise', () => {
		const cases: [string, string][] = [
			['use `a < b` or <b>', 'use `a < b` or &lt;b>'],
			['``x`<y``, `Vec<T>` <i>', '``x`<y``, `Vec<T>` &lt;i>'],
			['```go\nif a < b {}\n```\n<img>', '```go\nif a < b {}\n```\n&lt;img>'],
			['~~~\n<a>\n```\n<b>\n~~~\n<c>', '~~~\n<a>\n```\n<b>\n~~~\n&lt;c>'],
			['```\r\n<a>\r\n```\r\n<b>', '```\n<a>\n```\n&lt;b>'],
			// Not code, or not surely code: escaped as text.
			['```\n<a>', '```\n<a>\n```'],
			// An indented fence may be inside a list item: not surely code.
			['  ```\n<a>\n```', '  ```\n&lt;a>\n```\n```'],
			['\\`<a>` x', '\\`&lt;a>` x'],
			['[a](`x) <img> `', '[a](`x) &lt;img> `'],
			['[a]: `x\n<img> `', '[a]: `x\n&lt;img> `'],
			['| `a|<img>` |', '| `a|&lt;img>` |'],
			['`unclosed <b>', '`unclosed &lt;b>'],
			['`a\n<b>`', '`a\n&lt;b>`'],
			['```x`y\n<b>\n```', '```x`y\n&lt;b>\n```\n```'], // not a fence: the last line opens one
			['`[x](command:foo)` [y](command:bar)', '`[x](command:foo)` [y](#blocked-command:bar)'],
			['a `b\nc` <x> `d`', 'a `b\nc` &lt;x> `d`'],
			['\\`` x `<x>`', '\\`` x `&lt;x>`'],
			['$`$ <x> `y`', '$`$ &lt;x> `y`'],
			['`<a>`\n\n`<b>`', '`<a>`\n\n`<b>`'],
		];
		for (const [input, want] of cases) assert.equal(safeMarkdown(input), want, input);
	});
	it('lets no HTML or command link through markdown-it (the renderer of VS Code\'s Markdown preview)', () => {
		// Random Markdown from the pieces that open code, links, tables,
		// containers and HTML; rendered with HTML on, as the preview does.
		const md = new MarkdownIt({ html: true, linkify: true });
		const parts = ['`', '``', '```', '$', '~~~', '<x-evil>', '[', ']', '](', ']: ', '|', '\\', '\n', '\n\n', ' ', '    ', '- ', '> ', '1. ', 'a', 'b c', '(', ')', '"', '*', '\r', '#', '---', '<', '>', '&', 'command:x', '<!--', '<?', '<![CDATA['];
		let seed = 1;
		const next = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
		for (let k = 0; k < 30000; k++) {
			let s = '';
			for (let i = 1 + next(30); i > 0; i--) s += parts[next(parts.length)];
			const html = md.render(safeMarkdown(s));
			assert.ok(!/<x-evil|<!--|<\?|<!\[CDATA\[|href="command:/i.test(html), `${JSON.stringify(s)} rendered ${JSON.stringify(html)}`);
		}
		assert.equal(md.render(safeMarkdown('`a<b>` <b>')), '<p><code>a&lt;b&gt;</code> &lt;b&gt;</p>\n');
	});
});

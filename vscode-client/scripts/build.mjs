// esbuild: the extension bundle (dist/extension.js, `vscode` external) and,
// with --tests, every source and test file transpiled one-to-one into out/
// for node:test (where `vscode` is the fake of test/support/vscode.ts).
import * as esbuild from 'esbuild';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');

function tsFiles(dir) {
	const out = [];
	for (const name of readdirSync(dir)) {
		const p = join(dir, name);
		if (statSync(p).isDirectory()) out.push(...tsFiles(p));
		else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
	}
	return out;
}

await esbuild.build({
	entryPoints: ['src/extension.ts'],
	bundle: true,
	outfile: 'dist/extension.js',
	external: ['vscode'],
	format: 'cjs',
	platform: 'node',
	target: 'node20',
	sourcemap: !production,
	minify: production,
	logLevel: 'warning',
});

if (args.has('--tests')) {
	// out/e2e holds the last end-to-end run's screenshots and logs: kept.
	for (const d of ['out/src', 'out/test']) rmSync(d, { recursive: true, force: true });
	await esbuild.build({
		entryPoints: [...tsFiles('src'), ...tsFiles('test')],
		outdir: 'out',
		outbase: '.',
		bundle: false,
		format: 'cjs',
		platform: 'node',
		target: 'node20',
		sourcemap: 'inline',
		logLevel: 'warning',
	});
}

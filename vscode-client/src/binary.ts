// Finding the rx-bridge binary, in this order: the rxBridge.path setting (a
// path, or a command name looked up on PATH), else the binary bundled in
// the platform's .vsix (<extension>/bin/rx-bridge[.exe]), else rx-bridge
// on PATH.

import { constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const DEFAULT_BINARY = 'rx-bridge';

export interface Resolution {
	path?: string;
	/** What was looked at, for the error message. */
	searched: string;
}

/**
 * `bundledDir` is the extension's bin folder; a package built for one
 * platform carries rx-bridge there. A setting always wins, even when it
 * names nothing: the user asked for that binary, not for another.
 */
export async function resolveBinary(
	setting: string | undefined,
	env: NodeJS.ProcessEnv = process.env,
	platform: NodeJS.Platform = process.platform,
	bundledDir?: string,
): Promise<Resolution> {
	let want = (setting ?? '').trim();
	if (want === '~' || want.startsWith('~/')) want = path.join(os.homedir(), want.slice(1));
	let bundled = '';
	if (!want && bundledDir) {
		bundled = path.join(bundledDir, platform === 'win32' ? `${DEFAULT_BINARY}.exe` : DEFAULT_BINARY);
		if (await isExecutable(bundled)) return { path: bundled, searched: bundled };
	}
	want ||= DEFAULT_BINARY;
	// Windows runs rx-bridge.exe; a name given without an extension means it.
	const names = platform === 'win32' && !/\.[^\\/.]+$/.test(want) ? [`${want}.exe`, want] : [want];
	if (want.includes('/') || want.includes(path.sep) || (platform === 'win32' && want.includes('\\'))) {
		for (const n of names) {
			const p = path.resolve(n);
			if (await isExecutable(p)) return { path: p, searched: p };
		}
		return { searched: path.resolve(names[0]) };
	}
	// Windows names the variable Path; Node's process.env ignores the case
	// there, a plain object does not.
	const pathVar = env.PATH ?? (platform === 'win32' ? env.Path : undefined) ?? '';
	const dirs = pathVar.split(path.delimiter).filter(Boolean);
	for (const d of dirs) {
		for (const n of names) {
			const p = path.join(d, n);
			if (await isExecutable(p)) return { path: p, searched: `${names[0]} on PATH` };
		}
	}
	const onPath = `${names[0]} on PATH (${dirs.join(path.delimiter) || 'empty'})`;
	return { searched: bundled ? `${bundled}, then ${onPath}` : onPath };
}

async function isExecutable(p: string): Promise<boolean> {
	try {
		const st = await fs.stat(p);
		if (!st.isFile()) return false;
		await fs.access(p, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

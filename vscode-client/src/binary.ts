// Finding the rx-bridge binary: the rxBridge.path setting, a command name
// looked up on PATH (the default, "rx-bridge") or a path.

import { constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const DEFAULT_BINARY = 'rx-bridge';

export interface Resolution {
	path?: string;
	/** What was looked at, for the error message. */
	searched: string;
}

export async function resolveBinary(setting: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Resolution> {
	let want = (setting ?? '').trim() || DEFAULT_BINARY;
	if (want === '~' || want.startsWith('~/')) want = path.join(os.homedir(), want.slice(1));
	if (want.includes('/') || want.includes(path.sep)) {
		const p = path.resolve(want);
		return { path: (await isExecutable(p)) ? p : undefined, searched: p };
	}
	const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
	for (const d of dirs) {
		const p = path.join(d, want);
		if (await isExecutable(p)) return { path: p, searched: `${want} on PATH` };
	}
	return { searched: `${want} on PATH (${dirs.join(path.delimiter) || 'empty'})` };
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

// The bridge's command line (`rx-bridge setup`, `rx-bridge plugin install`),
// run with the binary the extension runs (binary.ts) and the environment it
// gives the bridge: the API keys kept in SecretStorage reach the child only
// through its environment, never through its arguments or a file.

import { execFile } from 'node:child_process';
import { resolveBinary } from './binary';

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

export interface CliOptions {
	/** rxBridge.path. */
	setting?: string;
	/** rxBridge.home ('' for the bridge's default). */
	home?: string;
	/** The extension's bin folder. */
	bundledDir?: string;
	/** The child's environment (process.env plus the keys). */
	env: NodeJS.ProcessEnv;
	timeoutMs?: number;
}

/** The first line the CLI printed on stderr, without its "rx-bridge …:" prefix. */
export function cliError(r: CliResult): string {
	try {
		const j = JSON.parse(r.stdout);
		if (j && typeof j.error === 'string') return j.error;
	} catch {
		// not JSON
	}
	const line = r.stderr.split('\n').map((l) => l.trim()).find(Boolean) ?? r.stdout.split('\n').map((l) => l.trim()).find(Boolean) ?? `exit status ${r.code}`;
	return line.replace(/^rx-bridge( [a-z-]+)*: /, '');
}

/** Runs `rx-bridge <args>`; rxBridge.home goes as RX_BRIDGE_HOME (every subcommand reads it). */
export async function runCli(args: string[], o: CliOptions): Promise<CliResult> {
	const bin = await resolveBinary(o.setting, o.env, process.platform, o.bundledDir);
	if (!bin.path) throw new Error(`rx-bridge was not found (looked for ${bin.searched})`);
	const env = o.home ? { ...o.env, RX_BRIDGE_HOME: o.home } : o.env;
	return new Promise((resolve) => {
		execFile(bin.path!, args, { env, timeout: o.timeoutMs ?? 120000, maxBuffer: 16 << 20, encoding: 'utf8' }, (err, stdout, stderr) => {
			const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
			resolve({ code, stdout: stdout ?? '', stderr: stderr ?? (err ? String(err.message) : '') });
		});
	});
}

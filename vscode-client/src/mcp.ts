// Offers `rx-bridge mcp` (docs/MCP.md) to VS Code's own MCP support, so
// Copilot's agent mode and other MCP consumers in the editor see the
// installed plugins' tools, prompts and resources without the user
// editing mcp.json. The server is started by VS Code, with the binary and
// home the bridge itself uses (rxBridge.path, rxBridge.home); off with
// rxBridge.mcp.enabled.

import * as vscode from 'vscode';
import { resolveBinary } from './binary';
import { l10n } from './l10n';
import { Generations } from './generation';
import { CONFIG, uiLanguage } from './lspTransport';

/** The id of contributes.mcpServerDefinitionProviders in package.json. */
export const MCP_PROVIDER_ID = 'rxBridge.mcp';
/** The setting that turns the definition off. */
export const MCP_ENABLED = 'mcp.enabled';

/** The settings whose change changes the definition. */
const AFFECTING = ['path', 'home', 'language', MCP_ENABLED];

export class McpServers implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition>, vscode.Disposable {
	private readonly changed = new vscode.EventEmitter<void>();
	readonly onDidChangeMcpServerDefinitions = this.changed.event;

	/** How many times the bridge's plugins changed: the definition's version. */
	private reloads = 0;

	/** bundledDir: the extension's bin folder (see resolveBinary). */
	constructor(private readonly bundledDir?: string) {}

	/**
	 * Follows the bridge's plugin generations: when one bridge moves to a
	 * newer generation (a plugin installed, removed or reloaded), the
	 * definition gets a new version, so VS Code offers to refresh the
	 * `rx-bridge mcp` it started, which still serves the old plugins. A
	 * bridge (re)starting counts afresh and changes nothing.
	 */
	followGenerations(generations: Generations): vscode.Disposable {
		let last = generations.current;
		return generations.onDidAdvance((g) => {
			if (g > last && last > 0) {
				this.reloads++;
				this.changed.fire();
			}
			last = g;
		});
	}

	/**
	 * One stdio server, `rx-bridge mcp [--home H] [--workspace W]`, run in
	 * the first workspace folder; none when the setting is off or no binary
	 * is found (the bridge's own start reports that). The environment is
	 * the extension host's (VS Code's default) plus the UI language; the
	 * API keys the bridge gets are left out: `rx-bridge mcp` runs no model,
	 * and VS Code keeps the definitions it is given.
	 */
	async provideMcpServerDefinitions(): Promise<vscode.McpStdioServerDefinition[]> {
		const cfg = vscode.workspace.getConfiguration(CONFIG);
		if (!cfg.get<boolean>(MCP_ENABLED, true)) return [];
		const bin = await resolveBinary(cfg.get<string>('path', ''), process.env, process.platform, this.bundledDir);
		if (!bin.path) return [];
		const args = ['mcp'];
		const home = cfg.get<string>('home', '').trim();
		if (home) args.push('--home', home);
		const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
		if (folder) args.push('--workspace', folder.uri.fsPath);
		const def = new vscode.McpStdioServerDefinition(l10n.t('Reasonix plugins'), bin.path, args, { RX_BRIDGE_LANG: uiLanguage() });
		if (folder) def.cwd = folder.uri;
		if (this.reloads > 0) def.version = String(this.reloads);
		return [def];
	}

	/** Tells VS Code the definition changed when a setting it is made of did. */
	configurationChanged(e: vscode.ConfigurationChangeEvent): void {
		if (AFFECTING.some((k) => e.affectsConfiguration(`${CONFIG}.${k}`))) this.changed.fire();
	}

	/** Tells VS Code the definition changed (its workspace folder may have). */
	refresh(): void {
		this.changed.fire();
	}

	dispose(): void {
		this.changed.dispose();
	}
}

/**
 * Registers servers with VS Code when the editor has the API (VS Code
 * 1.101 and later; a fork may lack it): undefined when it does not.
 */
export function registerMcpServers(servers: McpServers): vscode.Disposable[] | undefined {
	const lm = vscode.lm as Partial<typeof vscode.lm>;
	if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || typeof vscode.McpStdioServerDefinition !== 'function') return undefined;
	return [
		lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, servers),
		vscode.workspace.onDidChangeWorkspaceFolders(() => servers.refresh()),
	];
}

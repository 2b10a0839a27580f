// Entry point: wires the bridge supervisor, the plugin UI mapping, the
// commands, the @reasonix chat participant and the language model provider.

import * as vscode from 'vscode';
import { l10n, useLanguage } from './l10n';
import { Bridge, DEFAULT_BACKOFF, FatalStartError } from './bridge';
import { CARDS_VIEW } from './cards';
import { ChatSessions, PARTICIPANT_ID } from './chat';
import { CommandId, Commands } from './commands';
import { SCHEME, VirtualDocs } from './docs';
import { ChunkRouter, LanguageModels, VENDOR } from './lm';
import { BridgeLog } from './log';
import { McpServers, registerMcpServers } from './mcp';
import { CONFIG, LanguageClientTransport, uiLanguage } from './lspTransport';
import { Method, PluginStateChange, UIRequest, UISurface } from './protocol';
import { EditReview } from './review';
import { SessionsView } from './sessionsView';
import { Rx } from './rx';
import { BridgeStatus } from './status';
import { FirstRun, Keys } from './setup';
import { PluginUI } from './ui';

export const INSTALL_BUTTON = l10n.t('Install Instructions');
export const SETTINGS_BUTTON = l10n.t('Open Settings');
export const RESTART_BUTTON = l10n.t('Restart Bridge');
export const SHOW_CARDS_COMMAND = 'rxBridge.showCards';

/** What activate returns; the end-to-end test extension reads it. */
export interface Api {
	readonly bridge: Bridge;
	readonly rx: Rx;
}

export function activate(context: vscode.ExtensionContext): Api {
	useLanguage(context.extensionUri.fsPath, vscode.workspace.getConfiguration(CONFIG).get<string>('language', 'auto'));
	const log = new BridgeLog(vscode.window.createOutputChannel('Reasonix Bridge'));
	const keys = new Keys(context.secrets, context.globalState);
	const bundledDir = vscode.Uri.joinPath(context.extensionUri, 'bin').fsPath;
	const bridge = new Bridge(new LanguageClientTransport(log, bundledDir, () => keys.env()), DEFAULT_BACKOFF, (line) => log.info(line));
	const rx = new Rx(bridge);
	const docs = new VirtualDocs();
	const ui = new PluginUI(rx.generations, docs, {
		runAction: (name) => commands.runAction(name),
		submit: async (plugin, surfaceId, generation, values) => {
			const r = await rx.request<{ accepted: boolean }>(Method.uiSubmit, { plugin, surfaceId, generation, values });
			return r.accepted !== false;
		},
		reload: () => commands.reload(),
	});
	const commands = new Commands(rx, docs, log, (plugin) => ui.notifications(plugin));
	const firstRun = new FirstRun({
		keys,
		docs,
		cliOptions: async (extra) => {
			const cfg = vscode.workspace.getConfiguration(CONFIG);
			return {
				setting: cfg.get<string>('path', ''),
				home: cfg.get<string>('home', '').trim(),
				bundledDir,
				// The CLI's own texts (the FULL TRUST preview) in the UI's language.
				env: { ...process.env, ...(await keys.env()), RX_BRIDGE_LANG: uiLanguage(), ...(extra ?? {}) },
			};
		},
		restartBridge: async () => { await bridge.restart(); },
		reloadPlugins: () => commands.reload(),
	});
	bridge.handlers.onRequest(Method.uiRequest, (p: UIRequest, token) => ui.request(p, token));
	bridge.handlers.onNotification(Method.uiSurface, (p: UISurface) => ui.surface(p));
	bridge.handlers.onNotification(Method.pluginStateChanged, (p: PluginStateChange) => ui.pluginState(p));
	bridge.onDidStart(() => ui.clear());

	const chunks = new ChunkRouter(rx);
	const models = new LanguageModels(rx, chunks);
	const chat = new ChatSessions(rx, context.workspaceState);
	const review = new EditReview(() => chat.reviewSink(), docs);
	const sessionsView = new SessionsView(chat);
	bridge.handlers.onApplyEdit((params, next) => review.handle(params, next));
	const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, chat.handler);
	participant.iconPath = new vscode.ThemeIcon('hubot');

	const status = new BridgeStatus(bridge);
	const mcp = new McpServers(bundledDir);
	const mcpRegistration = registerMcpServers(mcp);
	if (!mcpRegistration) log.info('this editor has no MCP server definition API (vscode.lm.registerMcpServerDefinitionProvider): rx-bridge mcp is not offered to it');
	context.subscriptions.push(
		mcp, ...(mcpRegistration ?? []), mcp.followGenerations(rx.generations),
		log, docs, ui, models, chat, review, sessionsView, participant, status,
		ui.cards.attach(),
		sessionsView.attach(),
		vscode.commands.registerCommand(SHOW_CARDS_COMMAND, () => vscode.commands.executeCommand(`${CARDS_VIEW}.focus`)),
		vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
		vscode.lm.registerLanguageModelChatProvider(VENDOR, models),
		...commands.register(),
		...firstRun.register(),
		bridge.onDidFail((err) => void reportFailure(context, err)),
		vscode.workspace.onDidChangeConfiguration((e) => {
			if (e.affectsConfiguration(`${CONFIG}.language`)) {
				useLanguage(context.extensionUri.fsPath, vscode.workspace.getConfiguration(CONFIG).get<string>('language', 'auto'));
			}
			if (e.affectsConfiguration(`${CONFIG}.path`) || e.affectsConfiguration(`${CONFIG}.home`) || e.affectsConfiguration(`${CONFIG}.language`)) {
				void bridge.restart().catch(() => {});
			}
			mcp.configurationChanged(e);
		}),
		{ dispose: () => void bridge.stop() },
	);
	bridge.start();
	return { bridge, rx };
}

export function deactivate(): void {}

/** The settings editor's query that shows exactly the binary setting. */
export const PATH_SETTING_QUERY = `@id:${CONFIG}.path`;

/**
 * Opens the settings editor on rxBridge.path where it applies: a machine
 * setting of the extension host's machine, so in a remote window (code-server,
 * SSH, WSL, containers) the Remote tab, whose value the bridge reads; the
 * User tab's would not apply there.
 */
export async function openPathSetting(): Promise<void> {
	if (vscode.env.remoteName) {
		try {
			await vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query: PATH_SETTING_QUERY });
			return;
		} catch {
			// an editor without the remote settings command: the user's
		}
	}
	await vscode.commands.executeCommand('workbench.action.openSettings', { query: PATH_SETTING_QUERY });
}

async function reportFailure(context: vscode.ExtensionContext, err: Error): Promise<void> {
	if (err instanceof FatalStartError && err.reason === 'not_found') {
		const pick = await vscode.window.showErrorMessage(
			l10n.t('Reasonix: {0}. Install rx-bridge, or set "rxBridge.path" to its location.', err.message),
			INSTALL_BUTTON, SETTINGS_BUTTON);
		if (pick === INSTALL_BUTTON) {
			await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.joinPath(context.extensionUri, 'README.md'));
		} else if (pick === SETTINGS_BUTTON) {
			await openPathSetting();
		}
		return;
	}
	const pick = await vscode.window.showErrorMessage(l10n.t('Reasonix: {0}', err.message), RESTART_BUTTON);
	if (pick === RESTART_BUTTON) await vscode.commands.executeCommand(CommandId.restart);
}

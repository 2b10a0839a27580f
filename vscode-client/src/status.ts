// The bridge's own status bar item: its state (starting, running, crashed
// and restarting, crashed, not started, stopped), the binary's version and
// home in the tooltip; a click opens the Reasonix Bridge log.

import * as vscode from 'vscode';
import { l10n } from './l10n';
import { Bridge, BridgeState, FatalStartError } from './bridge';

export const STATUS_ITEM_ID = 'rxBridge.bridge';
/** Runs on a click: the log (commands.ts registers it). */
export const STATUS_COMMAND = 'rxBridge.showLog';

/** What the item says in a state; `error` is why the bridge last stopped. */
export function statusText(state: BridgeState, error?: Error, version = ''): { text: string; tooltip: string; problem: boolean } {
	const why = error ? `: ${error.message}` : '';
	switch (state) {
		case 'starting':
			return { text: `$(sync~spin) ${l10n.t('Reasonix: starting')}`, tooltip: l10n.t('rx-bridge is starting. Click for the bridge log.'), problem: false };
		case 'running':
			return { text: `$(hubot) ${l10n.t('Reasonix: running')}`, tooltip: l10n.t('rx-bridge is running{0}. Click for the bridge log.', version), problem: false };
		case 'backoff':
			return { text: `$(warning) ${l10n.t('Reasonix: crashed, restarting')}`, tooltip: l10n.t('rx-bridge stopped{0}; it restarts shortly. Click for the bridge log.', why), problem: true };
		case 'failed':
			if (error instanceof FatalStartError) {
				return { text: `$(error) ${l10n.t('Reasonix: not started')}`, tooltip: l10n.t('rx-bridge could not start{0}. Click for the bridge log.', why), problem: true };
			}
			return { text: `$(error) ${l10n.t('Reasonix: crashed')}`, tooltip: l10n.t('rx-bridge crashed and is not restarted{0}. Run "Reasonix: Restart Bridge" to try again. Click for the bridge log.', why), problem: true };
		case 'stopped':
		default:
			return { text: `$(circle-slash) ${l10n.t('Reasonix: stopped')}`, tooltip: l10n.t('rx-bridge is stopped. Click for the bridge log.'), problem: false };
	}
}

export class BridgeStatus implements vscode.Disposable {
	private readonly item: vscode.StatusBarItem;
	private readonly sub: { dispose(): void };

	constructor(private readonly bridge: Bridge) {
		this.item = vscode.window.createStatusBarItem(STATUS_ITEM_ID, vscode.StatusBarAlignment.Left, 0);
		this.item.name = l10n.t('Reasonix Bridge');
		this.item.command = STATUS_COMMAND;
		this.sub = bridge.onDidChangeState(() => this.render());
		this.render();
		this.item.show();
	}

	get text(): string {
		return this.item.text;
	}

	private render(): void {
		const info = this.bridge.connection?.info;
		const version = this.bridge.state === 'running' && info?.bridgeVersion ? ` (rx-bridge ${info.bridgeVersion}, ${l10n.t('home {0}', info.home ?? '?')})` : '';
		const s = statusText(this.bridge.state, this.bridge.error, version);
		this.item.text = s.text;
		this.item.tooltip = s.tooltip;
		this.item.accessibilityInformation = { label: s.text.replace(/\$\([^)]*\)\s*/g, '') };
		this.item.backgroundColor = s.problem ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
	}

	dispose(): void {
		this.sub.dispose();
		this.item.dispose();
	}
}

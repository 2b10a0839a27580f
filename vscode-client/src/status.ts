// The bridge's own status bar item: its state (starting, running, crashed
// and restarting, crashed, not started, stopped), the binary's version and
// home in the tooltip; a click opens the Reasonix Bridge log.

import * as vscode from 'vscode';
import { Bridge, BridgeState, FatalStartError } from './bridge';

export const STATUS_ITEM_ID = 'rxBridge.bridge';
/** Runs on a click: the log (commands.ts registers it). */
export const STATUS_COMMAND = 'rxBridge.showLog';

/** What the item says in a state; `error` is why the bridge last stopped. */
export function statusText(state: BridgeState, error?: Error): { text: string; tooltip: string; problem: boolean } {
	const why = error ? `: ${error.message}` : '';
	switch (state) {
		case 'starting':
			return { text: '$(sync~spin) Reasonix: starting', tooltip: 'rx-bridge is starting. Click for the bridge log.', problem: false };
		case 'running':
			return { text: '$(hubot) Reasonix: running', tooltip: 'rx-bridge is running. Click for the bridge log.', problem: false };
		case 'backoff':
			return { text: '$(warning) Reasonix: crashed, restarting', tooltip: `rx-bridge stopped${why}; it restarts shortly. Click for the bridge log.`, problem: true };
		case 'failed':
			if (error instanceof FatalStartError) {
				return { text: '$(error) Reasonix: not started', tooltip: `rx-bridge could not start${why}. Click for the bridge log.`, problem: true };
			}
			return { text: '$(error) Reasonix: crashed', tooltip: `rx-bridge crashed and is not restarted${why}. Run "Reasonix: Restart Bridge" to try again. Click for the bridge log.`, problem: true };
		case 'stopped':
		default:
			return { text: '$(circle-slash) Reasonix: stopped', tooltip: 'rx-bridge is stopped. Click for the bridge log.', problem: false };
	}
}

export class BridgeStatus implements vscode.Disposable {
	private readonly item: vscode.StatusBarItem;
	private readonly sub: { dispose(): void };

	constructor(private readonly bridge: Bridge) {
		this.item = vscode.window.createStatusBarItem(STATUS_ITEM_ID, vscode.StatusBarAlignment.Left, 0);
		this.item.name = 'Reasonix Bridge';
		this.item.command = STATUS_COMMAND;
		this.sub = bridge.onDidChangeState(() => this.render());
		this.render();
		this.item.show();
	}

	get text(): string {
		return this.item.text;
	}

	private render(): void {
		const s = statusText(this.bridge.state, this.bridge.error);
		const info = this.bridge.connection?.info;
		const version = this.bridge.state === 'running' && info?.bridgeVersion ? ` (rx-bridge ${info.bridgeVersion}, home ${info.home ?? '?'})` : '';
		this.item.text = s.text;
		this.item.tooltip = s.tooltip.replace('running.', `running${version}.`);
		this.item.accessibilityInformation = { label: s.text.replace(/\$\([^)]*\)\s*/g, '') };
		this.item.backgroundColor = s.problem ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
	}

	dispose(): void {
		this.sub.dispose();
		this.item.dispose();
	}
}

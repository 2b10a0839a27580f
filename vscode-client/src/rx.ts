// The client side of the rx/ namespace: typed calls on whatever bridge
// connection is current, plus the state every feature shares (the newest
// generation, the action list).

import type { Bridge, Connection, Token } from './bridge';
import { Generations } from './generation';
import {
	Action, ActionsChanged, ActionList, Command, Method, ModelsResult, PluginInfo, ReloadResult, RunActionResult,
} from './protocol';

export class Rx {
	readonly generations = new Generations();
	private actionList: Action[] = [];
	private readonly actionListeners: ((a: Action[]) => void)[] = [];
	private readonly reloadListeners: (() => void)[] = [];

	constructor(readonly bridge: Bridge) {
		bridge.handlers.onNotification(Method.actionsChanged, (p: ActionsChanged) => this.actionsChanged(p));
		bridge.onDidStart((c) => {
			this.generations.reset(c.info.generation);
			this.setActions([]);
			void this.refreshActions().catch(() => {});
			for (const l of [...this.reloadListeners]) l();
		});
	}

	get actions(): readonly Action[] {
		return this.actionList;
	}

	onDidChangeActions(l: (a: Action[]) => void): { dispose(): void } {
		this.actionListeners.push(l);
		return { dispose: () => { const i = this.actionListeners.indexOf(l); if (i >= 0) this.actionListeners.splice(i, 1); } };
	}

	/** Fired on each bridge start and each plugin reload (models may have changed). */
	onDidReload(l: () => void): { dispose(): void } {
		this.reloadListeners.push(l);
		return { dispose: () => { const i = this.reloadListeners.indexOf(l); if (i >= 0) this.reloadListeners.splice(i, 1); } };
	}

	async connection(): Promise<Connection> {
		return this.bridge.ready();
	}

	async request<R>(method: string, params: unknown, token?: Token): Promise<R> {
		const c = await this.bridge.ready();
		return c.sendRequest<R>(method, params, token);
	}

	async notify(method: string, params: unknown): Promise<void> {
		const c = await this.bridge.ready();
		await c.sendNotification(method, params);
	}

	async refreshActions(): Promise<Action[]> {
		const r = await this.request<ActionList>(Method.actions, {});
		if (!this.generations.isStale(r.generation)) {
			this.generations.advance(r.generation);
			this.setActions(r.actions ?? []);
		}
		return this.actionList;
	}

	runAction(name: string, args?: Record<string, string>, token?: Token): Promise<RunActionResult> {
		const a: unknown[] = [name];
		if (args) a.push(args);
		return this.request<RunActionResult>(Method.executeCommand, { command: Command.runAction, arguments: a }, token);
	}

	reload(): Promise<ReloadResult> {
		return this.request<ReloadResult>(Method.executeCommand, { command: Command.reload, arguments: [] });
	}

	async plugins(): Promise<PluginInfo[]> {
		const r = await this.request<{ plugins: PluginInfo[] }>(Method.plugins, {});
		return r.plugins ?? [];
	}

	models(token?: Token): Promise<ModelsResult> {
		return this.request<ModelsResult>(Method.models, {}, token);
	}

	private actionsChanged(p: ActionsChanged): void {
		if (this.generations.isStale(p.generation)) return;
		this.generations.advance(p.generation);
		this.setActions(p.actions ?? []);
		for (const l of [...this.reloadListeners]) l();
	}

	private setActions(a: Action[]): void {
		this.actionList = [...a].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
		for (const l of [...this.actionListeners]) l(this.actionList);
	}
}

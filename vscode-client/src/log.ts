// The "Reasonix Bridge" output channel. vscode-languageclient only traces
// into a LogOutputChannel whose level is Trace, a level only the user can set
// on a channel of VS Code's; this adapter is a LogOutputChannel over a plain
// channel whose level follows rxBridge.trace.server (off by default): Trace
// when the setting asks for a trace, Info otherwise. At Trace the client
// turns a setting of "off" into "messages", so the level must not be Trace
// while the setting is off.

import * as vscode from 'vscode';

export class BridgeLog implements vscode.LogOutputChannel {
	private level: vscode.LogLevel = vscode.LogLevel.Info;
	private readonly levelEmitter = new vscode.EventEmitter<vscode.LogLevel>();
	readonly onDidChangeLogLevel = this.levelEmitter.event;

	constructor(readonly channel: vscode.OutputChannel) {}

	get logLevel(): vscode.LogLevel {
		return this.level;
	}

	/** Trace while the protocol trace is on, Info while it is off. */
	setTracing(on: boolean): void {
		const level = on ? vscode.LogLevel.Trace : vscode.LogLevel.Info;
		if (level === this.level) return;
		this.level = level;
		this.levelEmitter.fire(level);
	}

	get name(): string {
		return this.channel.name;
	}

	trace(message: string, ...args: unknown[]): void { this.write('trace', message, args); }
	debug(message: string, ...args: unknown[]): void { this.write('debug', message, args); }
	info(message: string, ...args: unknown[]): void { this.write('info', message, args); }
	warn(message: string, ...args: unknown[]): void { this.write('warning', message, args); }
	error(error: string | Error, ...args: unknown[]): void {
		this.write('error', error instanceof Error ? error.stack ?? error.message : error, args);
	}

	append(value: string): void { this.channel.append(value); }
	appendLine(value: string): void { this.channel.appendLine(value); }
	replace(value: string): void { this.channel.replace(value); }
	clear(): void { this.channel.clear(); }
	show(columnOrPreserve?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
		if (typeof columnOrPreserve === 'boolean' || columnOrPreserve === undefined) this.channel.show(columnOrPreserve);
		else this.channel.show(columnOrPreserve, preserveFocus);
	}
	hide(): void { this.channel.hide(); }
	dispose(): void {
		this.levelEmitter.dispose();
		this.channel.dispose();
	}

	private write(level: string, message: string, args: unknown[]): void {
		const extra = args.length ? ` ${args.map((a) => (typeof a === 'string' ? a : safeJson(a))).join(' ')}` : '';
		this.channel.appendLine(`${new Date().toISOString()} [${level}] ${message}${extra}`);
	}
}

function safeJson(v: unknown): string {
	try {
		return JSON.stringify(v);
	} catch {
		return String(v);
	}
}

// Imported first by every test: `require('vscode')` yields the fake. Names
// the fake does not define (API that vscode-languageclient touches for
// features the bridge never registers) are inert stand-ins; every name the
// extension itself uses is defined in ./vscode.ts.
import Module = require('node:module');
import * as fakeVscode from './vscode';

const inert: any = new Proxy(function inert() {}, {
	get: (_t, p) => (p === 'then' ? undefined : p === Symbol.toPrimitive ? () => '' : p === 'prototype' ? {} : inert),
	apply: () => inert,
	construct: () => ({}),
});

export const stubbed = new Set<string>();

function withFallback(obj: Record<string | symbol, unknown>, prefix: string): Record<string | symbol, unknown> {
	return new Proxy(obj, {
		get(target, p) {
			if (p in target) {
				const v = target[p];
				const plain = v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
				return plain && prefix === '' && p !== 'fake' ? withFallback(v as Record<string, unknown>, `${String(p)}.`) : v;
			}
			if (typeof p === 'string') stubbed.add(prefix + p);
			return inert;
		},
	});
}

const vscode = withFallback(fakeVscode as Record<string | symbol, unknown>, '');

const mod = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
const load = mod._load;
mod._load = function (request: string, parent: unknown, isMain: boolean) {
	if (request === 'vscode') return vscode;
	return load.call(this, request, parent, isMain);
};

// Imported first by every test: `require('vscode')` yields the fake.
import Module = require('node:module');
import * as fakeVscode from './vscode';

const mod = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
const load = mod._load;
mod._load = function (request: string, parent: unknown, isMain: boolean) {
	if (request === 'vscode') return fakeVscode;
	return load.call(this, request, parent, isMain);
};

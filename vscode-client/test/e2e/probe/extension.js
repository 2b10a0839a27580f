// Test-only: writes what it sees into $RX_E2E_OUT so the end-to-end test can
// check the parts a screenshot cannot prove (bridge state, streamed fragments).
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');

const out = process.env.RX_E2E_OUT;

function write(name, value) {
	if (!out) return;
	fs.writeFileSync(path.join(out, name), JSON.stringify(value, null, 2));
}

function api() {
	const ext = vscode.extensions.getExtension('reasonix.rx-bridge');
	if (!ext) throw new Error('the Reasonix extension (reasonix.rx-bridge) is not installed');
	return ext.activate();
}

function activate(context) {
	write('probe-activated.json', { at: new Date().toISOString(), vscodeVersion: vscode.version, remoteName: vscode.env.remoteName || null, mcpApi: typeof vscode.lm.registerMcpServerDefinitionProvider === 'function' });
	const timer = setInterval(async () => {
		try {
			const a = await api();
			write('probe-bridge.json', {
				state: a.bridge.state,
				generation: a.rx.generations.current,
				actions: a.rx.actions.map((x) => x.name),
				info: a.bridge.connection ? a.bridge.connection.info : null,
			});
		} catch (err) {
			write('probe-bridge.json', { error: String(err && err.stack || err) });
		}
	}, 500);
	context.subscriptions.push({ dispose: () => clearInterval(timer) });

	context.subscriptions.push(vscode.commands.registerCommand('rxE2e.startSession', async () => {
		try {
			const a = await api();
			const models = await a.rx.request('rx/models', {});
			const r = await a.rx.request('rx/session/new', models.default ? { model: models.default } : {});
			write('probe-session.json', r);
			vscode.window.showInformationMessage(`RX E2E: session ${r.sessionId} on ${r.model}`);
		} catch (err) {
			write('probe-session.json', { error: String(err && err.message || err) });
			vscode.window.showErrorMessage(`RX E2E: session failed: ${err && err.message || err}`);
		}
	}));

	context.subscriptions.push(vscode.commands.registerCommand('rxE2e.askEcho', async () => {
		const result = { models: [], fragments: [], text: '' };
		try {
			const models = await vscode.lm.selectChatModels({ vendor: 'reasonix' });
			result.models = models.map((m) => ({ id: m.id, name: m.name, vendor: m.vendor, family: m.family }));
			const model = models.find((m) => m.id === 'plugin/echo-provider/echo/small') || models.find((m) => m.id.includes('echo'));
			if (!model) throw new Error(`no echo model among ${JSON.stringify(result.models)}`);
			const tokenSource = new vscode.CancellationTokenSource();
			const response = await model.sendRequest(
				[vscode.LanguageModelChatMessage.User('hello from the e2e test')],
				{ justification: 'the rx-bridge end-to-end test checks plugin models' },
				tokenSource.token);
			for await (const fragment of response.text) {
				result.fragments.push(fragment);
			}
			result.text = result.fragments.join('');
			write('probe-lm.json', result);
			vscode.window.showInformationMessage(`RX E2E LM (${model.id}): ${result.text}`);
		} catch (err) {
			result.error = String(err && err.message || err);
			write('probe-lm.json', result);
			vscode.window.showErrorMessage(`RX E2E LM failed: ${result.error}`);
		}
	}));
}

module.exports = { activate, deactivate() {} };

import './support/setup';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { VirtualDocs } from '../src/docs';
import { Generations } from '../src/generation';
import { REQUIRED_MESSAGE, YES } from '../src/prompt';
import type { UIRequest } from '../src/protocol';
import { PluginUI, renderCard } from '../src/ui';
import * as vscode from './support/vscode';
import { CancellationTokenSource, fake, FakeInputBox, FakeQuickPick, FakeStatusBarItem, QuickInputButtons } from './support/vscode';

function setup(generation = 3) {
	fake.reset();
	const gens = new Generations();
	gens.advance(generation);
	const docs = new VirtualDocs();
	fake.docs.set('rx-bridge', docs);
	const ran: string[] = [];
	const submitted: unknown[] = [];
	const reloads: number[] = [];
	let accept = true;
	const ui = new PluginUI(gens, docs, {
		runAction: async (n) => { ran.push(n); },
		submit: async (plugin, surfaceId, generation, values) => { submitted.push({ plugin, surfaceId, generation, values }); return accept; },
		reload: async () => { reloads.push(gens.current); },
	});
	return { gens, docs, ui, ran, submitted, reloads, rejectSubmit: () => { accept = false; } };
}

const select: UIRequest = {
	plugin: 'hello', surfaceId: 'greet-style', sessionId: 's-1', generation: 3, kind: 'select',
	title: 'Greeting', message: 'How should I greet you?',
	fields: [{ key: 'value', label: 'How should I greet you?', kind: 'select', options: ['formal', 'casual'], default: 'casual', required: true }],
};

describe('rx/ui/request', () => {
	beforeEach(() => fake.reset());

	it('asks a select with showQuickPick, default first, and answers the chosen option', async () => {
		const { ui } = setup();
		fake.answer = (e) => (e.type === 'quickPick' ? e.items.find((i: { option: string }) => i.option === 'formal') : undefined);
		const r = await ui.request(select);
		assert.deepEqual(r, { cancelled: false, values: { value: 'formal' } });
		const qp = fake.events.find((e) => e.type === 'quickPick') as { items: { option: string; description?: string }[]; options: any };
		assert.deepEqual(qp.items.map((i) => i.option), ['casual', 'formal']);
		assert.equal(qp.items[0].description, '(default)');
		assert.equal(qp.options.title, 'hello: Greeting');
		assert.equal(qp.options.placeHolder, 'How should I greet you?');
		assert.equal(qp.options.canPickMany, undefined);
	});

	it('answers a dismissed prompt {cancelled: true}', async () => {
		const { ui } = setup();
		fake.answer = () => undefined;
		assert.deepEqual(await ui.request(select), { cancelled: true });
	});

	it('asks a multiselect with canPickMany and answers an array, defaults picked', async () => {
		const { ui } = setup();
		fake.answer = (e) => (e.type === 'quickPick' ? e.items.filter((i: { picked?: boolean; option: string }) => i.picked || i.option === 'c') : undefined);
		const r = await ui.request({
			plugin: 'p', surfaceId: 'm', sessionId: 's-1', generation: 3, kind: 'multiselect', message: 'Pick',
			fields: [{ key: 'tags', kind: 'multiselect', options: ['a', 'b', 'c'], default: ['a'] }],
		});
		assert.deepEqual(r, { cancelled: false, values: { tags: ['a', 'c'] } });
		const qp = fake.events.find((e) => e.type === 'quickPick') as { options: any };
		assert.equal(qp.options.canPickMany, true);
	});

	it('asks a required multiselect again when nothing was picked', async () => {
		const { ui } = setup();
		let n = 0;
		fake.answer = (e) => {
			if (e.type !== 'quickPick') return undefined;
			return ++n === 1 ? [] : [e.items[1]];
		};
		const r = await ui.request({ plugin: 'p', surfaceId: 'm', sessionId: 's-1', generation: 3, kind: 'multiselect', fields: [{ key: 'v', kind: 'multiselect', options: ['a', 'b'], required: true }] });
		assert.deepEqual(r, { cancelled: false, values: { v: ['b'] } });
		assert.equal(n, 2);
		assert.ok(fake.messages().some((m) => m.includes(REQUIRED_MESSAGE)));
	});

	it('asks an input with showInputBox, validating required fields', async () => {
		const { ui } = setup();
		let validate: ((v: string) => string | undefined) | undefined;
		fake.answer = (e) => {
			if (e.type !== 'inputBox') return undefined;
			validate = e.options.validateInput;
			return 'Ada';
		};
		const r = await ui.request({ plugin: 'hello', surfaceId: 'name', sessionId: 's-1', generation: 3, kind: 'input', message: 'Your name?', fields: [{ key: 'value', label: 'Your name?', kind: 'input', default: 'you', required: true }] });
		assert.deepEqual(r, { cancelled: false, values: { value: 'Ada' } });
		const ib = fake.events.find((e) => e.type === 'inputBox') as { options: any };
		assert.equal(ib.options.prompt, 'Your name?');
		assert.equal(ib.options.value, 'you');
		assert.ok(validate);
		assert.equal(validate!(''), REQUIRED_MESSAGE);
		assert.equal(validate!('   '), REQUIRED_MESSAGE);
		assert.equal(validate!('x'), undefined);
	});

	it('asks a request with no fields as one field "value" labelled by the message', async () => {
		const { ui } = setup();
		fake.answer = (e) => (e.type === 'inputBox' ? 'typed' : undefined);
		const r = await ui.request({ plugin: 'p', surfaceId: 's', sessionId: 's-1', generation: 3, kind: 'input', message: 'Say something', fields: [] });
		assert.deepEqual(r, { cancelled: false, values: { value: 'typed' } });
		const ib = fake.events.find((e) => e.type === 'inputBox') as { options: any };
		assert.equal(ib.options.prompt, 'Say something');
	});

	it('asks a confirm as a modal message with Yes/No', async () => {
		const { ui } = setup();
		fake.answer = (e) => (e.type === 'message' ? 'No' : undefined);
		const r = await ui.request({ plugin: 'p', surfaceId: 'c', sessionId: 's-1', generation: 3, kind: 'confirm', message: 'Really?', fields: [] });
		assert.deepEqual(r, { cancelled: false, values: { value: false } });
		const m = fake.events.find((e) => e.type === 'message') as { options: any; buttons: string[]; message: string };
		assert.equal(m.options.modal, true);
		assert.deepEqual(m.buttons, ['Yes', 'No']);
		assert.match(m.message, /Really\?/);
		fake.answer = (e) => (e.type === 'message' ? YES : undefined);
		assert.deepEqual(await ui.request({ plugin: 'p', surfaceId: 'c', sessionId: 's-1', generation: 3, kind: 'confirm', message: 'Really?', fields: [] }), { cancelled: false, values: { value: true } });
		fake.answer = () => undefined;
		assert.deepEqual(await ui.request({ plugin: 'p', surfaceId: 'c', sessionId: 's-1', generation: 3, kind: 'confirm', message: 'Really?', fields: [] }), { cancelled: true });
	});

	it('answers a request of an older generation {cancelled: true} without showing it', async () => {
		const { ui } = setup(4);
		fake.answer = () => { throw new Error('must not be shown'); };
		assert.deepEqual(await ui.request(select), { cancelled: true });
		assert.equal(fake.events.length, 0);
	});

	it('withdraws an open prompt when a newer generation arrives', async () => {
		const { ui, gens } = setup();
		fake.answer = () => new Promise(() => {});
		const p = ui.request(select);
		await fake.waitFor((e) => e.type === 'quickPick');
		gens.advance(4);
		assert.deepEqual(await p, { cancelled: true });
	});

	it('withdraws an open prompt when the bridge cancels the request', async () => {
		const { ui } = setup();
		fake.answer = () => new Promise(() => {});
		const src = new CancellationTokenSource();
		const p = ui.request(select, src.token);
		await fake.waitFor((e) => e.type === 'quickPick');
		src.cancel();
		assert.deepEqual(await p, { cancelled: true });
	});

	it('asks a multi-field request in steps with a working Back button', async () => {
		const { ui } = setup();
		const seen: string[] = [];
		let backDone = false;
		fake.answer = (e) => {
			if (e.type === 'createInputBox') {
				const box = e.input as FakeInputBox;
				seen.push(`input:${box.step}/${box.totalSteps}:${box.value}`);
				if (box.step === 1) {
					box.type('');
					assert.equal(box.validationMessage, REQUIRED_MESSAGE);
					assert.equal(box.visible, true, 'an empty required field is not accepted');
					box.type(backDone ? 'Grace' : 'Ada');
				} else {
					assert.deepEqual(box.buttons, [QuickInputButtons.Back]);
					box.type('x');
				}
			} else if (e.type === 'createQuickPick') {
				const qp = e.input as FakeQuickPick;
				seen.push(`pick:${qp.step}/${qp.totalSteps}:${qp.items.map((i) => i.label).join(',')}`);
				if (qp.step === 2 && !backDone) {
					backDone = true;
					qp.back();
				} else if (qp.step === 2) {
					qp.pick('casual');
				} else {
					qp.pick(YES);
				}
			}
		};
		const r = await ui.request({
			plugin: 'hello', surfaceId: 'f', sessionId: 's-1', generation: 3, kind: 'input', title: 'Profile',
			fields: [
				{ key: 'name', label: 'Name', kind: 'input', required: true },
				{ key: 'style', label: 'Style', kind: 'select', options: ['formal', 'casual'] },
				{ key: 'ok', label: 'Send?', kind: 'confirm' },
			],
		});
		assert.deepEqual(r, { cancelled: false, values: { name: 'Grace', style: 'casual', ok: true } });
		assert.deepEqual(seen, [
			'input:1/3:', 'pick:2/3:formal,casual', 'input:1/3:Ada', 'pick:2/3:formal,casual', 'pick:3/3:Yes,No',
		]);
	});

	it('cancels a multi-step request when a step is hidden', async () => {
		const { ui } = setup();
		fake.answer = (e) => {
			if (e.type === 'createInputBox') (e.input as FakeInputBox).type('Ada');
			if (e.type === 'createQuickPick') (e.input as FakeQuickPick).hide();
		};
		const r = await ui.request({ plugin: 'p', surfaceId: 'f', sessionId: 's-1', generation: 3, kind: 'input', fields: [{ key: 'a', kind: 'input' }, { key: 'b', kind: 'select', options: ['x'] }] });
		assert.deepEqual(r, { cancelled: true });
	});
});

describe('rx/ui/surface', () => {
	beforeEach(() => fake.reset());

	it('shows one status item per (plugin, surfaceId), updated in place, with progress', () => {
		const { ui } = setup();
		ui.surface({ plugin: 'hello', surfaceId: 'hello-status', sessionId: 's-1', generation: 3, kind: 'status', payload: { label: 'hello ready', detail: '1 greeting', severity: 'info', progress: 0.5 } });
		ui.surface({ plugin: 'hello', surfaceId: 'hello-status', sessionId: 's-1', generation: 3, kind: 'status', payload: { label: 'hello done', progress: 1 } });
		ui.surface({ plugin: 'other', surfaceId: 'hello-status', sessionId: 's-1', generation: 3, kind: 'status', payload: { label: 'other', severity: 'error' } });
		assert.equal(fake.statusItems.length, 2);
		const [a, b] = fake.statusItems as FakeStatusBarItem[];
		assert.equal(a.text, 'hello done 100%');
		assert.equal(a.visible, true);
		assert.equal(b.text, '$(error) other');
		assert.equal((b.backgroundColor as { id: string }).id, 'statusBarItem.errorBackground');
	});

	it('shows progress below 1 with a spinner and percentage, and plugin $(icons) as text', () => {
		const { ui } = setup();
		ui.surface({ plugin: 'hello', surfaceId: 's', sessionId: 's-1', generation: 3, kind: 'status', payload: { label: '$(zap) work', detail: 'step 1', progress: 0.25 } });
		const item = fake.statusItems[0] as FakeStatusBarItem;
		assert.equal(item.text, '$(sync~spin) $\u200b(zap) work 25%');
		assert.match(String(item.tooltip), /step 1/);
	});

	it('drops surfaces of an older generation and forgets them when a newer one arrives', () => {
		const { ui, gens } = setup();
		ui.surface({ plugin: 'hello', surfaceId: 'old', sessionId: 's-1', generation: 2, kind: 'status', payload: { label: 'stale' } });
		assert.equal(fake.statusItems.length, 0);
		ui.surface({ plugin: 'hello', surfaceId: 's', sessionId: 's-1', generation: 3, kind: 'status', payload: { label: 'now' } });
		gens.advance(4);
		assert.equal((fake.statusItems[0] as FakeStatusBarItem).disposed, true);
		assert.equal(ui.statusItems().size, 0);
	});

	it('shows notifications by severity', () => {
		const { ui } = setup();
		ui.surface({ plugin: 'hello', surfaceId: 'n1', sessionId: 's-1', generation: 3, kind: 'notification', payload: { title: 'Hello, Ada', body: 'nice to meet you' } });
		ui.surface({ plugin: 'hello', surfaceId: 'n2', sessionId: 's-1', generation: 3, kind: 'notification', payload: { title: 'careful', severity: 'warn' } });
		ui.surface({ plugin: 'hello', surfaceId: 'n3', sessionId: 's-1', generation: 3, kind: 'notification', payload: { title: 'broken', severity: 'error' } });
		const msgs = fake.events.filter((e) => e.type === 'message') as { severity: string; message: string }[];
		assert.deepEqual(msgs.map((m) => [m.severity, m.message]), [
			['info', 'hello: Hello, Ada — nice to meet you'], ['warn', 'hello: careful'], ['error', 'hello: broken'],
		]);
	});

	// Issue 19 bug 7: a card opened a Markdown preview in a new editor
	// group on every bridge start, with a toast "<plugin>: <title>".
	it('lists a card in the Reasonix view without opening an editor or a toast; it opens as a read-only preview when asked', async () => {
		const { ui, docs } = setup();
		ui.surface({
			plugin: 'hello', surfaceId: 'c1', sessionId: 's-1', generation: 3, kind: 'card',
			payload: { title: 'Stats', markdown: 'Hi <script>alert(1)</script> [x](command:workbench.action.quit)', fields: [{ key: 'greetings', value: '2' }], progress: 0.5, actions: [{ actionId: 'greet', label: 'Greet again' }] },
		});
		await new Promise((r) => setTimeout(r, 20));
		assert.deepEqual(fake.events.filter((e) => e.type === 'command' || e.type === 'message' || e.type === 'showTextDocument'), [], 'nothing opened or shown');
		const [row] = ui.cards.getChildren();
		const item = ui.cards.getTreeItem(row);
		assert.equal(item.label, 'Stats');
		assert.equal(item.description, 'hello');
		const rows = ui.cards.getChildren(row).map((n) => ui.cards.getTreeItem(n));
		assert.deepEqual(rows.map((r) => [r.label, r.description ?? '']), [['greetings', '2'], ['progress', '50%'], ['Greet again', '']]);
		assert.deepEqual(rows[2].command, { command: 'rxBridge.runAction', title: 'Greet again', arguments: ['/hello:greet'] });
		// A click opens it, in the active group.
		await vscode.commands.executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
		const preview = await fake.waitFor((e) => e.type === 'command' && e.command === 'markdown.showPreview') as { args: { scheme: string; path: string }[] };
		assert.equal(preview.args[0].scheme, 'rx-bridge');
		const text = docs.provideTextDocumentContent(preview.args[0] as never);
		assert.doesNotMatch(text, /<script/);
		assert.match(text, /&lt;script>/);
		assert.doesNotMatch(text, /\(command:/);
		assert.match(text, /\| greetings \| 2 \|/);
		assert.match(text, /Progress: 50%/);
		// Re-publishing updates the same row and document.
		ui.surface({ plugin: 'hello', surfaceId: 'c1', sessionId: 's-1', generation: 3, kind: 'card', payload: { title: 'Stats', text: 'updated' } });
		assert.equal(ui.cards.getChildren().length, 1);
		assert.match(docs.provideTextDocumentContent(preview.args[0] as never), /updated/);
		assert.equal(fake.events.filter((e) => e.type === 'command' && /markdown/.test(e.command)).length, 1);
	});

	// Issue 19 bug 4: a crashed plugin's status item kept saying it was
	// online, and nothing offered the way out.
	it('marks a crashed plugin: its status item says crashed and reloads on click, one notification offers Reload Plugins', async () => {
		const { ui, reloads, gens } = setup();
		ui.surface({ plugin: 'hello', surfaceId: 'hello-status', sessionId: 's-1', generation: 3, kind: 'status', payload: { label: 'hello: ready' } });
		fake.answer = (e) => (e.type === 'message' && e.buttons.includes('Reload Plugins') ? 'Reload Plugins' : undefined);
		const crash = { plugin: 'hello', generation: 3, state: 'crashed' as const, reason: 'extension sidecar hello crashed: exit status 2', since: '2026-01-01T00:00:00Z', recover: 'reload the plugins (rx.reload)' };
		ui.pluginState(crash);
		ui.pluginState(crash);
		ui.pluginState({ ...crash, plugin: 'other', generation: 2 }); // stale
		const item = fake.statusItems[0] as FakeStatusBarItem;
		assert.equal(item.text, '$(error) hello: crashed');
		assert.equal(item.command, 'rxBridge.reload');
		assert.match(String(item.tooltip), /exit status 2/);
		// A later publication of the crashed generation does not hide it.
		ui.surface({ plugin: 'hello', surfaceId: 'hello-status', sessionId: 's-1', generation: 3, kind: 'status', payload: { label: 'hello: ready' } });
		assert.equal(item.text, '$(error) hello: crashed');
		const msgs = fake.events.filter((e) => e.type === 'message') as { severity: string; message: string; buttons: string[] }[];
		assert.equal(msgs.length, 1, JSON.stringify(msgs));
		assert.equal(msgs[0].severity, 'error');
		assert.match(msgs[0].message, /hello crashed/);
		assert.deepEqual(msgs[0].buttons, ['Reload Plugins']);
		for (let i = 0; i < 50 && reloads.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
		assert.equal(reloads.length, 1);
		// The reload's generation forgets the crash.
		gens.advance(4);
		assert.equal(item.disposed, true);
		ui.surface({ plugin: 'hello', surfaceId: 'hello-status', sessionId: 's-1', generation: 4, kind: 'status', payload: { label: 'hello: ready' } });
		assert.equal((fake.statusItems[1] as FakeStatusBarItem).text, 'hello: ready');
	});

	// A crash of a plugin without a status item still shows.
	it('shows a crashed plugin that had no status item', () => {
		const { ui } = setup();
		ui.pluginState({ plugin: 'quiet', generation: 3, state: 'crashed', reason: 'gone', since: '', recover: '' });
		assert.equal((fake.statusItems[0] as FakeStatusBarItem).text, '$(error) quiet: crashed');
	});

	it('renders card text as plain text', () => {
		assert.match(renderCard('p', { text: '# not a heading *' }), /\\# not a heading \\\*/);
	});

	it('asks a published form and submits its values with rx/ui/submit', async () => {
		const { ui, submitted } = setup();
		fake.answer = (e) => {
			if (e.type === 'createInputBox') (e.input as FakeInputBox).type('Ada');
			if (e.type === 'createQuickPick') (e.input as FakeQuickPick).pick('b');
		};
		ui.surface({ plugin: 'hello', surfaceId: 'f-1', sessionId: 's-1', generation: 3, kind: 'form', payload: { title: 'Form', fields: [{ key: 'name', kind: 'input' }, { key: 'pick', kind: 'select', options: ['a', 'b'] }] } });
		for (let i = 0; i < 100 && submitted.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
		assert.deepEqual(submitted, [{ plugin: 'hello', surfaceId: 'f-1', generation: 3, values: { name: 'Ada', pick: 'b' } }]);
	});

	it('says so when a submitted form was stale', async () => {
		const { ui, submitted, rejectSubmit } = setup();
		rejectSubmit();
		fake.answer = (e) => (e.type === 'inputBox' ? 'v' : undefined);
		ui.surface({ plugin: 'hello', surfaceId: 'f-2', sessionId: 's-1', generation: 3, kind: 'form', payload: { title: 'One', fields: [{ key: 'v', kind: 'input' }] } });
		await fake.waitFor((e) => e.type === 'message' && e.severity === 'warn');
		assert.equal(submitted.length, 1);
	});
});

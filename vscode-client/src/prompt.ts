// Asking plugin questions natively: a single field through showQuickPick /
// showInputBox / a modal message, several fields (a form) as a multi-step
// input with a Back button.

import * as vscode from 'vscode';
import type { UIField, UIValue } from './protocol';
import { noIcons } from './text';

export interface PromptHeader {
	plugin: string;
	title?: string;
	message?: string;
}

export const REQUIRED_MESSAGE = 'A value is required';
export const YES = 'Yes';
export const NO = 'No';

/** Asks every field; undefined when the user dismissed any step. */
export async function askFields(
	header: PromptHeader,
	fields: UIField[],
	token: vscode.CancellationToken,
): Promise<Record<string, UIValue> | undefined> {
	if (fields.length === 1) {
		const v = await askSingle(header, fields[0], token);
		return v === undefined ? undefined : { [fields[0].key]: v };
	}
	return askSequence(header, fields, token);
}

function titleOf(header: PromptHeader): string {
	return noIcons(header.title ? `${header.plugin}: ${header.title}` : header.plugin);
}

function labelOf(header: PromptHeader, field: UIField): string {
	return noIcons(field.label || header.message || field.key);
}

function kindOf(field: UIField): NonNullable<UIField['kind']> {
	return field.kind ?? 'input';
}

interface OptionItem extends vscode.QuickPickItem {
	option: string;
}

function optionItems(field: UIField, picked: string[]): OptionItem[] {
	const options = field.options ?? [];
	const def = typeof field.default === 'string' ? field.default : undefined;
	const items = options.map((o) => ({
		label: noIcons(o),
		option: o,
		description: o === def ? '(default)' : undefined,
		picked: picked.includes(o),
	}));
	if (kindOf(field) === 'select' && def !== undefined) {
		const i = items.findIndex((it) => it.option === def);
		if (i > 0) items.unshift(...items.splice(i, 1));
	}
	return items;
}

function defaultList(field: UIField): string[] {
	if (Array.isArray(field.default)) return field.default.filter((x): x is string => typeof x === 'string');
	if (typeof field.default === 'string' && field.default !== '') return field.default.split(',').map((s) => s.trim());
	return [];
}

function defaultString(field: UIField): string {
	return typeof field.default === 'string' ? field.default : '';
}

function validator(field: UIField) {
	return (value: string) => (field.required && value.trim() === '' ? REQUIRED_MESSAGE : undefined);
}

async function askSingle(header: PromptHeader, field: UIField, token: vscode.CancellationToken): Promise<UIValue | undefined> {
	const title = titleOf(header);
	const label = labelOf(header, field);
	switch (kindOf(field)) {
		case 'confirm': {
			const detail = header.message && header.message !== field.label ? noIcons(header.message) : undefined;
			const answer = await vscode.window.showInformationMessage(
				`${title}: ${label}`, { modal: true, detail }, YES, NO);
			if (token.isCancellationRequested || answer === undefined) return undefined;
			return answer === YES;
		}
		case 'select': {
			const picked = await vscode.window.showQuickPick(optionItems(field, []), {
				title, placeHolder: label, ignoreFocusOut: true,
			}, token);
			return picked?.option;
		}
		case 'multiselect': {
			for (;;) {
				const picked = await vscode.window.showQuickPick(optionItems(field, defaultList(field)), {
					title, placeHolder: label, ignoreFocusOut: true, canPickMany: true,
				}, token);
				if (picked === undefined || token.isCancellationRequested) return undefined;
				if (field.required && picked.length === 0) {
					void vscode.window.showWarningMessage(`${title}: ${REQUIRED_MESSAGE}`);
					continue;
				}
				return picked.map((p) => p.option);
			}
		}
		default: {
			const value = await vscode.window.showInputBox({
				title, prompt: label, value: defaultString(field), ignoreFocusOut: true,
				validateInput: validator(field),
			}, token);
			return value;
		}
	}
}

type StepResult = { kind: 'value'; value: UIValue } | { kind: 'back' } | { kind: 'cancel' };

async function askSequence(
	header: PromptHeader,
	fields: UIField[],
	token: vscode.CancellationToken,
): Promise<Record<string, UIValue> | undefined> {
	const values: Record<string, UIValue> = {};
	let i = 0;
	while (i < fields.length) {
		if (token.isCancellationRequested) return undefined;
		const f = fields[i];
		const r = await askStep(header, f, i + 1, fields.length, values[f.key], token);
		if (r.kind === 'cancel') return undefined;
		if (r.kind === 'back') {
			i = Math.max(0, i - 1);
			continue;
		}
		values[f.key] = r.value;
		i++;
	}
	return values;
}

function askStep(
	header: PromptHeader,
	field: UIField,
	step: number,
	totalSteps: number,
	previous: UIValue | undefined,
	token: vscode.CancellationToken,
): Promise<StepResult> {
	const kind = kindOf(field);
	if (kind === 'input') return inputStep(header, field, step, totalSteps, previous, token);
	return pickStep(header, field, step, totalSteps, previous, token);
}

function inputStep(
	header: PromptHeader, field: UIField, step: number, totalSteps: number,
	previous: UIValue | undefined, token: vscode.CancellationToken,
): Promise<StepResult> {
	return new Promise((resolve) => {
		const box = vscode.window.createInputBox();
		box.title = titleOf(header);
		box.step = step;
		box.totalSteps = totalSteps;
		box.prompt = labelOf(header, field);
		box.value = typeof previous === 'string' ? previous : defaultString(field);
		box.ignoreFocusOut = true;
		box.buttons = step > 1 ? [vscode.QuickInputButtons.Back] : [];
		const validate = validator(field);
		const done = settle(box, resolve, token);
		box.onDidChangeValue((v) => { box.validationMessage = validate(v); });
		box.onDidTriggerButton((b) => { if (b === vscode.QuickInputButtons.Back) done({ kind: 'back' }); });
		box.onDidAccept(() => {
			const msg = validate(box.value);
			box.validationMessage = msg;
			if (!msg) done({ kind: 'value', value: box.value });
		});
		box.show();
	});
}

function pickStep(
	header: PromptHeader, field: UIField, step: number, totalSteps: number,
	previous: UIValue | undefined, token: vscode.CancellationToken,
): Promise<StepResult> {
	return new Promise((resolve) => {
		const kind = kindOf(field);
		const qp = vscode.window.createQuickPick<OptionItem>();
		qp.title = titleOf(header);
		qp.step = step;
		qp.totalSteps = totalSteps;
		qp.placeholder = labelOf(header, field);
		qp.ignoreFocusOut = true;
		qp.canSelectMany = kind === 'multiselect';
		qp.buttons = step > 1 ? [vscode.QuickInputButtons.Back] : [];
		let items: OptionItem[];
		if (kind === 'confirm') {
			items = [{ label: YES, option: YES }, { label: NO, option: NO }];
			const def = typeof previous === 'boolean' ? previous : field.default;
			if (def === false) items.reverse();
		} else {
			const picked = Array.isArray(previous) ? previous : defaultList(field);
			items = optionItems(field, picked);
			if (typeof previous === 'string') {
				const i = items.findIndex((it) => it.option === previous);
				if (i > 0) items.unshift(...items.splice(i, 1));
			}
		}
		qp.items = items;
		if (qp.canSelectMany) qp.selectedItems = items.filter((it) => it.picked);
		const done = settle(qp, resolve, token);
		qp.onDidTriggerButton((b) => { if (b === vscode.QuickInputButtons.Back) done({ kind: 'back' }); });
		qp.onDidAccept(() => {
			if (kind === 'multiselect') {
				const sel = qp.selectedItems.map((it) => it.option);
				if (field.required && sel.length === 0) {
					qp.placeholder = `${labelOf(header, field)} — ${REQUIRED_MESSAGE}`;
					return;
				}
				done({ kind: 'value', value: sel });
				return;
			}
			const sel = qp.selectedItems[0] ?? qp.activeItems[0];
			if (!sel) return;
			done({ kind: 'value', value: kind === 'confirm' ? sel.option === YES : sel.option });
		});
		qp.show();
	});
}

function settle(
	input: vscode.QuickInput,
	resolve: (r: StepResult) => void,
	token: vscode.CancellationToken,
): (r: StepResult) => void {
	let settled = false;
	const subs: vscode.Disposable[] = [];
	const done = (r: StepResult) => {
		if (settled) return;
		settled = true;
		for (const s of subs) s.dispose();
		input.dispose();
		resolve(r);
	};
	subs.push(input.onDidHide(() => done({ kind: 'cancel' })));
	subs.push(token.onCancellationRequested(() => done({ kind: 'cancel' })));
	return done;
}

// The rx/ namespace: the types generated from docs/editor-protocol.json
// (protocol.gen.ts, `go generate ./internal/bridge/rxproto`), plus what only this
// client adds: the LSP method it runs commands with, its capabilities, and
// narrowed views of the generated unions.

import type {
	CardPayload, FormPayload, NotificationPayload, ServerCapabilities, SessionUpdate, StatusPayload, UISurface as WireSurface, UISurfaceKind,
} from './protocol.gen';
import { Method as RxMethod, PROTOCOL_VERSION } from './protocol.gen';

export * from './protocol.gen';

export const Method = {
	...RxMethod,
	executeCommand: 'workspace/executeCommand',
} as const;

/** `experimental.rxBridge` of the client's initialize params (§1.1). */
export function rxClientCapabilities() {
	return {
		version: PROTOCOL_VERSION,
		ui: {
			select: true, multiselect: true, input: true, confirm: true,
			form: true, notification: true, status: true, card: true,
		},
		sessionUpdates: true,
		lmChat: true,
		// VS Code's refactor preview reviews an applyEdit whose change
		// annotations need confirmation (the LanguageClient declares
		// workspace.applyEdit and changeAnnotationSupport).
		reviewEdits: true,
	};
}

/**
 * `experimental.rxBridge` of the server's initialize result (§1.2), as this
 * client reads it: any member may be missing (an older bridge).
 */
export type ServerInfo = Partial<ServerCapabilities>;

/** An answer value: confirm → boolean, input and select → string, multiselect → string[]. */
export type UIValue = boolean | string | string[];

type SurfaceOf<K extends UISurfaceKind, P> = Omit<WireSurface, 'kind' | 'payload'> & { kind: K; payload: P };

/** rx/ui/surface with its payload narrowed by kind. */
export type UISurface =
	| SurfaceOf<'status', StatusPayload>
	| SurfaceOf<'notification', NotificationPayload>
	| SurfaceOf<'card', CardPayload>
	| SurfaceOf<'form', FormPayload>;

/** The body of an rx/session/update, discriminated by sessionUpdate. */
export type SessionUpdateBody = SessionUpdate['update'];

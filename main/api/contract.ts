// The one API contract shared by every transport (Electron IPC, WebSocket, direct calls).
// Each feature owns a file under contract/: its request and result types, its events, and the JSON
// Schema of each method's parameters (plain data, so transports validate every call at the
// boundary). The renderer imports only types from here.
import type { CoreApi } from './contract/core.js';
import type { EditorApi } from './contract/editor.js';
import type { SceneApi } from './contract/scene.js';
import type { MissionApi, MissionEvent } from './contract/mission.js';
import type { AuditApi } from './contract/audit.js';
import type { JobEvent } from './contract/core.js';
import { CORE_PARAMS } from './contract/core.js';
import { EDITOR_PARAMS } from './contract/editor.js';
import { SCENE_PARAMS } from './contract/scene.js';
import { MISSION_PARAMS } from './contract/mission.js';
import { AUDIT_PARAMS } from './contract/audit.js';

export type * from './contract/core.js';
export type * from './contract/editor.js';
export type * from './contract/scene.js';
export type * from './contract/mission.js';
export type * from './contract/audit.js';

/** Every method takes one parameter object and resolves to its result, or rejects with an ApiError. */
export interface WitnessApi extends CoreApi, EditorApi, SceneApi, MissionApi, AuditApi {}

export type ApiMethod = keyof WitnessApi;
export type ApiParams<M extends ApiMethod> = Parameters<WitnessApi[M]>[0];
export type ApiResult<M extends ApiMethod> = Awaited<ReturnType<WitnessApi[M]>>;

/** What main pushes to every connected UI: job progress and mission events. */
export type ApiEvent = JobEvent | MissionEvent;

/** A JSON Schema (draft 2020-12) as plain data. */
export type ParamSchema = Readonly<Record<string, unknown>>;

/** The parameter schema of every method: the list of methods a transport accepts. */
export const API_PARAMS: Readonly<Record<ApiMethod, ParamSchema>> = Object.freeze({
  ...CORE_PARAMS,
  ...EDITOR_PARAMS,
  ...SCENE_PARAMS,
  ...MISSION_PARAMS,
  ...AUDIT_PARAMS,
});

export const API_METHODS: readonly ApiMethod[] = Object.freeze(Object.keys(API_PARAMS) as ApiMethod[]);

/** How a call's outcome crosses a transport. */
export type ApiEnvelope = { ok: true; result: unknown } | { ok: false; error: import('./contract/core.js').ApiError };

/**
 * What the preload (Electron) and the WebSocket client (web mode) both provide to the renderer;
 * the renderer builds the typed WitnessApi over it.
 */
export interface WitnessBridge {
  invoke(method: string, params: unknown): Promise<ApiEnvelope>;
  /** Calls `listener` with every event main pushes; returns the unsubscribe function. */
  subscribe(listener: (event: ApiEvent) => void): () => void;
  /** 'electron' or 'web'. */
  readonly transport: 'electron' | 'web';
}

/** The IPC channels (Electron): one for calls, one for pushed events. */
export const IPC_INVOKE = 'witness:invoke';
export const IPC_EVENT = 'witness:event';

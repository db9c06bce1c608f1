// The one API contract shared by every transport (Electron IPC, WebSocket, direct calls).
// Each feature owns a file under api/: its request and result types, its events, and the JSON
// Schema of each method's parameters, from which the parameter types are derived (TypeBox), so
// transports validate every call at the boundary against the very definition the code is typed by.
// The renderer imports only types from here (its constants come from ../defaults.ts).
import type { CoreApi } from './api/core.js';
import type { EditorApi } from './api/editor.js';
import type { SceneApi } from './api/scene.js';
import type { EstopEvent, MissionApi, MissionEvent } from './api/mission.js';
import type { AuditApi } from './api/audit.js';
import type { ActApi, ActEvent } from './api/act.js';
import type { FoxgloveApi, FoxgloveEvent } from './api/foxglove.js';
import type { FleetApi, FleetEvent } from './api/fleet.js';
import type { JobEvent } from './api/core.js';
import { CORE_PARAMS } from './api/core.js';
import { EDITOR_PARAMS } from './api/editor.js';
import { SCENE_PARAMS } from './api/scene.js';
import { MISSION_PARAMS } from './api/mission.js';
import { AUDIT_PARAMS } from './api/audit.js';
import { ACT_PARAMS } from './api/act.js';
import { FOXGLOVE_PARAMS } from './api/foxglove.js';
import { FLEET_PARAMS } from './api/fleet.js';

export type * from './api/core.js';
export type * from './api/editor.js';
export type * from './api/scene.js';
export type * from './api/mission.js';
export type * from './api/audit.js';
export type * from './api/act.js';
export type * from './api/foxglove.js';
export type * from './api/fleet.js';

/** Every method takes one parameter object and resolves to its result, or rejects with an ApiError. */
export interface WitnessApi extends CoreApi, EditorApi, SceneApi, MissionApi, AuditApi, ActApi, FoxgloveApi, FleetApi {}

export type ApiMethod = keyof WitnessApi;
export type ApiParams<M extends ApiMethod> = Parameters<WitnessApi[M]>[0];
export type ApiResult<M extends ApiMethod> = Awaited<ReturnType<WitnessApi[M]>>;

/**
 * What main pushes to every connected UI: job progress, mission events, the E-STOP, the Foxglove server and a fleet
 * source's mirroring.
 */
export type ApiEvent = JobEvent | MissionEvent | EstopEvent | ActEvent | FoxgloveEvent | FleetEvent;

/** A JSON Schema (draft 2020-12) as plain data. */
export type ParamSchema = Readonly<Record<string, unknown>>;

/** The parameter schema of every method: the list of methods a transport accepts. */
export const API_PARAMS: Readonly<Record<ApiMethod, ParamSchema>> = Object.freeze({
  ...CORE_PARAMS,
  ...EDITOR_PARAMS,
  ...SCENE_PARAMS,
  ...MISSION_PARAMS,
  ...AUDIT_PARAMS,
  ...ACT_PARAMS,
  ...FOXGLOVE_PARAMS,
  ...FLEET_PARAMS,
});

export const API_METHODS: readonly ApiMethod[] = Object.freeze(Object.keys(API_PARAMS) as ApiMethod[]);

/** How a call's outcome crosses a transport. */
export type ApiEnvelope = { ok: true; result: unknown } | { ok: false; error: import('./api/core.js').ApiError };

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

export { IPC_EVENT, IPC_INVOKE } from './ipc.js';

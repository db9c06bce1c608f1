/**
 * The API served by direct calls: the implementation every transport (IPC, WebSocket, CLI) wraps,
 * composed from one handler set per feature.
 */
import type { WitnessApi } from './contract.js';
import { type ApiContext, type ContextOptions, createContext } from './context.js';
import { coreHandlers } from './handlers/core.js';
import { editorHandlers } from './handlers/editor.js';
import { sceneHandlers } from './handlers/scene.js';
import { missionHandlers } from './handlers/mission.js';
import { auditHandlers } from './handlers/audit.js';

export interface DirectApi extends WitnessApi {
  readonly context: ApiContext;
  /** Stops running missions and closes what the handlers hold open. */
  close(): Promise<void>;
}

export function createDirectApi(options: ContextOptions = {}): DirectApi {
  const context = createContext(options);
  const mission = missionHandlers(context);
  const audit = auditHandlers(context);
  return {
    ...coreHandlers(context),
    ...editorHandlers(context),
    ...sceneHandlers(context),
    ...mission.api,
    ...audit.api,
    context,
    close: async () => {
      await mission.close();
      await audit.close();
    },
  };
}

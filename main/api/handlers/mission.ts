/** Operator-console handlers: worlds, planning a mission, running it under the operator's control. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { MissionApi, WorldInfo } from '../contract.js';
import type { ApiContext } from '../context.js';
import { fail } from '../failure.js';
import { POINTMAZE_IDS } from '../../backends/mujoco/pointmaze.js';

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch {
    return [];
  }
}

export function worldsOf(ctx: ApiContext): WorldInfo[] {
  return POINTMAZE_IDS.map((id) => ({
    id,
    title: `Point maze (${id.replace('pointmaze-', '')})`,
    kind: 'maze' as const,
    regions: existsSync(path.join(ctx.assets, 'regions', `${id}.json`)) ? `regions/${id}.json` : null,
    models: listDirs(path.join(ctx.assets, 'models')).filter((m) => m === id),
  }));
}

export function missionHandlers(ctx: ApiContext): { api: MissionApi; close(): Promise<void> } {
  const todo = (): Promise<never> => Promise.reject(fail('not-implemented', 'not implemented yet'));
  return {
    api: {
      listWorlds: () => Promise.resolve(worldsOf(ctx)),
      missionPlan: todo,
      missionRun: todo,
      missionControl: todo,
      escalationDecide: todo,
    },
    close: () => Promise.resolve(),
  };
}

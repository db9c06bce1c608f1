/** What every handler shares: where files live, how to push events, the job registry. */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventBus } from './events.js';
import { Jobs } from './jobs.js';
import { defaultAuditFile } from '../services/audit/mission-recorder.js';
import type { LoaderDeps } from '../backends/ros2/rclnodejs-loader.js';

export interface ApiContext {
  readonly transport: 'electron' | 'web' | 'direct';
  /** The folder the editors open and save in; nothing outside it is read or written for them. */
  readonly workspace: string;
  /** The audit database missions are recorded in. */
  readonly auditFile: string;
  /** The app's shipped assets (scenes, models, regions, tools). */
  readonly assets: string;
  readonly bus: EventBus;
  readonly jobs: Jobs;
  /** How rclnodejs is found (tests substitute the environment and the importer). */
  readonly ros2?: LoaderDeps;
}

export interface ContextOptions {
  transport?: ApiContext['transport'];
  workspace?: string;
  auditFile?: string;
  bus?: EventBus;
  ros2?: LoaderDeps;
}

export const ASSETS_DIR = fileURLToPath(new URL('../../../assets', import.meta.url));

export function createContext(o: ContextOptions = {}): ApiContext {
  const bus = o.bus ?? new EventBus();
  return {
    transport: o.transport ?? 'direct',
    workspace: path.resolve(o.workspace ?? process.env.WITNESS_WORKSPACE ?? path.join(os.homedir(), 'witness-workspace')),
    auditFile: path.resolve(o.auditFile ?? defaultAuditFile()),
    assets: ASSETS_DIR,
    bus,
    jobs: new Jobs(bus),
    ...(o.ros2 !== undefined ? { ros2: o.ros2 } : {}),
  };
}

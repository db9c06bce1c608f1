/**
 * A session of the workbench (the desktop app, web mode, or direct calls): where its files live,
 * how it pushes events to the UI, its long jobs, and how it finds ROS 2.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { EventBus } from './events.js';
import { Jobs } from './jobs.js';
import { ASSETS_DIR, RENDERER_DIST, defaultAuditFile, defaultFleetUrl, defaultWorkspace } from '../platform/paths.js';
import type { LoaderDeps, OpenOptions } from '../backends/catalogue.js';
import type { WorldFault } from '../core/world/faults.js';

type Transport = 'electron' | 'web' | 'direct';

export interface Session {
  readonly transport: Transport;
  /** The folder the editors open and save in; nothing outside it is read or written for them. */
  readonly workspace: string;
  /** The audit database missions are recorded in. */
  readonly auditFile: string;
  /**
   * The fleet store the audit browser reads (a PostgreSQL URL, credentials included: it stays in main, the UI sees it
   * with the password masked); absent: none.
   */
  readonly fleet?: string;
  /** The app's shipped assets (scenes, models, regions, tools). */
  readonly assets: string;
  readonly bus: EventBus;
  readonly jobs: Jobs;
  /** How rclnodejs is found (tests substitute the environment and the importer). */
  readonly ros2?: LoaderDeps;
  /** Tests only: faults every world this session opens injects on cue (core/world/faults.ts). */
  readonly faults?: readonly WorldFault[];
}

export interface SessionOptions {
  readonly transport?: Transport;
  readonly workspace?: string;
  readonly auditFile?: string;
  /** The fleet store (default: $WITNESS_FLEET, else none). */
  readonly fleet?: string;
  readonly bus?: EventBus;
  readonly ros2?: LoaderDeps;
  /** Tests only: faults every world this session opens injects on cue (core/world/faults.ts). */
  readonly faults?: readonly WorldFault[];
}

export function createSession(o: SessionOptions = {}): Session {
  const bus = o.bus ?? new EventBus();
  const fleet = o.fleet ?? defaultFleetUrl();
  return {
    transport: o.transport ?? 'direct',
    workspace: path.resolve(o.workspace ?? defaultWorkspace()),
    auditFile: path.resolve(o.auditFile ?? defaultAuditFile()),
    ...(fleet !== undefined ? { fleet } : {}),
    assets: ASSETS_DIR,
    bus,
    jobs: new Jobs(bus),
    ...(o.ros2 !== undefined ? { ros2: o.ros2 } : {}),
    ...(o.faults !== undefined && o.faults.length > 0 ? { faults: o.faults } : {}),
  };
}

/** How the session's worlds are opened: its ROS 2 loader, its injected faults (tests). */
export function sessionOpen(s: Session): OpenOptions {
  return { ...(s.ros2 !== undefined ? { ros2: s.ros2 } : {}), ...(s.faults !== undefined ? { faults: s.faults } : {}) };
}

/** The built UI that web mode serves and the desktop window loads. */
export const UI_DIR = RENDERER_DIST;

/** Whether the UI has been built (`npm run build`). */
export function uiBuilt(): boolean {
  return existsSync(path.join(UI_DIR, 'index.html'));
}

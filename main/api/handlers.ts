/**
 * The API's handlers: each takes the method's parameters (the transports have validated them against
 * the contract's schemas), calls the application layer, and returns its result. A WitnessError
 * becomes the caller's ApiError (contract/errors.ts errorReport); anything else is internal.
 */
import type { WitnessApi } from '../contract/api.js';
import { VERSION } from '../contract/version.js';
import type { Session } from '../app/session.js';
import { PlanThreads } from '../app/plan-threads.js';
import { ros2Status } from '../app/worlds.js';
import { Workspace, patternTemplates, toolCheck, toolSchema, vocabularyView } from '../app/editor.js';
import { MissionConsole } from '../app/console.js';
import { ActConsole } from '../app/act-console.js';
import { trainModelsJob } from '../app/train.js';
import { AuditThreads } from '../app/audit-threads.js';
import { FoxgloveConsole } from '../app/foxglove-console.js';
import { redactStoreUrl } from '../app/fleet.js';

/** Synchronous work as a promise: a thrown error becomes the rejection. */
const attempt = <T>(work: () => T): Promise<T> => new Promise<T>((resolve) => resolve(work()));

export interface Handlers {
  readonly api: WitnessApi;
  /**
   * Stops running missions and tool loops (`reason`: why, recorded with each; default: the operator stopped them) and
   * closes what the handlers hold open.
   */
  readonly close: (reason?: string) => Promise<void>;
  /** Audit databases open now (tests check the bound). */
  readonly auditConnections: () => number;
}

export function handlers(session: Session): Handlers {
  const workspace = new Workspace(session.workspace);
  // Work that can take seconds runs in worker threads: this loop answers the E-STOP.
  const planning = new PlanThreads(session);
  const missions = new MissionConsole(session, planning.consolePlanning());
  const acts = new ActConsole(session, missions.estop, () => missions.auditLog(), planning.actPlanning());
  const audit = new AuditThreads(session);
  const foxglove = new FoxgloveConsole(session);
  // The fleet sources being pulled now, each pull's way to stop it (fleetStop).
  const pulls = new Map<string, Set<AbortController>>();
  const mirror = async (logId: string): ReturnType<WitnessApi['fleetMirror']> => {
    const stop = new AbortController();
    const mine = pulls.get(logId) ?? new Set<AbortController>();
    pulls.set(logId, mine.add(stop));
    try {
      return await audit.call('fleetMirror', { logId }, stop.signal, (p) =>
        session.bus.emit({ topic: 'fleet.mirror', logId, pulled: (p as { pulled: number }).pulled }),
      );
    } finally {
      mine.delete(stop);
      if (mine.size === 0 && pulls.get(logId) === mine) pulls.delete(logId);
    }
  };
  const api: WitnessApi = {
    // Core: the application, LTL, labelled-graph planning, jobs.
    ltlTranslate: (r) => planning.call('ltlTranslate', r),
    planGraph: (r) => planning.call('planGraph', r),
    version: () => Promise.resolve(VERSION),
    appInfo: () =>
      Promise.resolve({
        version: VERSION,
        transport: session.transport,
        workspace: session.workspace,
        auditFile: session.auditFile,
      }),
    ros2Status: () => ros2Status(session.ros2),
    cancelJob: ({ job }) => Promise.resolve({ cancelled: session.jobs.cancel(job) }),
    // Editors.
    ltlCheck: (r) => planning.call('ltlCheck', r),
    toolCheck: ({ text, world }) => attempt(() => toolCheck(text, world)),
    rulesCheck: ({ text, world, tools }) => acts.rulesCheck(text, world, tools),
    worldVocabulary: ({ world }) => attempt(() => vocabularyView(world)),
    toolSchema: () => Promise.resolve(toolSchema()),
    ltlPatterns: () => Promise.resolve(patternTemplates()),
    workspaceList: () => workspace.list(),
    workspaceRead: ({ path }) => workspace.read(path),
    workspaceWrite: ({ path, text, baseVersion }) => workspace.write(path, text, baseVersion),
    // Graph view.
    sceneFromGraph: (r) => planning.call('sceneFromGraph', r),
    automatonView: (r) => planning.call('automatonView', r),
    missionGraph: ({ session, view }) => attempt(() => missions.graph(session, view)),
    // Operator console.
    listWorlds: () => missions.worlds(),
    missionPlan: (r) => missions.plan(r),
    missionSession: ({ session }) => attempt(() => missions.shown(session)),
    missionRun: (r) => missions.run(r),
    missionControl: ({ run, action }) => attempt(() => missions.control(run, action)),
    missionLive: () => attempt(() => missions.liveMission()),
    emergencyStop: (r) => missions.emergencyStop(r?.note),
    estopState: () => Promise.resolve(missions.estop.state()),
    estopReset: ({ acknowledged, reason }) => missions.estop.reset(reason, acknowledged === true),
    escalationDecide: ({ run, escalation, decision, reason }) =>
      attempt(() =>
        acts.has(run)
          ? acts.decide(run, escalation, decision, reason)
          : missions.decide(run, escalation, decision, reason),
      ),
    // The tool loop in the console.
    actOptions: () => acts.options(),
    actRun: (r) => acts.run(r),
    actStop: ({ run }) => attempt(() => acts.stop(run)),
    trainModels: (r) => trainModelsJob(session, r),
    // The console's live Foxglove server (127.0.0.1 only).
    foxgloveStart: ({ port }) => foxglove.start(port),
    foxgloveStop: () => foxglove.stop(),
    foxgloveState: () => Promise.resolve(foxglove.state()),
    // Audit browser (read-only), in worker threads: no read holds the loop that answers the E-STOP.
    auditRuns: (r) => audit.call('auditRuns', r),
    auditHead: (r) => audit.call('auditHead', r),
    auditFacets: (r) => audit.call('auditFacets', r),
    auditQuery: (r) => audit.call('auditQuery', r),
    auditLocate: (r) => audit.call('auditLocate', r),
    auditEvent: (r) => audit.call('auditEvent', r),
    auditReplay: (r) => audit.call('auditReplay', r),
    auditVerify: (r) => audit.call('auditVerify', r),
    auditExport: (r) => audit.call('auditExport', r),
    // The fleet store (when the session names one): its sources, and a source pulled into its local replica, which
    // the audit methods above then read; in the audit workers too. Its URL's password never leaves main.
    fleetInfo: () => Promise.resolve({ store: session.fleet !== undefined ? redactStoreUrl(session.fleet) : null }),
    fleetSources: (r) => audit.call('fleetSources', r),
    fleetMirror: ({ logId }) => mirror(logId),
    fleetStop: ({ logId }) => {
      const mine = [...(pulls.get(logId) ?? [])];
      for (const c of mine) c.abort();
      return Promise.resolve({ stopped: mine.length });
    },
  };
  return {
    api,
    auditConnections: () => audit.openConnections,
    close: async (reason) => {
      // Pending audit reads and planning fail at once ('cancelled') while the missions stop.
      const threadsClosed = Promise.all([audit.close(), planning.close()]);
      // Every tool loop and mission is stopped at once (each robot's goal cancelled), then the missions' audit log
      // closes.
      await Promise.all([acts.close(reason), missions.stopAll(reason)]);
      await missions.close();
      await foxglove.close();
      await threadsClosed;
    },
  };
}

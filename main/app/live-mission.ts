/**
 * The console's mission run as a window that opens now must see it: every event the run sends is
 * folded into a snapshot — its state, the plan in force and its scene, the ticks so far (the trail
 * and the plots), the event list, an escalation waiting for a decision, how it ended — numbered
 * like the events themselves, so a window joins from the snapshot and applies only later events.
 */
import type {
  AutomatonView,
  GraphScene,
  MissionEvent,
  MissionLive,
  MissionLiveTick,
  PlanView,
} from '../contract/api.js';

/** Ticks a snapshot keeps; when full, the older half keeps every other tick. */
const MAX_LIVE_TICKS = 8000;
/** Event-list lines a snapshot keeps (the console's list shows as many). */
const MAX_LIVE_EVENTS = 500;

/** What a run starts from: the plan as it was shown. */
export interface LiveStart {
  readonly run: string;
  readonly session: string;
  readonly scene: GraphScene;
  readonly plan: PlanView;
  /** The sha256 of the plan document served (what the run executes first). */
  readonly plan_sha: string;
  readonly automaton: AutomatonView;
}

export class LiveMission {
  private readonly live: MissionLive;

  constructor(
    start: LiveStart,
    private readonly maxTicks = MAX_LIVE_TICKS,
    private readonly maxEvents = MAX_LIVE_EVENTS,
  ) {
    this.live = {
      run: start.run,
      auditRun: null,
      state: 'running',
      seq: 0,
      session: start.session,
      scene: start.scene,
      plan: start.plan,
      shown_sha: start.plan_sha,
      plan_sha: start.plan_sha,
      automaton: start.automaton,
      replannedAt: null,
      ticks: [],
      tickCount: 0,
      events: [],
      escalation: null,
      end: null,
    };
  }

  get run(): string {
    return this.live.run;
  }

  /** The run's audit run, once it is recorded. */
  recorded(auditRun: string | null): void {
    this.live.auditRun = auditRun;
  }

  /** Folds one of the run's events in (in the order the run sent them). */
  record(e: MissionEvent): void {
    const l = this.live;
    if (e.run !== l.run || e.seq <= l.seq) return;
    l.seq = e.seq;
    switch (e.topic) {
      case 'mission.tick':
        this.tick({
          t: e.t,
          x: e.x,
          y: e.y,
          states: e.states,
          labels: e.labels,
          target: e.target,
          progress: e.progress,
          distance_m: e.distance_m,
          speed_mps: e.speed_mps,
          elapsed_s: e.elapsed_s,
        });
        break;
      case 'mission.state':
        l.state = e.state;
        if (e.state !== 'escalated') l.escalation = null;
        break;
      case 'mission.escalation':
        l.escalation = e.escalation;
        break;
      case 'mission.event':
        l.events.push({ t: e.t, kind: e.kind, detail: e.detail });
        if (l.events.length > this.maxEvents) l.events.splice(0, l.events.length - this.maxEvents);
        break;
      case 'mission.replan':
        l.plan = e.plan;
        l.plan_sha = e.plan_sha;
        l.scene = e.scene;
        l.replannedAt = e.t;
        break;
      case 'mission.end':
        l.end = {
          success: e.success,
          outcome: e.outcome,
          failureMode: e.failureMode,
          message: e.message,
          steps: e.steps,
          auditRun: e.auditRun,
          trajectory: e.trajectory,
        };
        l.escalation = null;
        if (e.auditRun !== null) l.auditRun = e.auditRun;
        break;
    }
  }

  private tick(t: MissionLiveTick): void {
    const ticks = this.live.ticks;
    this.live.tickCount++;
    ticks.push(t);
    if (ticks.length <= this.maxTicks) return;
    // Halve the older half: the recent past keeps full resolution.
    const half = Math.floor(ticks.length / 2);
    const older = ticks.slice(0, half).filter((_, i) => i % 2 === 0);
    ticks.splice(0, half, ...older);
  }

  /** A copy of where the run stands, for a window to join it. */
  snapshot(): MissionLive {
    const l = this.live;
    return {
      ...l,
      ticks: l.ticks.map((t) => ({ ...t, states: [...t.states], labels: [...t.labels], progress: { ...t.progress } })),
      events: l.events.map((e) => ({ ...e })),
    };
  }
}

/**
 * What the Graph tab keeps of the mission console's messages so that it can show the mission at
 * any time, not only while it is the tab on screen: the scene and plan in force (replaced on every
 * replan), the planned session (for its latent and product graphs), the robot, its driven trail
 * and the monitor's states. No DOM here.
 */
import type { AutomatonView, GraphScene, PlanView } from '../../../main/contract/api.js';
import type { LocalMessage } from '../app.js';

/** Trail points kept while following (older ones thinned: every other point dropped). */
const MAX_TRAIL = 20_000;

export interface FollowedMission {
  scene: GraphScene;
  plan: PlanView | null;
  automaton: AutomatonView | null;
  session: string | null;
}

export class MissionFollow {
  current: FollowedMission | null = null;
  trail: [number, number][] = [];
  robot: { x: number; y: number } | null = null;
  states: number[] | null = null;
  labels: string[] = [];
  t: number | null = null;
  ticks = 0;
  replans = 0;
  ended = false;
  /** The audit run of the run followed (the live one, or the last), once known. */
  auditRun: string | null = null;

  scene(m: Extract<LocalMessage, { kind: 'scene' }>): void {
    const replan = m.replan !== undefined;
    if (!replan) {
      // A new plan: nothing of the previous run applies to it.
      this.trail = [];
      this.clearRun();
      this.ended = false;
      this.auditRun = null;
    } else this.replans++;
    this.current = {
      scene: m.scene,
      plan: m.plan,
      automaton: m.automaton ?? this.current?.automaton ?? null,
      session: m.session ?? (replan ? (this.current?.session ?? null) : null),
    };
  }

  /** Forgets the last run's robot, monitor states and counts (a new plan, or a run starting). */
  private clearRun(): void {
    this.robot = null;
    this.states = null;
    this.labels = [];
    this.t = null;
    this.ticks = 0;
    this.replans = 0;
  }

  robotAt(m: Extract<LocalMessage, { kind: 'robot' }>): void {
    this.ticks++;
    this.robot = { x: m.x, y: m.y };
    this.states = [...m.states];
    this.labels = m.labels ?? [];
    this.t = m.t ?? this.t;
    this.trail.push([m.x, m.y]);
    if (this.trail.length > MAX_TRAIL)
      this.trail = this.trail.filter((_, i) => i % 2 === 0 || i === this.trail.length - 1);
  }

  /**
   * The run's whole driven path (at its end), an empty one (a run starts), or the path so far (a window joins a run).
   */
  setTrail(points: readonly [number, number][], ended: boolean, auditRun?: string | null): void {
    if (auditRun !== undefined && auditRun !== null) this.auditRun = auditRun;
    this.trail = points.map(([x, y]) => [x, y]);
    this.ended = ended;
    if (!ended && points.length === 0) this.clearRun();
    const last = points[points.length - 1];
    if (ended && last !== undefined) this.robot = { x: last[0], y: last[1] };
  }

  /** One line for the follow status. */
  describe(): string {
    if (this.current === null) return 'no mission planned in the console';
    if (this.robot === null) return 'mission planned, not running';
    const parts = [
      this.t !== null ? `t=${this.t}` : '',
      `robot (${this.robot.x.toFixed(2)}, ${this.robot.y.toFixed(2)})`,
      this.states !== null ? `monitor {${this.states.join(', ')}}` : '',
      this.labels.length > 0 ? `at {${this.labels.join(', ')}}` : '',
      this.replans > 0 ? `${this.replans} replan${this.replans === 1 ? '' : 's'}` : '',
      this.ended ? 'ended' : 'running',
    ];
    return parts.filter(Boolean).join(' · ');
  }
}

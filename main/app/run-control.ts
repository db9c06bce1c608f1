/**
 * The operator's hold on one running mission: pause and resume, stop, emergency stop, pacing to a
 * watchable speed, live ticks to the UI, and escalations that wait for a decision. It implements
 * the mission's MissionControl hooks; the API handlers drive it.
 */
import type { ConsoleEscalation, MissionEvent, MissionEventBody, RunState } from '../contract/api.js';
import type { Escalation, OperatorDecision } from '../contract/failure.js';
import type { DecisionKind } from '../contract/defaults.js';
import type { MissionControl, MissionTick } from '../core/exec/run-skeleton.js';
import { Turns } from '../platform/event-loop.js';

/** Least time between two position ticks pushed to the UI (about 30 per second). */
const TICK_MS = 33;

export class RunControl implements MissionControl {
  state: RunState = 'running';
  private resume: (() => void) | null = null;
  private stopReason: string | null = null;
  private pending: { escalation: ConsoleEscalation; answer: (d: OperatorDecision) => void } | null = null;
  private lastTick = -Infinity;
  private lastStep = 0;
  private escalations = 0;
  /** The run's events so far: each goes out numbered (MissionEvent.seq). */
  private seq = 0;
  /** Called with each new plan after a replan. */
  replanned?: MissionControl['replanned'];
  private readonly stopped = new AbortController();
  /** When the run started (the clock's time at construction): ticks carry the elapsed time. */
  private readonly started: number;
  /** Flat out (speed 0): a turn of the event loop once the steps have held it a few milliseconds. */
  private readonly turns = new Turns();
  /** Aborted by stop and E-STOP: a robot's running goal is cancelled at once, not at the next step. */
  readonly signal: AbortSignal = this.stopped.signal;

  constructor(
    readonly run: string,
    private readonly emit: (e: MissionEvent) => void,
    /** Simulated steps per second; 0 = as fast as the machine goes. */
    private readonly speed: number,
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.started = now();
  }

  /**
   * Sends one of the run's events, numbered after the last (the run's other events — replans, its end — go out here
   * too).
   */
  publish(e: MissionEventBody): void {
    this.emit({ ...e, seq: ++this.seq });
  }

  private setState(state: RunState): void {
    this.state = state;
    this.publish({ topic: 'mission.state', run: this.run, state });
  }

  /** A pose the robot reached on its own (between steps): shown live, at most about 30 per second. */
  observed(tick: MissionTick): void {
    const t = this.now();
    if (t - this.lastTick < TICK_MS) return;
    this.lastTick = t;
    this.tickEvent(tick, t);
  }

  private tickEvent(tick: MissionTick, t: number): void {
    this.publish({
      topic: 'mission.tick',
      run: this.run,
      t: tick.t,
      x: tick.x,
      y: tick.y,
      states: [...tick.states],
      labels: [...tick.labels],
      target: tick.target,
      progress: { ...tick.progress },
      distance_m: tick.distance_m,
      speed_mps: tick.speed_mps,
      elapsed_s: (t - this.started) / 1000,
    });
  }

  async step(tick: MissionTick): Promise<{ go: true } | { go: false; reason: string }> {
    const t = this.now();
    if (this.speed > 0 || t - this.lastTick >= TICK_MS) {
      this.lastTick = t;
      this.tickEvent(tick, t);
    }
    if (this.speed > 0) {
      const wait = this.lastStep + 1000 / this.speed - this.now();
      if (wait > 0) await this.sleep(wait);
      this.lastStep = this.now();
    } else if (this.turns.due()) {
      // Flat out, still a turn of the event loop every few milliseconds, so pause, stop and the E-STOP get through.
      await this.turns.take();
    }
    while (this.state === 'paused')
      await new Promise<void>((r) => {
        this.resume = r;
      });
    if (this.stopReason !== null) return { go: false, reason: this.stopReason };
    return { go: true };
  }

  /** The operator's answer to an escalation: the console shows it and waits for the dialog's decision. */
  readonly decide = (e: Escalation): Promise<OperatorDecision> => {
    if (this.stopReason !== null) return Promise.resolve({ decision: 'abort', reason: this.stopReason });
    const escalation: ConsoleEscalation = { ...e, id: `${this.run}:e${++this.escalations}` };
    this.setState('escalated');
    this.publish({ topic: 'mission.escalation', run: this.run, escalation });
    return new Promise((resolve) => {
      this.pending = {
        escalation,
        answer: (d) => {
          this.pending = null;
          if (this.state === 'escalated') this.setState('running');
          resolve(d);
        },
      };
    });
  };

  event(t: number, kind: string, detail: string): void {
    this.publish({ topic: 'mission.event', run: this.run, t, kind, detail });
  }

  /** Answers the open escalation; false when `id` is not the one open or the decision is not one of its options. */
  answer(id: string, decision: DecisionKind, reason: string, operator: string): boolean {
    if (this.pending === null || this.pending.escalation.id !== id) return false;
    if (!this.pending.escalation.options.includes(decision)) return false;
    this.pending.answer({ decision, reason, operator });
    return true;
  }

  pause(): void {
    if (this.state === 'running') this.setState('paused');
  }

  resumeRun(): void {
    if (this.state !== 'paused') return;
    this.setState('running');
    this.resume?.();
    this.resume = null;
  }

  /** Stops before the next action; an open escalation is answered 'abort'. */
  stop(reason: string, emergency: boolean): void {
    if (this.state === 'finished' || this.state === 'stopped' || this.state === 'estopped') return;
    this.stopReason = reason;
    this.setState(emergency ? 'estopped' : 'stopped');
    this.stopped.abort(new Error(reason));
    this.pending?.answer({ decision: 'abort', reason });
    this.resume?.();
    this.resume = null;
  }

  finished(): void {
    if (this.state !== 'stopped' && this.state !== 'estopped') this.setState('finished');
  }

  get active(): boolean {
    return this.state === 'running' || this.state === 'paused' || this.state === 'escalated';
  }
}

/**
 * Stall recovery for a legged body, shared by SAGAS's waypoint tracker (executor.ts) and AP-HIQL's
 * goal steering (hiql-mission.ts): when the body has moved less than `moved_m` over the last
 * `window` steps spent on one target, it walks back along its own recent path — to where it was
 * `back_m` ago, a place it has been — for at most `steps` steps (or until within `arrive_m`), then
 * goes for the target again; at most `perTarget` times per target. Pure: positions and latents in,
 * the latent direction back out.
 */

/** Stall recovery's parameters (RecoveryParams in ExecParams; LEGGED_EXEC gives the Ant's). */
export interface RecoveryParams {
  readonly window: number;
  readonly moved_m: number;
  readonly back_m: number;
  readonly steps: number;
  readonly arrive_m: number;
  readonly perTarget: number;
  /** Steps a recovery gives back to the tracker's H_low budget (the tracker's business, not this module's). */
  readonly grant: number;
}

/** A recovery begun: how far the body moved over the window, and the place it walks back to. */
export interface RecoveryStart {
  readonly moved_m: number;
  readonly to: readonly [number, number];
}

/** Steps of recent motion kept. */
const TRAIL = 400;

export class StallRecovery {
  private readonly trail: { x: number; y: number; h: Float32Array }[] = [];
  private key: string | number | null = null;
  private recs = 0;
  private since = 0;
  private back: { x: number; y: number; h: Float32Array; left: number } | null = null;

  constructor(private readonly p: RecoveryParams) {}

  /** Whether a recovery is under way (after the last `step`). */
  get active(): boolean {
    return this.back !== null;
  }

  /**
   * One step at (x, y) with latent h while going for `target` (any key: a new key resets the
   * count). Returns the latent offset back along the path (not normalised) while a recovery is under
   * way, else null; `started` is set on the step a recovery begins.
   */
  step(
    target: string | number,
    h: Float32Array,
    x: number,
    y: number,
  ): { offset: Float32Array | null; started: RecoveryStart | null } {
    const p = this.p;
    this.trail.push({ x, y, h: Float32Array.from(h) });
    if (this.trail.length > TRAIL) this.trail.shift();
    if (target !== this.key) {
      this.key = target;
      this.recs = 0;
      this.since = 0;
      this.back = null;
    }
    this.since++;
    let started: RecoveryStart | null = null;
    if (this.back === null && this.since > p.window && this.recs < p.perTarget) {
      const then = this.trail[this.trail.length - 1 - p.window];
      const moved = then === undefined ? Infinity : Math.hypot(x - then.x, y - then.y);
      if (moved < p.moved_m) {
        let to: (typeof this.trail)[number] | undefined;
        for (let q = this.trail.length - 1; q >= 0 && to === undefined; q--) {
          const e = this.trail[q]!;
          if (Math.hypot(e.x - x, e.y - y) >= p.back_m) to = e;
        }
        if (to !== undefined) {
          this.back = { x: to.x, y: to.y, h: to.h, left: p.steps };
          this.recs++;
          started = { moved_m: moved, to: [to.x, to.y] };
        }
      }
    }
    const b = this.back;
    if (b === null) return { offset: null, started };
    if (b.left <= 0 || Math.hypot(x - b.x, y - b.y) < p.arrive_m) {
      this.back = null;
      this.since = 0;
      return { offset: null, started };
    }
    b.left--;
    const out = new Float32Array(h.length);
    for (let q = 0; q < h.length; q++) out[q] = b.h[q]! - h[q]!;
    return { offset: out, started };
  }
}

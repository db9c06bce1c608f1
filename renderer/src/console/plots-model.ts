/**
 * The console's live plots as data (no DOM): a run's ticks kept as columns — step, x, y, speed,
 * distance to the target, the monitor's lowest and highest state — bounded in memory by halving the
 * resolution of the older half when full, and the run's progress in words.
 */
import type { MissionTickProgress } from '../../../main/contract/api.js';

/** What the plots read from one mission.tick. */
export interface TickSample {
  t: number;
  x: number;
  y: number;
  speed_mps: number | null;
  distance_m: number | null;
  states: readonly number[];
}

const SERIES = ['t', 'x', 'y', 'speed', 'distance', 'qmin', 'qmax'] as const;
export type SeriesName = (typeof SERIES)[number];

/** Points kept per series; past it every other point of the older half is dropped. */
const MAX_POINTS = 8000;

export class TickSeries {
  readonly columns: Record<SeriesName, (number | null)[]> = {
    t: [],
    x: [],
    y: [],
    speed: [],
    distance: [],
    qmin: [],
    qmax: [],
  };
  /** Ticks received since the last reset (more than the points kept once thinned). */
  received = 0;

  constructor(private readonly max = MAX_POINTS) {}

  get length(): number {
    return this.columns.t.length;
  }

  reset(): void {
    for (const s of SERIES) this.columns[s].length = 0;
    this.received = 0;
  }

  push(k: TickSample): void {
    this.received++;
    const c = this.columns;
    // A replan or a resume can repeat a step: the later sample replaces it (x stays increasing).
    const last = c.t.length - 1;
    if (last >= 0 && c.t[last]! >= k.t) {
      if (c.t[last] === k.t) for (const s of SERIES) c[s].pop();
      else return;
    }
    const qs = k.states.length > 0 ? k.states : null;
    c.t.push(k.t);
    c.x.push(k.x);
    c.y.push(k.y);
    c.speed.push(k.speed_mps);
    c.distance.push(k.distance_m);
    c.qmin.push(qs === null ? null : Math.min(...qs));
    c.qmax.push(qs === null ? null : Math.max(...qs));
    if (c.t.length > this.max) this.thin();
  }

  /** Halves the older half: the recent past keeps full resolution. */
  private thin(): void {
    const half = Math.floor(this.length / 2);
    for (const s of SERIES) {
      const col = this.columns[s];
      const kept: (number | null)[] = [];
      for (let i = 0; i < half; i += 2) kept.push(col[i]!);
      this.columns[s] = kept.concat(col.slice(half));
    }
  }

  /** The newest point, or null. */
  last(): Record<SeriesName, number | null> | null {
    const n = this.length;
    if (n === 0) return null;
    return Object.fromEntries(SERIES.map((s) => [s, this.columns[s][n - 1]!])) as Record<SeriesName, number | null>;
  }
}

/** mm:ss (h:mm:ss past an hour). */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600),
    m = Math.floor((s % 3600) / 60),
    r = s % 60;
  const two = (n: number): string => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(r)}` : `${two(m)}:${two(r)}`;
}

/** "prefix: waypoint 3 of 12 · suffix traversals 0 of 2 · elapsed 00:07" */
export function progressText(p: MissionTickProgress, elapsed_s: number): string {
  return `${p.stream}: waypoint ${p.index + 1} of ${p.length} · suffix traversals ${p.traversals} of ${p.rounds} · elapsed ${clock(elapsed_s)}`;
}

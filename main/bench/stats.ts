/** Small statistics helpers for benchmarks. */
import { createRng } from '../core/random/rng.js';
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarize(values: readonly number[]): { p50: number; p95: number; max: number; mean: number } {
  const s = [...values].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return { p50: percentile(s, 50), p95: percentile(s, 95), max: s[s.length - 1] ?? NaN, mean };
}

export function fmt(x: number, digits = 1): string {
  return Number.isFinite(x) ? x.toFixed(digits) : '–';
}

/** A bootstrap confidence interval of a mean. */
export interface Interval {
  readonly mean: number;
  readonly lo: number;
  readonly hi: number;
}

export interface BootstrapOptions {
  /** Seed of the resampling: the same sample and seed give the same interval. */
  readonly seed: number;
  readonly resamples?: number;
  /** Coverage of the interval; 0.95 unless told. */
  readonly level?: number;
}

export const BOOTSTRAP_RESAMPLES = 2000;

/**
 * Percentile bootstrap interval of the mean of `xs` (one value per task; for a paired comparison the
 * per-task difference): `resamples` samples of the tasks with replacement from a seeded generator,
 * the interval between the (1−level)/2 and (1+level)/2 quantiles of their means. Pure. NaN bounds for
 * an empty sample.
 */
export function bootstrapMean(xs: readonly number[], o: BootstrapOptions): Interval {
  const n = xs.length;
  if (n === 0) return { mean: NaN, lo: NaN, hi: NaN };
  const B = o.resamples ?? BOOTSTRAP_RESAMPLES;
  const level = o.level ?? 0.95;
  const rng = createRng(o.seed);
  const means = new Float64Array(B);
  for (let b = 0; b < B; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += xs[Math.floor(rng.next() * n)]!;
    means[b] = s / n;
  }
  means.sort();
  const at = (q: number): number => means[Math.min(B - 1, Math.max(0, Math.round(q * (B - 1))))]!;
  return { mean: xs.reduce((a, x) => a + x, 0) / n, lo: at((1 - level) / 2), hi: at((1 + level) / 2) };
}

/** Whether an interval leaves `at` (0 for a difference, 1 for a ratio) inside: the ordering is within noise. */
export const withinNoise = (ci: Interval, at = 0): boolean => !(ci.lo > at || ci.hi < at);

/**
 * A per-task comparison of A against B: on how many tasks A is better, the same, worse (`better`
 * says which way; values within `tol` are ties, infinities equal to each other tie), over the tasks
 * both have a value for (the arrays are aligned by task).
 */
export function winsTiesLosses(
  a: readonly number[],
  b: readonly number[],
  better: 'higher' | 'lower',
  tol = 1e-9,
): { wins: number; ties: number; losses: number } {
  let wins = 0,
    ties = 0,
    losses = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!,
      y = b[i]!;
    if (
      x === y ||
      (Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= tol * Math.max(1, Math.abs(x), Math.abs(y)))
    )
      ties++;
    else if (x > y === (better === 'higher')) wins++;
    else losses++;
  }
  return { wins, ties, losses };
}

/**
 * An interval as `+1.2 [-0.5, +3.0]` (a difference; a ratio, `at` 1, unsigned), scaled, with "within
 * noise" when it holds `at`, "no difference" when it is the point `at` (every task tied).
 */
export function fmtInterval(ci: Interval, digits = 1, scale = 1, at = 0): string {
  if (!Number.isFinite(ci.mean)) return '–';
  const s = (x: number): string => `${at === 0 && x * scale >= 0 ? '+' : ''}${(x * scale).toFixed(digits)}`;
  const verdict = ci.lo === at && ci.hi === at ? ' no difference' : withinNoise(ci, at) ? ' within noise' : '';
  return `${s(ci.mean)} [${s(ci.lo)}, ${s(ci.hi)}]${verdict}`;
}

/**
 * Runs a fuzzing target: seeded fast-check cases, each in a scratch folder of its own, classified as
 * accepted (the reader returned), refused (a WitnessError that is not `internal`) or a bug (anything
 * else). Keeps the worst time and the largest resident set seen, for the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { WitnessError } from '../../main/contract/errors.js';
import type { Target } from './targets.js';

export interface FuzzStats {
  readonly target: string;
  readonly reads: string;
  cases: number;
  accepted: number;
  refused: number;
  /** Refusals by error code. */
  readonly codes: Record<string, number>;
  worst_ms: number;
  /** The largest resident set size seen after a case, in MiB. */
  worst_rss_mb: number;
  /** The first bug found: the error and the input that caused it (shortened). */
  bug: string | null;
}

const preview = (x: unknown): string => {
  const s =
    x instanceof Uint8Array
      ? `${x.length} bytes: ${Buffer.from(x.subarray(0, 48)).toString('hex')}…`
      : (JSON.stringify(x, (_k, v: unknown) => (v instanceof Set ? [...v] : v)) ?? String(x));
  return s.length > 300 ? `${s.slice(0, 300)}… (${s.length} characters)` : s;
};

/** Runs `runs` cases of `target` from `seed`; never throws for a bug, it is reported in the stats. */
export async function fuzzTarget(target: Target, o: { runs: number; seed: number }): Promise<FuzzStats> {
  const stats: FuzzStats = {
    target: target.name,
    reads: target.reads,
    cases: 0,
    accepted: 0,
    refused: 0,
    codes: {},
    worst_ms: 0,
    worst_rss_mb: 0,
    bug: null,
  };
  const root = mkdtempSync(path.join(tmpdir(), `witness-fuzz-${target.name}-`));
  try {
    const property = fc.asyncProperty(target.input(), async (input) => {
      const scratch = mkdtempSync(path.join(root, 'case-'));
      const t0 = performance.now();
      try {
        await target.run(input, scratch);
        stats.accepted++;
      } catch (e) {
        if (e instanceof WitnessError && e.code !== 'internal') {
          stats.refused++;
          stats.codes[e.code] = (stats.codes[e.code] ?? 0) + 1;
        } else {
          const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
          stats.bug = `${what.slice(0, 300)}\n  input: ${preview(input)}`;
          throw e;
        }
      } finally {
        stats.cases++;
        stats.worst_ms = Math.max(stats.worst_ms, performance.now() - t0);
        stats.worst_rss_mb = Math.max(stats.worst_rss_mb, process.memoryUsage().rss / 2 ** 20);
        rmSync(scratch, { recursive: true, force: true });
      }
    });
    await fc.check(property, { seed: o.seed, numRuns: o.runs, endOnFailure: true });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return stats;
}

/** Cases for a target in a run of `base` cases per unit weight (at least 5). */
export const casesFor = (t: Target, base: number): number => Math.max(5, Math.round(base * (t.weight ?? 1)));

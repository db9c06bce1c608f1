/**
 * Optional reference: an external ltl2ba binary, run on the same formulas (spin syntax) to
 * compare automaton sizes. Not needed for anything else; absent binary means no column.
 */
import { spawnSync } from 'node:child_process';
import { printLtl } from '../core/ltl/printer.js';
import type { Formula } from '../core/ltl/ast.js';

export interface ReferenceResult {
  readonly states: number | null;
  readonly transitions: number | null;
  readonly elapsed_ms: number;
  readonly error?: string;
}

/** Counts states and guard terms of ltl2ba's never claim. */
export function runLtl2ba(binary: string, f: Formula, timeout_ms: number): ReferenceResult {
  const t0 = performance.now();
  const r = spawnSync(binary, ['-f', printLtl(f, 'spin')], {
    timeout: timeout_ms,
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  const elapsed_ms = performance.now() - t0;
  if (r.error || r.status !== 0) {
    return { states: null, transitions: null, elapsed_ms, error: r.error ? r.error.message : `exit ${r.status}` };
  }
  const lines = r.stdout.split('\n');
  const states = lines.filter((l) => /^[A-Za-z0-9_]+:$/.test(l)).length;
  let transitions = 0;
  for (const l of lines) {
    if (/^\s*::/.test(l)) transitions += l.split(' -> ')[0]!.split(') || (').length;
    else if (/^\s*skip/.test(l)) transitions += 1;
  }
  return { states, transitions, elapsed_ms };
}

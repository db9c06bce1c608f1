/**
 * LTL benchmark tasks as Appendix E generates them: a formula from the Table E.1 templates grouped
 * as in Table E.2, pairwise-disjoint disk regions centred in distinct free cells, and a random start.
 * Every task has its own seed, so a task is the same whatever order or worker runs it.
 */
import { type Difficulty, DIFFICULTY, generateTask } from '../../core/ltl/templates.js';
import { printLtl } from '../../core/ltl/printer.js';
import { translateFormula } from '../../core/ltl/translate.js';
import { pruneAutomaton } from '../../core/ltl/prune.js';
import { createRng } from '../../core/random/rng.js';
import { type Region, sampleDiskRegions } from '../../core/world/regions.js';
import { type MazeLayout, cellCenter, freeCells } from '../../core/world/maze.js';

export interface BenchTask {
  readonly id: string;
  readonly difficulty: Difficulty;
  readonly index: number;
  readonly formula: string;
  readonly regions: readonly Region[];
  readonly start: readonly [number, number];
  /** Seed of this task's anchor retrieval and simulator noise. */
  readonly seed: number;
}

/** A 31-bit seed from the suite seed, the difficulty and the task index. */
export function taskSeed(seed: number, difficulty: Difficulty, index: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const c of `${difficulty}:${index}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return h & 0x7fffffff;
}

export function benchTask(layout: MazeLayout, seed: number, difficulty: Difficulty, index: number): BenchTask {
  const s = taskSeed(seed, difficulty, index);
  const rng = createRng(s);
  // Appendix E checks generated formulas for automaton non-emptiness; with pairwise-disjoint regions
  // that is the automaton pruned of letters with two regions at once. Nothing else is filtered.
  let task = generateTask(rng, difficulty);
  for (let tries = 0; tries < 100 && pruneAutomaton(translateFormula(task.formula).automaton, { disjoint: true }).report.empty; tries++) {
    task = generateTask(rng, difficulty);
  }
  const names = Array.from({ length: DIFFICULTY[difficulty].regions }, (_, k) => `e${k}`);
  const regions = sampleDiskRegions(layout, names, rng);
  const c = cellCenter(layout, rng.pick(freeCells(layout)));
  const start: [number, number] = [c.x + (rng.next() - 0.5) * 2, c.y + (rng.next() - 0.5) * 2];
  return { id: `${difficulty}-${index}`, difficulty, index, formula: printLtl(task.formula), regions, start, seed: s };
}

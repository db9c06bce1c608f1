/**
 * LTL benchmark tasks as Appendix E generates them: a formula from the Table E.1 templates grouped
 * as in Table E.2, pairwise-disjoint disk regions centred in distinct free cells, and a random start
 * outside every region the formula mentions (as the paper samples starts: a start inside a region the
 * formula forbids would make the task infeasible before the robot moves). Every task has its own seed,
 * so a task is the same whatever order or worker runs it, and the planner benchmark
 * (`witness bench plan`) and the mission benchmark (`witness bench ltl`) draw the same tasks.
 */
import { type Difficulty, DIFFICULTY, generateTask } from '../core/ltl/templates.js';
import { printLtl } from '../core/ltl/printer.js';
import { translateFormula } from '../core/ltl/translate.js';
import { pruneAutomaton } from '../core/ltl/prune.js';
import { type Rng, createRng } from '../core/random/rng.js';
import { type Region, inRegion, sampleDiskRegions } from '../core/world/regions.js';
import { type MazeLayout, cellCenter, freeCells } from '../core/world/maze.js';
import { atomicPropositions } from '../core/ltl/ast.js';
import { WitnessError } from '../contract/errors.js';

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

/** Version of the task drawing: 2 resamples starts inside a region the formula mentions (1 did not). */
export const TASK_PROTOCOL = 2;

/** A 31-bit seed from the suite seed, the difficulty and the task index. */
function taskSeed(seed: number, difficulty: Difficulty, index: number): number {
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
  for (
    let tries = 0;
    tries < 100 && pruneAutomaton(translateFormula(task.formula).automaton, { disjoint: true }).report.empty;
    tries++
  ) {
    task = generateTask(rng, difficulty);
  }
  const names = Array.from({ length: DIFFICULTY[difficulty].regions }, (_, k) => `e${k}`);
  const regions = sampleDiskRegions(layout, names, rng);
  const mentioned = new Set(atomicPropositions(task.formula));
  const start = sampleStart(
    layout,
    regions.filter((r) => mentioned.has(r.name)),
    rng,
    `task ${difficulty}-${index} (seed ${seed})`,
  );
  return { id: `${difficulty}-${index}`, difficulty, index, formula: printLtl(task.formula), regions, start, seed: s };
}

/** Draws of a start before a task is given up on (a free cell and a jitter each). */
const START_TRIES = 1000;

/**
 * A start point in a free cell (its centre, jittered by up to one unit each way) outside every one of
 * `avoid`. The first draw is the one the old protocol kept; a draw inside a region is drawn again,
 * from the same generator, so the start is deterministic per task. Throws when `tries` draws all fall
 * inside the regions.
 */
export function sampleStart(
  layout: MazeLayout,
  avoid: readonly Region[],
  rng: Rng,
  what: string,
  tries = START_TRIES,
): [number, number] {
  const free = freeCells(layout);
  for (let k = 0; k < tries; k++) {
    const c = cellCenter(layout, rng.pick(free));
    const start: [number, number] = [c.x + (rng.next() - 0.5) * 2, c.y + (rng.next() - 0.5) * 2];
    if (!avoid.some((r) => inRegion(r, start[0], start[1]))) return start;
  }
  throw new WitnessError(
    'invalid-input',
    `${what}: no start outside the regions ${avoid.map((r) => r.name).join(', ')} in ${tries} draws: the regions cover the free cells`,
  );
}

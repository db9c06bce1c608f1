/**
 * The planner benchmark. Part 1: SAGAS on the Easy/Medium/Hard task suites over a
 * latent graph of the giant maze — planning time, product states expanded against an exhaustive
 * product Dijkstra in the same process, the objective against the exact optimum, and the two
 * baselines. Part 2: exact planning on n×n grids with the "hard giant" formula against the
 * reference algorithm of optimal LTL planners (one Dijkstra per accepting product state).
 */
import { parseLtl } from '../core/ltl/parser.js';
import { translateFormula } from '../core/ltl/translate.js';
import type { Difficulty } from '../core/ltl/templates.js';
import { CASE_STUDIES } from '../core/ltl/case-studies.js';
import { createRng } from '../core/random/rng.js';
import { type Method, DEFAULT_PLAN, plan, planContext } from '../core/plan/plan.js';
import { searchPlan } from '../core/plan/search.js';
import { buildHeuristic } from '../core/plan/heuristic.js';
import { type Product, forEachSuccessor } from '../core/plan/product.js';
import { ShortestPaths } from '../core/plan/shortest-path.js';
import { referenceOptimum } from '../core/plan/exhaustive.js';
import { labelledGraph } from '../core/plan/labelled-graph.js';
import { benchTask } from './tasks.js';
import { DEFAULT_AUGMENT } from '../core/graph/augment.js';
import { worldEntry } from '../backends/catalogue.js';
import { type Backbone, augmentTask } from '../services/plan/inputs.js';
import { BOOTSTRAP_RESAMPLES, bootstrapMean, fmt, fmtInterval, summarize, winsTiesLosses } from './stats.js';

export interface PlanBenchOptions {
  readonly tasks: number;
  readonly seed: number;
  readonly difficulties: readonly Difficulty[];
  readonly gridSizes: readonly number[];
  /** Grid sizes up to this one also run the reference algorithm. */
  readonly referenceMaxGrid: number;
  readonly progress?: (label: string) => void;
}

export interface TaskMeasurement {
  readonly difficulty: Difficulty;
  /** The task's index in its difficulty: the mission benchmark's task `${difficulty}-${index}`. */
  readonly index: number;
  readonly formula: string;
  readonly start: readonly [number, number];
  readonly automatonStates: number;
  readonly augment_ms: number;
  readonly plan_ms: number;
  readonly feasible: boolean;
  /** The infeasibility kind, when infeasible. */
  readonly reason: string | null;
  readonly objective: number;
  readonly exact: number;
  /** Product states expanded by the prefix search and by the suffix searches. */
  readonly expanded: number;
  readonly suffixExpanded: number;
  /** The same plan with the literal-chain heuristic (beyond the paper). */
  readonly chain: { readonly plan_ms: number; readonly expanded: number; readonly objective: number };
  readonly exhaustiveExpanded: number;
  readonly search_ms: number;
  readonly exhaustive_ms: number;
  readonly baselines: Readonly<Record<'lf-gas' | 'ga-gas', BaselineResult>>;
}

interface BaselineResult {
  readonly feasible: boolean;
  readonly objective: number;
  readonly ms: number;
  /** The infeasibility kind, when infeasible. */
  readonly reason: string | null;
}

export interface GridMeasurement {
  readonly n: number;
  readonly productStates: number;
  readonly exact_ms: number;
  readonly objective: number;
  readonly reference_ms: number | null;
  readonly referenceObjective: number | null;
  readonly referenceDijkstras: number | null;
}

/** Dijkstra over the whole reachable product (no heuristic, no early stop): states expanded. */
function exhaustiveDijkstra(p: Product, start: readonly number[]): number {
  const sp = new ShortestPaths(p.n * p.nq);
  sp.start({ successors: (z, visit) => forEachSuccessor(p, z, visit) });
  for (const z of start) sp.source(z, 0);
  return sp.run();
}

function timeMin(runs: number, f: () => void): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

export async function runLatentSuites(b: Backbone, o: PlanBenchOptions): Promise<TaskMeasurement[]> {
  const world = worldEntry(b.artifact.world);
  const layout = world.layout;
  if (layout === undefined || world.map === undefined || world.restObservation === undefined)
    throw new RangeError(`${world.id} is not a maze world: the suites draw regions in maze cells`);
  const taskWorld = { id: world.id, map: world.map, restObservation: world.restObservation };
  const out: TaskMeasurement[] = [];
  for (const difficulty of o.difficulties) {
    for (let i = 0; i < o.tasks; i++) {
      // The mission benchmark's task (tasks.ts), augmented from the task's seed as a mission is.
      const task = benchTask(layout, o.seed, difficulty, i);
      const rng = createRng(task.seed);
      const start = task.start;
      const formula = parseLtl(task.formula);
      const regions = { regions: task.regions };
      const a = translateFormula(formula).automaton;
      const used = { regions: regions.regions.filter((r) => a.aps.includes(r.name)) };
      const t = await augmentTask(b, taskWorld, used, start, DEFAULT_AUGMENT, rng);
      // Warm the code paths once per task so the timing is the planner, not the JIT.
      const opts = { ...DEFAULT_PLAN, method: 'sagas' as Method };
      let r = plan(t.graph, a, opts);
      const plan_ms = timeMin(3, () => {
        r = plan(t.graph, a, opts);
      });
      const exact = plan(t.graph, a, { ...opts, k: Infinity });
      const chainOpts = { ...opts, heuristic: 'chain' as const };
      let rc = plan(t.graph, a, chainOpts);
      const chain_ms = timeMin(3, () => {
        rc = plan(t.graph, a, chainOpts);
      });
      // The search alone (SAGAS: heuristic tables and A* with its suffixes) against a plain Dijkstra
      // that expands every reachable product state, on the same product.
      const ctx = planContext(t.graph, a, DEFAULT_PLAN.tauSoft);
      const z0 = ctx.work.init.map((x) => t.graph.start * ctx.product.nq + x.state);
      const search_ms = ctx.work.empty
        ? 0
        : timeMin(3, () => {
            searchPlan(ctx.product, z0, {
              k: DEFAULT_PLAN.k,
              lambda: DEFAULT_PLAN.lambda,
              heuristic: buildHeuristic(ctx.product),
            });
          });
      let exhaustiveExpanded = 0;
      const exhaustive_ms = ctx.work.empty
        ? 0
        : timeMin(3, () => {
            exhaustiveExpanded = exhaustiveDijkstra(ctx.product, z0);
          });
      const baselines = {} as Record<'lf-gas' | 'ga-gas', BaselineResult>;
      for (const m of ['lf-gas', 'ga-gas'] as const) {
        const t0 = performance.now();
        const rb = plan(t.graph, a, { ...DEFAULT_PLAN, method: m });
        baselines[m] = {
          feasible: rb.status === 'ok',
          objective: rb.status === 'ok' ? rb.cost.objective : Infinity,
          ms: performance.now() - t0,
          reason: rb.status === 'ok' ? null : rb.reason.kind,
        };
      }
      out.push({
        difficulty,
        index: i,
        formula: task.formula,
        start,
        automatonStates: a.states.length,
        augment_ms: t.augment_ms,
        plan_ms,
        feasible: r.status === 'ok',
        reason: r.status === 'ok' ? null : r.reason.kind,
        objective: r.status === 'ok' ? r.cost.objective : Infinity,
        exact: exact.status === 'ok' ? exact.cost.objective : Infinity,
        chain: {
          plan_ms: chain_ms,
          expanded: rc.stats.expandedPrefix,
          objective: rc.status === 'ok' ? rc.cost.objective : Infinity,
        },
        expanded: r.stats.expandedPrefix,
        suffixExpanded: r.stats.expandedSuffix,
        exhaustiveExpanded,
        search_ms,
        exhaustive_ms,
        baselines,
      });
      if ((i + 1) % 10 === 0) o.progress?.(`${difficulty} ${i + 1}/${o.tasks}`);
    }
  }
  return out;
}

/** An n×n 4-connected unit-weight grid with 8 labelled cells (e0…e7) and a start cell, from a seed. */
export function gridGraph(n: number, seed: number): ReturnType<typeof labelledGraph> {
  const rng = createRng(seed);
  const cells = rng.sample(
    Array.from({ length: n * n }, (_, i) => i),
    9,
  );
  const nodes = Array.from({ length: n * n }, (_, i) => ({
    id: `${i}`,
    labels: [] as string[],
    pos: [i % n, Math.floor(i / n)],
  }));
  cells.slice(0, 8).forEach((cell, k) => nodes[cell]!.labels.push(`e${k}`));
  const edges: { from: string; to: string; weight: number }[] = [];
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const i = r * n + c;
      if (c + 1 < n) edges.push({ from: `${i}`, to: `${i + 1}`, weight: 1 });
      if (r + 1 < n) edges.push({ from: `${i}`, to: `${i + n}`, weight: 1 });
    }
  }
  return labelledGraph({ name: `grid ${n}×${n}`, nodes, edges, start: `${cells[8]!}` }, `grid-${n}`);
}

export function runGrids(o: PlanBenchOptions): GridMeasurement[] {
  const formula = CASE_STUDIES.find((c) => c.id === 'giant')!.formula;
  const a = translateFormula(parseLtl(formula)).automaton;
  return o.gridSizes.map((n) => {
    o.progress?.(`grid ${n}×${n}`);
    const g = gridGraph(n, o.seed);
    const opts = { ...DEFAULT_PLAN, method: 'sagas' as Method, k: Infinity };
    let r = plan(g, a, opts);
    const exact_ms = timeMin(3, () => {
      r = plan(g, a, opts);
    });
    let ref: ReturnType<typeof referenceOptimum> | null = null;
    let reference_ms: number | null = null;
    if (n <= o.referenceMaxGrid) {
      const t0 = performance.now();
      ref = referenceOptimum(g, a, DEFAULT_PLAN.lambda);
      reference_ms = performance.now() - t0;
    }
    return {
      n,
      productStates: n * n * a.states.length,
      exact_ms,
      objective: r.status === 'ok' ? r.cost.objective : Infinity,
      reference_ms,
      referenceObjective: ref?.objective ?? null,
      referenceDijkstras: ref?.dijkstras ?? null,
    };
  });
}

export function latentTable(ms: readonly TaskMeasurement[], difficulties: readonly Difficulty[]): string {
  const rows = [
    '| suite | tasks | feasible | plan p50 ms | plan p95 ms | plan max ms | augment p50 ms | prefix expanded (mean) | suffix expanded (mean) | exhaustive expanded (mean) | expanded ratio | search time vs exhaustive | objective / exact | LF-GAS feasible | LF-GAS objective / SAGAS | GA-GAS feasible | GA-GAS objective / SAGAS |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const chainRows = [
    '| suite | plan p50 ms | plan p95 ms | plan max ms | prefix expanded (mean) | vs B.13 | same objective as B.13 | whole plan time vs exhaustive forward Dijkstra |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const d of difficulties) {
    const xs = ms.filter((m) => m.difficulty === d);
    const ok = xs.filter((m) => m.feasible);
    const plan = summarize(xs.map((m) => m.plan_ms));
    const aug = summarize(xs.map((m) => m.augment_ms));
    const mean = (v: number[]): number => v.reduce((s, x) => s + x, 0) / Math.max(1, v.length);
    const sum = (v: number[]): number => v.reduce((s, x) => s + x, 0);
    const exp = mean(xs.map((m) => m.expanded)),
      sx = mean(xs.map((m) => m.suffixExpanded)),
      exh = mean(xs.map((m) => m.exhaustiveExpanded));
    const ratio = (m: 'lf-gas' | 'ga-gas'): string => {
      const both = ok.filter((x) => x.baselines[m].feasible && x.objective > 0);
      return both.length === 0 ? '–' : fmt(mean(both.map((x) => x.baselines[m].objective / x.objective)), 2);
    };
    const exactRatio = ok.filter((x) => x.exact > 0);
    const cp = summarize(xs.map((m) => m.chain.plan_ms));
    const ce = mean(xs.map((m) => m.chain.expanded));
    const same = xs.filter(
      (m) =>
        m.chain.objective === m.objective ||
        Math.abs(m.chain.objective - m.objective) <= 1e-9 * Math.max(1, m.objective),
    ).length;
    chainRows.push(
      `| ${d} | ${fmt(cp.p50, 2)} | ${fmt(cp.p95, 2)} | ${fmt(cp.max, 2)} | ${fmt(ce, 0)} | ${fmt(ce / Math.max(1, exp), 3)} | ${same}/${xs.length} | ${fmt(sum(xs.map((m) => m.chain.plan_ms)) / Math.max(1e-9, sum(xs.map((m) => m.exhaustive_ms))), 2)} |`,
    );
    rows.push(
      `| ${d} | ${xs.length} | ${ok.length} | ${fmt(plan.p50, 2)} | ${fmt(plan.p95, 2)} | ${fmt(plan.max, 2)} | ${fmt(aug.p50, 1)} | ${fmt(exp, 0)} | ${fmt(sx, 0)} | ${fmt(exh, 0)} | ${fmt((exp + sx) / Math.max(1, exh), 3)} | ${fmt(sum(xs.map((m) => m.search_ms)) / Math.max(1e-9, sum(xs.map((m) => m.exhaustive_ms))), 2)} | ${exactRatio.length === 0 ? '–' : fmt(mean(exactRatio.map((x) => x.objective / x.exact)), 3)} | ${xs.filter((m) => m.baselines['lf-gas'].feasible).length} | ${ratio('lf-gas')} | ${xs.filter((m) => m.baselines['ga-gas'].feasible).length} | ${ratio('ga-gas')} |`,
    );
  }
  return `${rows.join('\n')}\n\n${failureTable(ms, difficulties)}\n\n${baselineTable(ms, difficulties)}\n\nThe same tasks with the literal-chain prefix heuristic (\`--heuristic chain\`, beyond the paper):\n\n${chainRows.join('\n')}`;
}

/** Planning failures per suite and method, by the planner's reason (core/plan/diagnose.ts). */
function failureTable(ms: readonly TaskMeasurement[], difficulties: readonly Difficulty[]): string {
  const reasonOf = (m: TaskMeasurement, method: 'sagas' | 'lf-gas' | 'ga-gas'): string | null =>
    method === 'sagas'
      ? m.feasible
        ? null
        : (m.reason ?? 'unknown')
      : m.baselines[method].feasible
        ? null
        : (m.baselines[method].reason ?? 'unknown');
  const methods = [
    ['sagas', 'SAGAS'],
    ['lf-gas', 'LF-GAS'],
    ['ga-gas', 'GA-GAS'],
  ] as const;
  const kinds = [
    ...new Set(ms.flatMap((m) => methods.map(([k]) => reasonOf(m, k)).filter((r): r is string => r !== null))),
  ].sort();
  if (kinds.length === 0) return 'Planning failures by cause: none.';
  const rows = [
    `| suite | method | tasks | planning failures | ${kinds.join(' | ')} |`,
    `|---|---|---|---|${kinds.map(() => '---').join('|')}|`,
  ];
  for (const d of difficulties) {
    const xs = ms.filter((m) => m.difficulty === d);
    for (const [k, name] of methods) {
      const rs = xs.map((m) => reasonOf(m, k)).filter((r): r is string => r !== null);
      rows.push(
        `| ${d} | ${name} | ${xs.length} | ${rs.length} | ${kinds.map((x) => rs.filter((r) => r === x).length).join(' | ')} |`,
      );
    }
  }
  return `Planning failures by cause:\n\n${rows.join('\n')}`;
}

/**
 * Per suite and baseline: on how many tasks the baseline's objective is worse (higher; infeasible
 * counts as infinite), equal, better than SAGAS's, and a bootstrap 95 % interval over the tasks both
 * solve of the mean ratio baseline / SAGAS ("within noise" where it holds 1).
 */
function baselineTable(ms: readonly TaskMeasurement[], difficulties: readonly Difficulty[]): string {
  const rows = [
    `| suite | baseline | worse / equal / better than SAGAS | tasks both solve | objective / SAGAS [95 % CI, ${BOOTSTRAP_RESAMPLES} resamples] |`,
    '|---|---|---|---|---|',
  ];
  for (const d of difficulties) {
    const xs = ms.filter((m) => m.difficulty === d);
    for (const [k, name] of [
      ['lf-gas', 'LF-GAS'],
      ['ga-gas', 'GA-GAS'],
    ] as const) {
      // Worse for the baseline is a higher objective: 'lower' is better for SAGAS, counted as the baseline's loss.
      const w = winsTiesLosses(
        xs.map((m) => m.objective),
        xs.map((m) => m.baselines[k].objective),
        'lower',
      );
      const both = xs.filter((m) => m.feasible && m.baselines[k].feasible && m.objective > 0);
      const ci = bootstrapMean(
        both.map((m) => m.baselines[k].objective / m.objective),
        { seed: 1 },
      );
      rows.push(
        `| ${d} | ${name} | ${w.wins} / ${w.ties} / ${w.losses} | ${both.length} | ${fmtInterval(ci, 3, 1, 1)} |`,
      );
    }
  }
  return `Baselines against SAGAS, per task:\n\n${rows.join('\n')}`;
}

export function gridTable(gs: readonly GridMeasurement[]): string {
  const rows = [
    '| grid | product states (n²·|Q|) | exact ms | objective | reference ms | reference objective | reference Dijkstras | speed-up |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const g of gs) {
    rows.push(
      `| ${g.n}×${g.n} | ${g.productStates} | ${fmt(g.exact_ms, 1)} | ${g.objective} | ${g.reference_ms === null ? '–' : fmt(g.reference_ms, 0)} | ${g.referenceObjective ?? '–'} | ${g.referenceDijkstras ?? '–'} | ${g.reference_ms === null ? '–' : `${fmt(g.reference_ms / g.exact_ms, 1)}×`} |`,
    );
  }
  return rows.join('\n');
}

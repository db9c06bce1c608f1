/**
 * The demo tour on the embedded default: the point maze (a navigate dataset, its coverage, the shipped
 * backbone's latent graph, a SAGAS mission planned on it by every method), exact planning on a
 * hand-built map, the LTL engine on the paper's case studies, and the seed's warehouse example (the
 * tool loop in the tabletop). Each step returns its figures; `witness demo` prints them.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { WitnessError } from '../contract/errors.js';
import { PLAN_METHODS, type PlanMethod } from '../contract/defaults.js';
import { CASE_STUDIES } from '../core/ltl/case-studies.js';
import { parseLtl } from '../core/ltl/parser.js';
import { translateFormula } from '../core/ltl/translate.js';
import { pruneAutomaton } from '../core/ltl/prune.js';
import { counts } from '../core/ltl/automaton.js';
import { type MonitorStep, StateSetMonitor } from '../core/ltl/monitor.js';
import { evaluateLasso } from '../core/ltl/lasso.js';
import { acceptsLasso } from '../core/ltl/accept.js';
import { toDot, toHoa } from '../core/ltl/formats.js';
import { cellCoverage, defaultConfig, generateDataset } from '../core/data/generators.js';
import { DEFAULT_GRAPH, buildGraph } from '../core/graph/build.js';
import { DEFAULT_AUGMENT } from '../core/graph/augment.js';
import { createRng } from '../core/random/rng.js';
import { DEFAULT_PLAN, type PlanResult, plan } from '../core/plan/plan.js';
import type { SemanticGraph } from '../core/plan/semantic.js';
import { mazeSvg } from '../core/world/svg.js';
import { worldEntry } from '../backends/catalogue.js';
import { loadModels } from '../services/models/bundle.js';
import { nodePositions } from '../services/graph/build-artifact.js';
import { datasetHash, writeDataset } from '../services/datasets/format.js';
import { augmentTask, readGraphInput, readRegions } from '../services/plan/inputs.js';
import { writeFileAtomic } from '../platform/files.js';
import { assetPath, operatorName, shippedModelsDir } from '../platform/paths.js';
import { WAREHOUSE, warehouse } from './act.js';

/**
 * The warehouse example (the tool loop in the tabletop, recorded in the audit log) is `runAct` with the shipped tools,
 * plan and goal.
 */
export { WAREHOUSE, warehouse, operatorName };
export { showLetter } from './ltl.js';
export type { SemanticGraph, MonitorStep };

export interface MethodPlan {
  readonly method: PlanMethod;
  readonly result: PlanResult;
  readonly ms: number;
}

function planAll(g: SemanticGraph, spec: string, k: number): MethodPlan[] {
  const a = translateFormula(parseLtl(spec)).automaton;
  return PLAN_METHODS.map((method) => {
    const t0 = performance.now();
    const result = plan(g, a, { ...DEFAULT_PLAN, method, k });
    return { method, result, ms: performance.now() - t0 };
  });
}

/** The embedded point maze: a dataset, its coverage, the latent graph over it, a mission planned by every method. */
export async function worldDemo(
  steps: number,
  outDir?: string,
): Promise<{
  world: string;
  steps: number;
  seconds: number;
  covered: number;
  free: number;
  nodes: number;
  edges: number;
  spec: string;
  start: [number, number];
  anchors: number;
  unavailable: readonly string[];
  augment_ms: number;
  graph: SemanticGraph;
  plans: MethodPlan[];
  wrote: string[];
}> {
  if (!Number.isInteger(steps) || steps < 1)
    throw new WitnessError('invalid-input', `--steps must be a positive integer, got ${steps}`, { path: '--steps' });
  const id = 'pointmaze-medium';
  const e = worldEntry(id);
  const sim = await e.stepper!();
  try {
    const t0 = performance.now();
    const d = generateDataset(sim, id, defaultConfig('navigate', steps, 0, sim.agent, sim.layout));
    const seconds = (performance.now() - t0) / 1000;
    const cov = cellCoverage(e.layout!, d.observations, d.obsDim);
    const models = await loadModels(shippedModelsDir(id), { expectWorld: id });
    let out;
    try {
      const latent = await models.embed(d.observations, d.terminals.length);
      const params = { H_TD: models.manifest.H_TD, teThreshold: DEFAULT_GRAPH.teThreshold };
      const g = buildGraph(latent, models.manifest.dims.latent, d.terminals, params);
      const backbone = {
        artifact: {
          world: id,
          dataset: { sha256: datasetHash(d) },
          models: { embed: '', policy: '' },
          params,
          graph: g,
          positions: nodePositions(g, d),
        },
        dataset: d,
        models,
        files: { graph: '(demo)', data: '(demo)', models: shippedModelsDir(id) },
      };
      const regionsFile = assetPath(`regions/${id}.json`);
      const spec = 'F e2 & G F e1 & G F e4 & G !e0';
      const start: [number, number] = [4, 20];
      const task = await augmentTask(
        backbone,
        { id, map: e.map!, restObservation: e.restObservation! },
        await readRegions(regionsFile),
        start,
        DEFAULT_AUGMENT,
        createRng(0),
        { regions: regionsFile, start: 'start' },
      );
      out = {
        world: id,
        steps,
        seconds,
        covered: cov.covered,
        free: cov.free,
        nodes: g.nodeCount,
        edges: g.edgeU.length,
        spec,
        start,
        anchors: task.report.nodes.anchors,
        unavailable: task.report.unavailable,
        augment_ms: task.augment_ms,
        graph: task.graph,
        plans: planAll(task.graph, spec, DEFAULT_PLAN.k),
        wrote: [] as string[],
      };
    } finally {
      await models.close();
    }
    if (outDir !== undefined) {
      mkdirSync(outDir, { recursive: true });
      await writeDataset(join(outDir, `${id}-navigate.wds`), d);
      await writeFileAtomic(join(outDir, `${id}.svg`), mazeSvg(e.layout!, `${id}: navigate`, d));
      out.wrote.push(join(outDir, `${id}.svg`));
    }
    return out;
  } finally {
    sim.close();
  }
}

/** Exact planning on the shipped warehouse map, by every method. */
export async function exactDemo(): Promise<{
  file: string;
  nodes: number;
  spec: string;
  graph: SemanticGraph;
  plans: MethodPlan[];
}> {
  const file = assetPath('graphs/warehouse.json');
  const input = await readGraphInput(file);
  if (input.kind !== 'labelled')
    throw new WitnessError('invalid-input', `${file}: expected a labelled graph`, { file });
  const spec = 'G F shelf_a & G F shelf_b & G F (pack & F charge) & G !wet';
  return { file, nodes: input.graph.ids.length, spec, graph: input.graph, plans: planAll(input.graph, spec, Infinity) };
}

const letters = (...xs: string[][]): ReadonlySet<string>[] => xs.map((x) => new Set(x));

/** The LTL engine on the SAGAS case studies: sizes, a monitored word, two lasso verdicts. */
export async function ltlDemo(outDir?: string): Promise<{
  cases: {
    id: string;
    formula: string;
    states: number;
    transitions: number;
    pruned: { states: number; transitions: number };
    ms: number;
  }[];
  eq6: { states: number; steps: { letter: ReadonlySet<string>; step: MonitorStep }[]; early: MonitorStep };
  lassos: { label: string; semantics: boolean; automaton: boolean }[];
}> {
  if (outDir !== undefined) mkdirSync(outDir, { recursive: true });
  const cases = [];
  for (const cs of CASE_STUDIES) {
    const t = translateFormula(parseLtl(cs.formula));
    const c = counts(t.automaton);
    const p = counts(pruneAutomaton(t.automaton, { disjoint: true }).automaton);
    cases.push({
      id: cs.id,
      formula: cs.formula,
      states: c.states,
      transitions: c.transitions,
      pruned: { states: p.states, transitions: p.transitions },
      ms: t.stats.elapsed_ms,
    });
    if (outDir !== undefined) {
      await writeFileAtomic(join(outDir, `${cs.id}.hoa`), toHoa(t.automaton));
      await writeFileAtomic(join(outDir, `${cs.id}.dot`), toDot(t.automaton));
    }
  }
  const f = parseLtl(CASE_STUDIES[0]!.formula);
  const a = translateFormula(f).automaton;
  const m = new StateSetMonitor(a);
  const steps = letters([], ['e7'], [], ['e4'], ['e5'], ['e6'], ['e1'], ['e2'], ['e3'], ['e1']).map((letter) => ({
    letter,
    step: m.step(letter),
  }));
  const bad = new StateSetMonitor(a);
  let early = bad.snapshot();
  for (const l of letters([], ['e5'])) early = bad.step(l);
  const good = { prefix: letters([], ['e7'], ['e4'], ['e5'], ['e6']), cycle: letters(['e1'], [], ['e2'], ['e3']) };
  const viol = { prefix: letters([], ['e7'], ['e4'], ['e6']), cycle: letters(['e1'], ['e2'], ['e3']) };
  const lassos = (
    [
      ['patrol after the sequence', good],
      ['sequence skips e5', viol],
    ] as const
  ).map(([label, w]) => ({ label, semantics: evaluateLasso(f, w), automaton: acceptsLasso(a, w) }));
  return { cases, eq6: { states: a.states.length, steps, early }, lassos };
}

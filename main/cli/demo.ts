/**
 * `witness demo`: the main job on the embedded default: the embedded MuJoCo point maze (a
 * navigate dataset generated, its coverage, the shipped backbone's latent graph over it, a picture)
 * and the LTL engine on the paper's case studies (translation, pruning, a monitored word, a lasso
 * verdict). Planning and execution on the learned graph join it as their issues land.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { CASE_STUDIES } from '../core/ltl/case-studies.js';
import { parseLtl } from '../core/ltl/parser.js';
import { translateFormula } from '../core/ltl/translate.js';
import { pruneAutomaton } from '../core/ltl/prune.js';
import { counts } from '../core/ltl/automaton.js';
import { StateSetMonitor } from '../core/ltl/monitor.js';
import { evaluateLasso } from '../core/ltl/lasso.js';
import { acceptsLasso } from '../core/ltl/accept.js';
import { toDot, toHoa } from '../core/ltl/formats.js';
import { CliError, type Output } from './errors.js';
import { action } from './flags.js';
import { PointMazeSim } from '../backends/mujoco/pointmaze.js';
import { cellCoverage, defaultConfig, generateDataset } from '../core/data/generators.js';
import { writeDataset } from '../services/datasets/format.js';
import { mazeSvg } from '../core/world/svg.js';
import { loadModels } from '../services/models/bundle.js';
import { DEFAULT_GRAPH, buildGraph } from '../core/graph/build.js';
import { defaultModelsDir } from './backbone.js';
import { fileURLToPath } from 'node:url';
import { datasetHash } from '../services/datasets/format.js';
import { nodePositions } from '../services/graph/build-artifact.js';
import { augmentTask, readGraphInput, readRegions } from '../services/plan/inputs.js';
import { createRng } from '../core/random/rng.js';
import { DEFAULT_AUGMENT } from '../core/graph/augment.js';
import { type PlanResult, DEFAULT_PLAN, plan } from '../core/plan/plan.js';
import type { SemanticGraph } from '../core/plan/semantic.js';

const asset = (rel: string): string => fileURLToPath(new URL(`../../../assets/${rel}`, import.meta.url));

function planLine(label: string, r: PlanResult, g: SemanticGraph, ms: number): string {
  if (r.status === 'infeasible') return `  ${label.padEnd(8)} infeasible (${r.reason.kind}): ${r.reason.message}\n`;
  const nodes = r.steps.map((x) => g.ids[x.node]!);
  const show = (xs: string[]): string => (xs.length > 8 ? `${xs.slice(0, 3).join(' → ')} → … (${xs.length - 6} more) … → ${xs.slice(-3).join(' → ')}` : xs.join(' → '));
  return `  ${label.padEnd(8)} objective ${r.cost.objective.toFixed(1).padStart(7)} (prefix ${r.cost.prefix.toFixed(1)}, suffix ${r.cost.suffix.toFixed(1)}${r.dwell ? ', dwell' : ''}), ${ms.toFixed(1)} ms, certificate ${r.certificate.checked.guardWordAccepted ? 'checked' : 'REJECTED'}\n` +
    `           prefix ${show(nodes.slice(0, r.prefixLength))}\n           suffix ${show(nodes.slice(r.prefixLength))}\n`;
}

function planAll(io: Output, g: SemanticGraph, spec: string, k: number): void {
  const a = translateFormula(parseLtl(spec)).automaton;
  for (const method of ['sagas', 'lf-gas', 'ga-gas'] as const) {
    const t0 = performance.now();
    const r = plan(g, a, { ...DEFAULT_PLAN, method, k });
    io.out(planLine(method, r, g, performance.now() - t0));
  }
}
import { showLetter } from './words.js';
import { warehouseCommand } from './warehouse.js';

export function demoCommand(io: Output, setExit: (c: number) => void): Command {
  const demo = new Command('demo')
    .description('run the main job on the embedded default (the MuJoCo point maze and the LTL engine on the SAGAS case studies)')
    .option('--out <dir>', 'also write the maze picture, the dataset and each automaton (HOA, DOT) into this folder')
    .option('--steps <n>', 'transitions of the demo dataset', (v: string) => Number(v), 20000)
    .action(action(io, setExit, async (o: { out?: string; steps: number }) => {
      await runWorldDemo(io, o.out, o.steps);
      await runExactDemo(io);
      runDemo(io, o.out);
    }));
  demo.addCommand(warehouseCommand(io, setExit));
  return demo;
}

const letters = (...xs: string[][]): ReadonlySet<string>[] => xs.map((x) => new Set(x));

async function runExactDemo(io: Output): Promise<void> {
  const file = asset('graphs/warehouse.json');
  const input = await readGraphInput(file);
  if (input.kind !== 'labelled') throw new CliError(`${file}: expected a labelled graph`);
  const spec = 'G F shelf_a & G F shelf_b & G F (pack & F charge) & G !wet';
  io.out(`Witness — exact planning on a hand-built map (assets/graphs/warehouse.json, ${input.graph.ids.length} nodes)\n  ${spec}\n`);
  planAll(io, input.graph, spec, Infinity);
  io.out('\n');
}

async function runWorldDemo(io: Output, outDir: string | undefined, steps: number): Promise<void> {
  if (!Number.isInteger(steps) || steps < 1) throw new CliError(`--steps must be a positive integer, got ${steps}`);
  const id = 'pointmaze-medium';
  io.out(`Witness — embedded world ${id} (MuJoCo, mujoco-js)\n`);
  const sim = await PointMazeSim.create(id);
  try {
    const t0 = performance.now();
    const d = generateDataset(sim, id, defaultConfig('navigate', steps, 0));
    const s = (performance.now() - t0) / 1000;
    const cov = cellCoverage(sim.layout, d.observations, d.obsDim);
    io.out(`  navigate dataset: ${steps} transitions in ${s.toFixed(1)} s (${(steps / s).toFixed(0)}/s), ${cov.covered}/${cov.free} free cells covered\n`);
    const models = await loadModels(defaultModelsDir(id), { expectWorld: id });
    try {
      const n = d.terminals.length;
      const latent = await models.embed(d.observations, n);
      const params = { H_TD: models.manifest.H_TD, teThreshold: DEFAULT_GRAPH.teThreshold };
      const g = buildGraph(latent, models.manifest.dims.latent, d.terminals, params);
      io.out(`  shipped backbone (assets/models/${id}): latent graph of ${g.nodeCount} nodes, ${g.edgeU.length} edges over the dataset\n`);
      const positions = nodePositions(g, d);
      const backbone = {
        artifact: { world: id, dataset: { sha256: datasetHash(d) }, models: { embed: '', policy: '' }, params, graph: g, positions },
        dataset: d, models, files: { graph: '(demo)', data: '(demo)', models: defaultModelsDir(id) },
      };
      const regionsFile = asset(`regions/${id}.json`);
      const spec = 'F e2 & G F e1 & G F e4 & G !e0';
      const task = await augmentTask(backbone, await readRegions(regionsFile), [4, 20], DEFAULT_AUGMENT, createRng(0), { regions: regionsFile, start: 'start' });
      io.out(`\n  SAGAS mission on the latent graph: ${spec}\n  regions assets/regions/${id}.json, start (4, 20); ${task.report.nodes.anchors} anchors inserted${task.report.unavailable.length > 0 ? `, unavailable: ${task.report.unavailable.join(', ')}` : ''} (${task.augment_ms.toFixed(0)} ms)\n`);
      planAll(io, task.graph, spec, DEFAULT_PLAN.k);
    } finally {
      await models.close();
    }
    if (outDir !== undefined) {
      mkdirSync(outDir, { recursive: true });
      await writeDataset(join(outDir, `${id}-navigate.wds`), d);
      writeFileSync(join(outDir, `${id}.svg`), mazeSvg(sim.layout, `${id}: navigate`, d));
      io.out(`  wrote ${join(outDir, `${id}.svg`)} and the dataset\n`);
    }
  } finally {
    sim.close();
  }
  io.out('\n');
}

function runDemo(io: Output, outDir: string | undefined): void {
  io.out('Witness — LTL engine demo on the SAGAS case studies\n\n');
  io.out(`${'task'.padEnd(6)} ${'states'.padStart(6)} ${'trans'.padStart(6)} ${'pruned'.padStart(14)} ${'ms'.padStart(8)}  formula\n`);
  if (outDir !== undefined) mkdirSync(outDir, { recursive: true });
  for (const cs of CASE_STUDIES) {
    const t = translateFormula(parseLtl(cs.formula));
    const c = counts(t.automaton);
    const p = counts(pruneAutomaton(t.automaton, { disjoint: true }).automaton);
    io.out(`${cs.id.padEnd(6)} ${String(c.states).padStart(6)} ${String(c.transitions).padStart(6)} ${`${p.states}/${p.transitions}`.padStart(14)} ${t.stats.elapsed_ms.toFixed(1).padStart(8)}  ${cs.formula}\n`);
    if (outDir !== undefined) {
      writeFileSync(join(outDir, `${cs.id}.hoa`), toHoa(t.automaton));
      writeFileSync(join(outDir, `${cs.id}.dot`), toDot(t.automaton));
    }
  }
  io.out('\n(pruned: states/transitions with disjoint regions, at most one proposition per letter)\n');

  const eq6 = CASE_STUDIES[0]!;
  const f = parseLtl(eq6.formula);
  const a = translateFormula(f).automaton;
  io.out(`\nMonitoring a label word against Eq. 6 (${a.states.length} states):\n`);
  const m = new StateSetMonitor(a);
  const word = letters([], ['e7'], [], ['e4'], ['e5'], ['e6'], ['e1'], ['e2'], ['e3'], ['e1']);
  for (const l of word) {
    const s = m.step(l);
    io.out(`  ${String(s.position).padStart(2)} ${showLetter(l).padEnd(6)} → ${s.states.length} states${s.accepting ? ', accepting' : ''}${s.viable ? '' : ', VIOLATED'}\n`);
  }
  const bad = new StateSetMonitor(a);
  const early = letters([], ['e5']);
  let last = bad.snapshot();
  for (const l of early) last = bad.step(l);
  io.out(`  entering e5 before e7: ${last.viable ? 'still viable' : 'violation detected at step ' + last.position + ' (¬e5 U e7 broken)'}\n`);

  const good = { prefix: letters([], ['e7'], ['e4'], ['e5'], ['e6']), cycle: letters(['e1'], [], ['e2'], ['e3']) };
  const viol = { prefix: letters([], ['e7'], ['e4'], ['e6']), cycle: letters(['e1'], ['e2'], ['e3']) };
  for (const [label, w] of [['patrol after the sequence', good], ['sequence skips e5', viol]] as const) {
    const sem = evaluateLasso(f, w);
    const aut = acceptsLasso(a, w);
    io.out(`\nLasso "${label}": semantics ${sem ? 'satisfied' : 'violated'}, automaton ${aut ? 'accepts' : 'rejects'}${sem === aut ? '' : '  (DISAGREE)'}`);
  }
  io.out('\n');
}

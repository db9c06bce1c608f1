/** `witness plan`: SAGAS product search (or a baseline) on a labelled graph or a latent graph artifact. */
import { Command, Option } from 'commander';
import { translateFormula } from '../core/ltl/translate.js';
import { type Method, type PlanResult, DEFAULT_PLAN, METHODS, deadline, plan, unavailablePropositions } from '../core/plan/plan.js';
import type { SemanticGraph } from '../core/plan/semantic.js';
import { planDocument } from '../core/plan/document.js';
import { DEFAULT_AUGMENT, type AugmentReport } from '../core/graph/augment.js';
import { createRng } from '../core/random/rng.js';
import { augmentTask, loadBackbone, readGraphInput } from '../services/plan/inputs.js';
import { CliError, EXIT, type Output } from './errors.js';
import { action, intFlag, numberFlag, pointFlag } from './flags.js';
import { parseSpec, taskRegions } from './task-inputs.js';
import { defaultModelsDir } from './backbone.js';

interface PlanFlags {
  graph: string; spec: string; method: Method; lambda: number; k?: number; json?: boolean; tauSoft: number;
  regions?: string; start?: [number, number]; data?: string; models?: string;
  anchors: number; attempts: number; kernel: 'constant' | 'gaussian'; sigma?: number; seed: number; timeLimitMs: number; heuristic: 'b13' | 'chain';
}

const kFlag = (v: string): number => (v === 'all' ? Infinity : intFlag('--k', 1)(v));

function describe(io: Output, r: PlanResult, g: SemanticGraph, header: string): void {
  io.out(`${header}\n`);
  if (r.status === 'infeasible') {
    io.out(`  infeasible (${r.reason.kind}): ${r.reason.message}\n`);
    return;
  }
  const nodes = r.steps.map((s) => g.ids[s.node]!);
  const pre = nodes.slice(0, r.prefixLength), suf = nodes.slice(r.prefixLength);
  const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(3));
  io.out(`  prefix   ${pre.join(' → ')}   (cost ${fmt(r.cost.prefix)})\n`);
  io.out(`  suffix   ${r.dwell ? `${suf[0]} (dwell)` : suf.join(' → ')}   (cost ${fmt(r.cost.suffix)})\n`);
  io.out(`  objective ${fmt(r.cost.objective)}\n`);
  io.out(`  certificate: ${r.certificate.steps.length} product steps, guard word ${r.certificate.checked.guardWordAccepted ? 'accepted' : 'REJECTED'} by the original automaton (${r.certificate.automaton.states} states)\n`);
  io.out(`  search: ${r.stats.expandedPrefix} product states expanded for prefixes, ${r.stats.expandedSuffix} for suffixes; ${r.stats.withSuffix}/${r.stats.endpoints} endpoint(s) with a suffix\n`);
}

function describeAugment(io: Output, a: AugmentReport): void {
  const anchors = a.anchors.map((x) => `${x.proposition} ${x.accepted}${x.unavailable ? ` (unavailable: ${x.unavailable === 'no-dataset-state' ? 'no dataset state in the region' : `none of ${x.tried} candidates within H_TD`})` : ''}`);
  io.out(`  augmentation: ${a.nodes.clusters} cluster nodes, ${a.nodes.anchors} anchors [${anchors.join(', ')}], regions ${a.disjoint ? 'pairwise disjoint' : 'overlapping'}\n`);
  io.out(`  start label {${a.start.label.join(', ')}}, ${a.start.fallback ? `no node within H_TD: joined to the nearest, ${a.start.fallback.node} at ${a.start.fallback.distance.toFixed(2)}` : `${a.start.neighbours} neighbour(s) within H_TD`}\n`);
}

export function planCommand(io: Output, setExit: (c: number) => void): Command {
  return new Command('plan')
    .description('plan a prefix–suffix mission for an LTL specification over a labelled graph (JSON) or a latent graph (.wgraph)')
    .requiredOption('--graph <file>', 'labelled graph JSON (docs/FORMATS.md) or a latent graph artifact from `witness graph build`')
    .requiredOption('--spec <formula>', 'the LTL specification')
    .addOption(new Option('--method <m>', 'planner').choices([...METHODS]).default('sagas'))
    .option('--lambda <x>', 'prefix–suffix trade-off λ in [0, 1]', numberFlag('--lambda', 0, 1), DEFAULT_PLAN.lambda)
    .option('--k <n|all>', 'prefix candidates K, or all for the exact optimum (default: all on labelled graphs, 5 on latent graphs)', kFlag)
    .option('--tau-soft <x>', 'soft-label threshold τ_soft for negative literals on cluster nodes', numberFlag('--tau-soft', 0, 1), DEFAULT_PLAN.tauSoft)
    .option('--regions <file>', 'latent graphs: the regions file (docs/FORMATS.md)')
    .option('--start <x,y>', 'latent graphs: the start position in metres', pointFlag)
    .option('--data <file>', 'latent graphs: the dataset the graph was built from (.wds)')
    .option('--models <dir>', 'latent graphs: the model bundle (default: the shipped one for the graph\'s world)')
    .option('--anchors <n>', 'anchors per proposition N_s', intFlag('--anchors', 1), DEFAULT_AUGMENT.anchors)
    .option('--attempts <n>', 'anchor candidates retrieved per proposition', intFlag('--attempts', 1), DEFAULT_AUGMENT.attempts)
    .addOption(new Option('--kernel <k>', 'soft-label kernel').choices(['constant', 'gaussian']).default('constant'))
    .option('--sigma <x>', 'Gaussian kernel bandwidth in latent units', numberFlag('--sigma', 1e-9, 1e9))
    .option('--seed <n>', 'seed for anchor retrieval', intFlag('--seed', 0), 0)
    .addOption(new Option('--heuristic <h>', 'prefix A* heuristic: b13 (the paper\'s) or chain (literal-chain bound; same plans, fewer expansions)').choices(['b13', 'chain']).default('b13'))
    .option('--time-limit-ms <n>', 'time budget of the search (exit 3 past it)', intFlag('--time-limit-ms', 1), 60_000)
    .option('--json', 'one JSON document on stdout')
    .action(action(io, setExit, async (o: PlanFlags) => {
      const formula = parseSpec(o.spec);
      const t0 = performance.now();
      const automaton = translateFormula(formula).automaton;
      const translate_ms = performance.now() - t0;
      const input = await readGraphInput(o.graph);
      let graph: SemanticGraph;
      let augmentation: AugmentReport | undefined;
      let augment_ms: number | undefined;
      let k = o.k;
      if (input.kind === 'latent') {
        for (const [flag, v] of [['--regions', o.regions], ['--start', o.start], ['--data', o.data]] as const) {
          if (v === undefined) throw new CliError(`${o.graph} is a latent graph: ${flag} is required`);
        }
        if (o.kernel === 'gaussian' && o.sigma === undefined) throw new CliError('--kernel gaussian needs --sigma');
        const regions = await taskRegions(o.regions!, automaton.aps);
        const b = await loadBackbone(o.graph, o.data!, o.models ?? defaultModelsDir);
        try {
          const task = await augmentTask(b, regions, o.start!, {
            anchors: o.anchors, attempts: o.attempts,
            kernel: o.kernel === 'gaussian' ? { kind: 'gaussian', sigma: o.sigma! } : { kind: 'constant' },
          }, createRng(o.seed), { regions: o.regions!, start: '--start' });
          graph = task.graph;
          augmentation = task.report;
          augment_ms = task.augment_ms;
        } finally {
          await b.models.close();
        }
        k ??= DEFAULT_PLAN.k;
      } else {
        graph = input.graph;
        k ??= Infinity;
      }
      // A proposition no node carries is false everywhere: legal, but usually a typo.
      const warnings = unavailablePropositions(graph, automaton)
        .filter(() => input.kind === 'labelled')
        .map((ap) => `proposition "${ap}" labels no node of ${o.graph}: it is false everywhere`);
      if (!o.json) for (const w of warnings) io.err(`warning: ${w}\n`);
      const t1 = performance.now();
      const check = deadline(o.timeLimitMs, () => performance.now());
      const result = plan(graph, automaton, { method: o.method, k, lambda: o.lambda, tauSoft: o.tauSoft, check, heuristic: o.heuristic });
      const planning_ms = performance.now() - t1;
      const extra = {
        k: k === Infinity ? 'all' : k, lambda: o.lambda, planning_ms, translate_ms, ...(warnings.length > 0 ? { warnings } : {}),
        ...(augment_ms !== undefined ? { augment_ms, augmentation } : {}),
      };
      if (o.json) io.out(`${JSON.stringify(planDocument(result, graph, extra))}\n`);
      else {
        describe(io, result, graph, `plan (${o.method}, K=${k === Infinity ? 'all' : k}, λ=${o.lambda}) for ${automaton.formula}: ${result.status} in ${planning_ms.toFixed(1)} ms`);
        if (augmentation) describeAugment(io, augmentation);
      }
      return result.status === 'ok' ? EXIT.ok : EXIT.budget;
    }));
}

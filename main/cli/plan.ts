/** `witness plan`: SAGAS product search (or a baseline) on a labelled graph or a latent graph artifact. */
import { Command, Option } from 'commander';
import { AUGMENT_DEFAULTS, PLAN_DEFAULTS, PLAN_METHODS, type PlanMethod } from '../contract/defaults.js';
import type { AugmentReport, PlanResult } from '../app/plan.js';
import type { PlanExplanation as Explanation } from '../contract/api.js';
import { EXIT, type Output } from './errors.js';
import { action, intFlag, numberFlag, pointFlag } from './flags.js';

interface PlanFlags {
  graph: string;
  spec: string;
  method: PlanMethod;
  lambda: number;
  k?: number;
  json?: boolean;
  tauSoft: number;
  regions?: string;
  start?: [number, number];
  data?: string;
  models?: string;
  anchors: number;
  attempts: number;
  kernel: 'constant' | 'gaussian';
  sigma?: number;
  seed: number;
  timeLimitMs: number;
  heuristic: 'b13' | 'chain';
}

const kFlag = (v: string): number => (v === 'all' ? Infinity : intFlag('--k', 1)(v));

/** The plan as `witness plan` prints it; the node path (prefix, cycle) is the document's, as the driven path is cut. */
function describe(io: Output, r: PlanResult, doc: Record<string, unknown>, header: string): void {
  io.out(`${header}\n`);
  if (r.status === 'infeasible') {
    io.out(`  infeasible (${r.reason.kind}): ${r.reason.message}\n`);
    const why = doc['explanation'] as Explanation | undefined;
    if (why !== undefined) describeExplanation(io, why);
    return;
  }
  const pre = doc['prefix'] as string[],
    suf = doc['suffix'] as string[];
  const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(3));
  const back = r.rotation.steps + r.rotation.pathSteps;
  io.out(`  prefix   ${pre.join(' → ')}   (cost ${fmt(r.cost.prefix)})\n`);
  io.out(`  suffix   ${r.dwell ? `${suf[0]} (dwell)` : suf.join(' → ')}   (cost ${fmt(r.cost.suffix)})\n`);
  io.out(
    `  objective ${fmt(r.cost.objective)}${back > 0 ? `   (the search cut the lasso where it accepted, objective ${fmt(r.rotation.searchObjective)}; cut ${back} step(s) earlier, where the driven path's cycle begins: the same path and cycle)` : ''}\n`,
  );
  io.out(
    `  certificate: ${r.certificate.steps.length} product steps, guard word ${r.certificate.checked.guardWordAccepted ? 'accepted' : 'REJECTED'} by the original automaton (${r.certificate.automaton.states} states)\n`,
  );
  io.out(
    `  search: ${r.stats.expandedPrefix} product states expanded for prefixes, ${r.stats.expandedSuffix} for suffixes; ${r.stats.withSuffix}/${r.stats.endpoints} endpoint(s) with a suffix\n`,
  );
}

/** Why the specification cannot be met: the conflicting conjuncts, the smallest failing part, the regions. */
function describeExplanation(io: Output, e: Explanation): void {
  io.out(`  why: ${e.message}\n`);
  if (e.conflict.length > 0) {
    io.out(`  conflicting conjuncts${e.minimal ? ' (minimal)' : ' (not proven minimal)'}:\n`);
    for (const i of e.conflict) io.out(`    [${i + 1}] ${e.conjuncts[i]}\n`);
  }
  for (const r of e.regions) {
    const at = r.at ? ` at (${+r.at[0].toFixed(3)}, ${+r.at[1].toFixed(3)})` : '';
    const cut = r.cut && r.cut.length > 0 ? `; the cut around the start: ${r.cut.join(', ')}` : '';
    io.out(
      `  region "${r.region}": ${WHY[r.why]}${r.node !== undefined ? `, entered at node ${r.node}${at}` : ''}${cut}\n`,
    );
  }
  if (e.bound !== undefined) io.out(`  (explanation partial: ${e.bound})\n`);
}

const WHY: Record<Explanation['regions'][number]['why'], string> = {
  'labelled-nowhere': 'labels no node: label a node with it, or fix the name',
  unreachable: 'labels only nodes the start cannot reach: connect one, or drop the need',
  forbidden:
    'every plan would have to enter it, where the specification forbids it: relax that rule, or add a way around',
};

function describeAugment(io: Output, a: AugmentReport): void {
  const anchors = a.anchors.map(
    (x) =>
      `${x.proposition} ${x.accepted}${x.unavailable ? ` (unavailable: ${x.unavailable === 'no-dataset-state' ? 'no dataset state in the region' : `none of ${x.tried} candidates within H_TD`})` : ''}`,
  );
  io.out(
    `  augmentation: ${a.nodes.clusters} cluster nodes, ${a.nodes.anchors} anchors [${anchors.join(', ')}], regions ${a.disjoint ? 'pairwise disjoint' : 'overlapping'}\n`,
  );
  io.out(
    `  start label {${a.start.label.join(', ')}}, ${a.start.fallback ? `no node within H_TD: joined to the nearest, ${a.start.fallback.node} at ${a.start.fallback.distance.toFixed(2)}` : `${a.start.neighbours} neighbour(s) within H_TD`}\n`,
  );
}

export function planCommand(io: Output, setExit: (c: number) => void): Command {
  return new Command('plan')
    .description(
      'plan a prefix–suffix mission for an LTL specification over a labelled graph (JSON) or a latent graph (.wgraph)',
    )
    .requiredOption(
      '--graph <file>',
      'labelled graph JSON (docs/FORMATS.md) or a latent graph artifact from `witness graph build`',
    )
    .requiredOption('--spec <formula>', 'the LTL specification')
    .addOption(new Option('--method <m>', 'planner').choices([...PLAN_METHODS]).default('sagas'))
    .option('--lambda <x>', 'prefix–suffix trade-off λ in [0, 1]', numberFlag('--lambda', 0, 1), PLAN_DEFAULTS.lambda)
    .option(
      '--k <n|all>',
      `prefix candidates K, or all for the exact optimum (default: all on labelled graphs, ${PLAN_DEFAULTS.k} on latent graphs)`,
      kFlag,
    )
    .option(
      '--tau-soft <x>',
      'soft-label threshold τ_soft for negative literals on cluster nodes',
      numberFlag('--tau-soft', 0, 1),
      PLAN_DEFAULTS.tauSoft,
    )
    .option(
      '--regions <file>',
      "the regions file (docs/FORMATS.md); latent graphs need it; a labelled graph's node labels are checked against it and its edges split where they cross a region",
    )
    .option('--start <x,y>', 'latent graphs: the start position in metres', pointFlag)
    .option('--data <file>', 'latent graphs: the dataset the graph was built from (.wds)')
    .option('--models <dir>', "latent graphs: the model bundle (default: the shipped one for the graph's world)")
    .option('--anchors <n>', 'anchors per proposition N_s', intFlag('--anchors', 1), AUGMENT_DEFAULTS.anchors)
    .option(
      '--attempts <n>',
      'anchor candidates retrieved per proposition',
      intFlag('--attempts', 1),
      AUGMENT_DEFAULTS.attempts,
    )
    .addOption(new Option('--kernel <k>', 'soft-label kernel').choices(['constant', 'gaussian']).default('constant'))
    .option('--sigma <x>', 'Gaussian kernel bandwidth in latent units', numberFlag('--sigma', 1e-9, 1e9))
    .option('--seed <n>', 'seed for anchor retrieval', intFlag('--seed', 0), 0)
    .addOption(
      new Option(
        '--heuristic <h>',
        "prefix A* heuristic: b13 (the paper's) or chain (literal-chain bound; same plans, fewer expansions)",
      )
        .choices(['b13', 'chain'])
        .default('b13'),
    )
    .option(
      '--time-limit-ms <n>',
      'time budget of the search (exit 3 past it)',
      intFlag('--time-limit-ms', 1),
      PLAN_DEFAULTS.cliTimeLimit_ms,
    )
    .option('--json', 'one JSON document on stdout')
    .action(
      action(io, setExit, async (o: PlanFlags) => {
        const { planOnGraph } = await import('../app/plan.js');
        const r = await planOnGraph({
          graph: o.graph,
          spec: o.spec,
          method: o.method,
          lambda: o.lambda,
          tauSoft: o.tauSoft,
          heuristic: o.heuristic,
          timeLimit_ms: o.timeLimitMs,
          ...(o.k !== undefined ? { k: o.k } : {}),
          ...(o.regions !== undefined ? { regions: o.regions } : {}),
          ...(o.start !== undefined ? { start: o.start } : {}),
          ...(o.data !== undefined ? { data: o.data } : {}),
          ...(o.models !== undefined ? { models: o.models } : {}),
          augment: {
            anchors: o.anchors,
            attempts: o.attempts,
            kernel: o.kernel,
            seed: o.seed,
            ...(o.sigma !== undefined ? { sigma: o.sigma } : {}),
          },
        });
        if (o.json) io.out(`${JSON.stringify(r.document)}\n`);
        else {
          for (const w of r.warnings) io.err(`warning: ${w}\n`);
          describe(
            io,
            r.result,
            r.document,
            `plan (${o.method}, K=${r.k === Infinity ? 'all' : r.k}, λ=${o.lambda}) for ${r.automaton.formula}: ${r.result.status} in ${r.planning_ms.toFixed(1)} ms`,
          );
          if (r.augmentation) describeAugment(io, r.augmentation);
        }
        return r.result.status === 'ok' ? EXIT.ok : EXIT.budget;
      }),
    );
}

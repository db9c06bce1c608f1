/**
 * `witness demo`: the main job on the embedded default: the embedded MuJoCo point maze (a navigate
 * dataset generated, its coverage, the shipped backbone's latent graph over it, a SAGAS mission
 * planned by every method), exact planning on a hand-built map, and the LTL engine on the paper's
 * case studies (translation, pruning, a monitored word, a lasso verdict).
 */
import { Command } from 'commander';
import type { MethodPlan, SemanticGraph } from '../app/demo.js';
import type { Output } from './errors.js';
import { action, intFlag } from './flags.js';
import { warehouseCommand } from './warehouse.js';

function planLines(io: Output, g: SemanticGraph, plans: readonly MethodPlan[]): void {
  for (const { method, result: r, ms } of plans) {
    if (r.status === 'infeasible') {
      io.out(`  ${method.padEnd(8)} infeasible (${r.reason.kind}): ${r.reason.message}\n`);
      continue;
    }
    const nodes = r.steps.map((x) => g.ids[x.node]!);
    const show = (xs: string[]): string =>
      xs.length > 8
        ? `${xs.slice(0, 3).join(' → ')} → … (${xs.length - 6} more) … → ${xs.slice(-3).join(' → ')}`
        : xs.join(' → ');
    io.out(
      `  ${method.padEnd(8)} objective ${r.cost.objective.toFixed(1).padStart(7)} (prefix ${r.cost.prefix.toFixed(1)}, suffix ${r.cost.suffix.toFixed(1)}${r.dwell ? ', dwell' : ''}), ${ms.toFixed(1)} ms, certificate ${r.certificate.checked.guardWordAccepted ? 'checked' : 'REJECTED'}\n` +
        `           prefix ${show(nodes.slice(0, r.prefixLength))}\n           suffix ${show(nodes.slice(r.prefixLength))}\n`,
    );
  }
}

export function demoCommand(io: Output, setExit: (c: number) => void): Command {
  const demo = new Command('demo')
    .description(
      'run the main job on the embedded default (the MuJoCo point maze and the LTL engine on the SAGAS case studies)',
    )
    .option('--out <dir>', 'also write the maze picture, the dataset and each automaton (HOA, DOT) into this folder')
    .option('--steps <n>', 'transitions of the demo dataset', intFlag('--steps', 1, 100_000_000), 20000)
    .action(
      action(io, setExit, async (o: { out?: string; steps: number }) => {
        const app = await import('../app/demo.js');
        const w = await app.worldDemo(o.steps, o.out);
        io.out(`Witness — embedded world ${w.world} (MuJoCo, mujoco-js)\n`);
        io.out(
          `  navigate dataset: ${w.steps} transitions in ${w.seconds.toFixed(1)} s (${(w.steps / w.seconds).toFixed(0)}/s), ${w.covered}/${w.free} free cells covered\n`,
        );
        io.out(
          `  shipped backbone (assets/models/${w.world}): latent graph of ${w.nodes} nodes, ${w.edges} edges over the dataset\n`,
        );
        io.out(
          `\n  SAGAS mission on the latent graph: ${w.spec}\n  regions assets/regions/${w.world}.json, start (${w.start[0]}, ${w.start[1]}); ${w.anchors} anchors inserted${w.unavailable.length > 0 ? `, unavailable: ${w.unavailable.join(', ')}` : ''} (${w.augment_ms.toFixed(0)} ms)\n`,
        );
        planLines(io, w.graph, w.plans);
        for (const f of w.wrote) io.out(`  wrote ${f} and the dataset\n`);
        io.out('\n');
        const x = await app.exactDemo();
        io.out(
          `Witness — exact planning on a hand-built map (assets/graphs/warehouse.json, ${x.nodes} nodes)\n  ${x.spec}\n`,
        );
        planLines(io, x.graph, x.plans);
        io.out('\n');
        const l = await app.ltlDemo(o.out);
        io.out('Witness — LTL engine demo on the SAGAS case studies\n\n');
        io.out(
          `${'task'.padEnd(6)} ${'states'.padStart(6)} ${'trans'.padStart(6)} ${'pruned'.padStart(14)} ${'ms'.padStart(8)}  formula\n`,
        );
        for (const c of l.cases)
          io.out(
            `${c.id.padEnd(6)} ${String(c.states).padStart(6)} ${String(c.transitions).padStart(6)} ${`${c.pruned.states}/${c.pruned.transitions}`.padStart(14)} ${c.ms.toFixed(1).padStart(8)}  ${c.formula}\n`,
          );
        io.out('\n(pruned: states/transitions with disjoint regions, at most one proposition per letter)\n');
        io.out(`\nMonitoring a label word against Eq. 6 (${l.eq6.states} states):\n`);
        for (const { letter, step: s } of l.eq6.steps)
          io.out(
            `  ${String(s.position).padStart(2)} ${app.showLetter(letter).padEnd(6)} → ${s.states.length} states${s.accepting ? ', accepting' : ''}${s.viable ? '' : ', VIOLATED'}\n`,
          );
        const e = l.eq6.early;
        io.out(
          `  entering e5 before e7: ${e.viable ? 'still viable' : 'violation detected at step ' + e.position + ' (¬e5 U e7 broken)'}\n`,
        );
        for (const z of l.lassos)
          io.out(
            `\nLasso "${z.label}": semantics ${z.semantics ? 'satisfied' : 'violated'}, automaton ${z.automaton ? 'accepts' : 'rejects'}${z.semantics === z.automaton ? '' : '  (DISAGREE)'}`,
          );
        io.out('\n');
      }),
    );
  demo.addCommand(warehouseCommand(io, setExit));
  return demo;
}

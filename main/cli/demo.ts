/**
 * `witness demo`: the main job on the embedded default. Until the simulator lands (issue 3) it
 * shows the LTL engine on the paper's case studies: translation, pruning, a monitored word and
 * a lasso verdict.
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
import { type Output, report } from './errors.js';
import { showLetter } from './words.js';

export function demoCommand(io: Output, setExit: (c: number) => void): Command {
  return new Command('demo')
    .description('run the main job on the embedded default (today: the LTL engine on the SAGAS case studies)')
    .option('--out <dir>', 'also write each automaton as HOA and DOT into this folder')
    .action((o: { out?: string }) => {
      try {
        runDemo(io, o.out);
        setExit(0);
      } catch (e) {
        setExit(report(e, io));
      }
    });
}

const letters = (...xs: string[][]): ReadonlySet<string>[] => xs.map((x) => new Set(x));

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

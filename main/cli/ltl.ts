/** `witness ltl …`: the LTL engine on the command line. */
import { Command, Option } from 'commander';
import type * as Ltl from '../app/ltl.js';
import { LTL_OUTPUT_FORMATS } from '../contract/defaults.js';
import { WitnessError } from '../contract/errors.js';
import { EXIT, type Output, report } from './errors.js';
import { intFlag } from './flags.js';

interface SourceOpts {
  file?: string;
}

/** The LTL workflows, loaded when a command runs (so `witness --help` loads none of them). */
const ltlApp = (): Promise<typeof Ltl> => import('../app/ltl.js');

function budgetOptions(o: { maxStates?: number; timeLimitMs?: number }): Ltl.Budget {
  return {
    ...(o.maxStates !== undefined ? { maxStates: o.maxStates } : {}),
    ...(o.timeLimitMs !== undefined ? { timeLimit_ms: o.timeLimitMs } : {}),
  };
}

/**
 * Runs `body` with the LTL app, turning thrown errors into reports (positions prefixed with the file) and exit codes.
 */
async function guarded(
  io: Output,
  setExit: (c: number) => void,
  formula: string | undefined,
  o: SourceOpts,
  body: (app: typeof Ltl, src: Ltl.FormulaSource) => number | void,
): Promise<void> {
  let where: string | undefined;
  try {
    const app = await ltlApp();
    const src = await app.formulaSource(formula, o.file);
    where = src.where;
    setExit(body(app, src) ?? EXIT.ok);
  } catch (e) {
    setExit(report(e, io, where));
  }
}

const budgetFlags = (c: Command): Command =>
  c
    .option('--max-states <n>', 'state budget for each translation stage (default 20000)', intFlag('--max-states', 1))
    .option(
      '--time-limit-ms <n>',
      'time budget for the translation in ms (default 10000)',
      intFlag('--time-limit-ms', 1),
    );

function registerLtlTranslate(ltl: Command, io: Output, setExit: (c: number) => void): void {
  budgetFlags(
    ltl
      .command('translate')
      .description('translate a formula to a Büchi automaton (HOA v1 by default)')
      .argument('[formula]', 'LTL formula (Spot\'s syntax, X included), e.g. "G F a & (!b U c)"')
      .option('-f, --file <path>', 'read the formula from a file')
      .addOption(new Option('--format <format>', 'output format').choices([...LTL_OUTPUT_FORMATS]).default('hoa'))
      .addOption(
        new Option('--acceptance <kind>', 'HOA acceptance on states or transitions')
          .choices(['state', 'transition'])
          .default('state'),
      )
      .option('--disjoint', 'prune guard terms that need two propositions at once (disjoint regions)')
      .option('--unavailable <props>', 'prune guard terms that need one of these propositions (comma-separated)')
      .option('--stats', 'print sizes and time on stderr'),
  ).action(
    (
      formula: string | undefined,
      o: SourceOpts & {
        format: Ltl.AutomatonFormat;
        acceptance: Ltl.AcceptanceKind;
        disjoint?: boolean;
        unavailable?: string;
        stats?: boolean;
        maxStates?: number;
        timeLimitMs?: number;
      },
    ) =>
      guarded(io, setExit, formula, o, (app, src) => {
        const unavailable = o.unavailable
          ?.split(',')
          .map((x) => x.trim())
          .filter((x) => x !== '');
        const t = app.translate(src.text, {
          ...budgetOptions(o),
          format: o.format,
          acceptance: o.acceptance,
          ...(o.disjoint ? { disjoint: true } : {}),
          ...(unavailable !== undefined ? { unavailable } : {}),
        });
        const r = t.pruning;
        if (r !== undefined) {
          if (r.unknownPropositions.length > 0)
            io.err(
              `warning: --unavailable names propositions the formula does not use: ${r.unknownPropositions.join(', ')}\n`,
            );
          if (o.stats || r.empty)
            io.err(
              `pruning: ${r.droppedTerms} guard terms dropped, ${r.droppedTargets} accepting targets dropped, ${r.removedStates} states removed\n`,
            );
          if (r.empty) io.err('pruning: no accepting run remains: the task is not supported under these assumptions\n');
        }
        io.out(t.output);
        if (o.stats) {
          const c = t.counts;
          io.err(
            `states ${c.states}, edges ${c.edges}, transitions ${c.transitions}; alternating ${t.stats.alternatingStates}, generalized ${t.stats.generalizedStates}, acceptance sets ${t.stats.acceptanceSets}; ${t.stats.elapsed_ms.toFixed(2)} ms\n`,
          );
        }
      }),
  );
}

function registerLtlParse(ltl: Command, io: Output, setExit: (c: number) => void): void {
  ltl
    .command('parse')
    .description('check a formula and print it back in canonical form (or its syntax tree with --json)')
    .argument('[formula]', 'LTL formula')
    .option('-f, --file <path>', 'read the formula from a file')
    .option('--json', 'print the syntax tree as JSON')
    .addOption(new Option('--syntax <style>', 'printing style').choices(['witness', 'spin']).default('witness'))
    .action((formula: string | undefined, o: SourceOpts & { json?: boolean; syntax: 'witness' | 'spin' }) =>
      guarded(io, setExit, formula, o, (app, src) => {
        const f = app.parseFormula(src.text);
        io.out(o.json ? JSON.stringify(f, null, 2) + '\n' : app.printFormula(f, o.syntax) + '\n');
      }),
    );
}

function registerLtlCheck(ltl: Command, io: Output, setExit: (c: number) => void): void {
  budgetFlags(
    ltl
      .command('check')
      .description('decide whether the lasso word prefix·cycle^ω satisfies a formula (exit 0 yes, 1 no)')
      .argument('[formula]', 'LTL formula')
      .option('-f, --file <path>', 'read the formula from a file')
      .option('--prefix <word>', "letters separated by ';', propositions by ',' (e.g. 'a;;b,c')", '')
      .requiredOption('--cycle <word>', 'the repeated part, at least one letter')
      .option('--json', 'print the verdict as JSON'),
  ).action(
    (
      formula: string | undefined,
      o: SourceOpts & { prefix: string; cycle: string; json?: boolean; maxStates?: number; timeLimitMs?: number },
    ) =>
      guarded(io, setExit, formula, o, (app, src) => {
        const v = app.checkLasso(src.text, o.prefix, o.cycle, budgetOptions(o));
        if (o.json) io.out(JSON.stringify({ formula: v.formula, satisfied: v.satisfied }) + '\n');
        else
          io.out(
            `${v.satisfied ? 'satisfied' : 'violated'}: ${v.prefix.map(app.showLetter).join(' ')} (${v.cycle.map(app.showLetter).join(' ')})^ω ${v.satisfied ? '⊨' : '⊭'} ${v.formula}\n`,
          );
        return v.satisfied ? EXIT.ok : EXIT.negative;
      }),
  );
}

function registerLtlMonitor(ltl: Command, io: Output, setExit: (c: number) => void): void {
  budgetFlags(
    ltl
      .command('monitor')
      .description('run the state-set monitor over a finite label word and print the states after each letter')
      .argument('[formula]', 'LTL formula')
      .option('-f, --file <path>', 'read the formula from a file')
      .requiredOption('--word <word>', "letters separated by ';', propositions by ','")
      .option('--json', 'print the steps as JSON lines'),
  ).action(
    (
      formula: string | undefined,
      o: SourceOpts & { word: string; json?: boolean; maxStates?: number; timeLimitMs?: number },
    ) =>
      guarded(io, setExit, formula, o, (app, src) => {
        const m = app.monitorWord(src.text, o.word, budgetOptions(o));
        if (!o.json) io.out(`start: states {${m.start.states.join(',')}}\n`);
        let last = m.start;
        for (const { letter, state } of m.steps) {
          last = state;
          if (o.json) io.out(JSON.stringify({ letter: [...letter], ...state }) + '\n');
          else
            io.out(
              `${String(state.position).padStart(3)} ${app.showLetter(letter).padEnd(12)} states {${state.states.join(',')}}${state.viable ? '' : '  VIOLATED: no accepting continuation'}\n`,
            );
        }
        return last.viable ? EXIT.ok : EXIT.negative;
      }),
  );
}

/** The catalogue, one pattern a line under its family: usage, then what it says. */
function catalogueText(app: typeof Ltl): string {
  const lines: string[] = [];
  for (const [family, title] of [
    ['property', 'property patterns (Dwyer, Avrunin, Corbett), by scope'],
    ['robotic', 'robotic mission patterns (Menghi et al.)'],
  ] as const) {
    lines.push(`${title}:`);
    const ps = app.PATTERNS.filter((p) => p.family === family);
    const width = Math.max(...ps.map((p) => app.patternUsage(p).length));
    for (const p of ps) lines.push(`  ${app.patternUsage(p).padEnd(width)}  ${p.description}`);
  }
  return lines.join('\n') + '\n';
}

function registerLtlPattern(ltl: Command, io: Output, setExit: (c: number) => void): void {
  ltl
    .command('pattern')
    .description('print a specification pattern instantiated with formulas (--list: the catalogue)')
    .argument('[name]', 'pattern name, e.g. response-before or ordered-visit')
    .argument('[args...]', 'its parameters, each a formula (a count as a number), in the order --list shows')
    .option('--list', 'list the patterns with their parameters')
    .option('--json', 'print JSON: the pattern, its arguments and the formula (with --list: the catalogue)')
    .action(async (name: string | undefined, args: string[], o: { list?: boolean; json?: boolean }) => {
      try {
        const app = await ltlApp();
        if (o.list) {
          if (name !== undefined) throw new WitnessError('invalid-input', '--list takes no pattern name');
          if (!o.json) io.out(catalogueText(app));
          else {
            const rows = app.PATTERNS.map(({ name, family, params, description }) => ({
              name,
              family,
              params,
              description,
            }));
            io.out(JSON.stringify(rows, null, 2) + '\n');
          }
          return setExit(EXIT.ok);
        }
        if (name === undefined) throw new WitnessError('invalid-input', 'missing pattern name (--list lists them)');
        const text = app.instantiatePattern(name, args).text;
        io.out((o.json ? JSON.stringify({ pattern: name, args, formula: text }) : text) + '\n');
        setExit(EXIT.ok);
      } catch (e) {
        setExit(report(e, io));
      }
    });
}

export function ltlCommand(io: Output, setExit: (c: number) => void): Command {
  const ltl = new Command('ltl').description(
    'LTL specifications: parse, translate to Büchi automata, check words, specification patterns',
  );

  registerLtlTranslate(ltl, io, setExit);
  registerLtlParse(ltl, io, setExit);
  registerLtlCheck(ltl, io, setExit);
  registerLtlMonitor(ltl, io, setExit);
  registerLtlPattern(ltl, io, setExit);
  return ltl;
}

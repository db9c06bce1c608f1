/** `witness ltl …`: the LTL engine on the command line. */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { parseLtl } from '../core/ltl/parser.js';
import { printLtl } from '../core/ltl/printer.js';
import { translateFormula, type TranslateOptions } from '../core/ltl/translate.js';
import { formatAutomaton, type AcceptanceKind, type AutomatonFormat } from '../core/ltl/formats.js';
import { pruneAutomaton } from '../core/ltl/prune.js';
import { evaluateLasso } from '../core/ltl/lasso.js';
import { acceptsLasso } from '../core/ltl/accept.js';
import { StateSetMonitor } from '../core/ltl/monitor.js';
import { counts } from '../core/ltl/automaton.js';
import { CliError, EXIT, type Output, report } from './errors.js';
import { parseWord, showLetter } from './words.js';
import { intFlag } from './flags.js';

interface SourceOpts { file?: string }

/** The formula text and where it came from (for error positions). */
function source(formula: string | undefined, opts: SourceOpts): { text: string; where?: string } {
  if (opts.file !== undefined) {
    if (formula !== undefined) throw new CliError('give the formula either as an argument or with --file, not both');
    try {
      return { text: readFileSync(opts.file, 'utf8'), where: opts.file };
    } catch (e) {
      throw new CliError(`cannot read ${opts.file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
  }
  if (formula === undefined) throw new CliError('missing formula: give it as an argument or with --file');
  return { text: formula };
}


function budgetOptions(o: { maxStates?: number; timeLimitMs?: number }): TranslateOptions {
  return {
    ...(o.maxStates !== undefined ? { maxStates: o.maxStates } : {}),
    ...(o.timeLimitMs !== undefined ? { timeLimit_ms: o.timeLimitMs } : {}),
  };
}

/** Runs `body`, turning thrown errors into reports and exit codes. */
function guarded(io: Output, setExit: (c: number) => void, body: (where: { where?: string }) => number | void) {
  const where: { where?: string } = {};
  try {
    setExit(body(where) ?? EXIT.ok);
  } catch (e) {
    setExit(report(e, io, where.where));
  }
}

export function ltlCommand(io: Output, setExit: (c: number) => void): Command {
  const ltl = new Command('ltl').description('LTL specifications: parse, translate to Büchi automata, check words');

  const budgetFlags = (c: Command): Command =>
    c
      .option('--max-states <n>', 'state budget for each translation stage (default 20000)', intFlag('--max-states', 1))
      .option('--time-limit-ms <n>', 'time budget for the translation in ms (default 10000)', intFlag('--time-limit-ms', 1));

  budgetFlags(
    ltl
      .command('translate')
      .description('translate a formula to a Büchi automaton (HOA v1 by default)')
      .argument('[formula]', 'LTL formula without next, e.g. "G F a & (!b U c)"')
      .option('-f, --file <path>', 'read the formula from a file')
      .addOption(new Option('--format <format>', 'output format').choices(['hoa', 'json', 'dot']).default('hoa'))
      .addOption(new Option('--acceptance <kind>', 'HOA acceptance on states or transitions').choices(['state', 'transition']).default('state'))
      .option('--disjoint', 'prune guard terms that need two propositions at once (disjoint regions)')
      .option('--unavailable <props>', 'prune guard terms that need one of these propositions (comma-separated)')
      .option('--stats', 'print sizes and time on stderr'),
  ).action((formula: string | undefined, o: SourceOpts & {
    format: AutomatonFormat; acceptance: AcceptanceKind; disjoint?: boolean; unavailable?: string; stats?: boolean;
    maxStates?: number; timeLimitMs?: number;
  }) => guarded(io, setExit, (w) => {
    const src = source(formula, o);
    if (src.where !== undefined) w.where = src.where;
    const f = parseLtl(src.text);
    const t = translateFormula(f, budgetOptions(o));
    let automaton = t.automaton;
    if (o.disjoint || o.unavailable !== undefined) {
      const unavailable = o.unavailable?.split(',').map((s) => s.trim()).filter((s) => s !== '') ?? [];
      const pruned = pruneAutomaton(automaton, { disjoint: o.disjoint ?? false, unavailable });
      automaton = pruned.automaton;
      const r = pruned.report;
      if (r.unknownPropositions.length > 0) io.err(`warning: --unavailable names propositions the formula does not use: ${r.unknownPropositions.join(', ')}\n`);
      if (o.stats || r.empty) {
        io.err(`pruning: ${r.droppedTerms.length} guard terms dropped, ${r.droppedTargets.length} accepting targets dropped, ${r.removedStates.length} states removed\n`);
      }
      if (r.empty) io.err('pruning: no accepting run remains: the task is not supported under these assumptions\n');
    }
    io.out(formatAutomaton(automaton, o.format, o.acceptance));
    if (o.stats) {
      const c = counts(automaton);
      io.err(`states ${c.states}, edges ${c.edges}, transitions ${c.transitions}; alternating ${t.stats.alternatingStates}, generalized ${t.stats.generalizedStates}, acceptance sets ${t.stats.acceptanceSets}; ${t.stats.elapsed_ms.toFixed(2)} ms\n`);
    }
  }));

  ltl
    .command('parse')
    .description('check a formula and print it back in canonical form (or its syntax tree with --json)')
    .argument('[formula]', 'LTL formula')
    .option('-f, --file <path>', 'read the formula from a file')
    .option('--json', 'print the syntax tree as JSON')
    .addOption(new Option('--syntax <style>', 'printing style').choices(['witness', 'spin']).default('witness'))
    .action((formula: string | undefined, o: SourceOpts & { json?: boolean; syntax: 'witness' | 'spin' }) =>
      guarded(io, setExit, (w) => {
        const src = source(formula, o);
        if (src.where !== undefined) w.where = src.where;
        const f = parseLtl(src.text);
        io.out(o.json ? JSON.stringify(f, null, 2) + '\n' : printLtl(f, o.syntax) + '\n');
      }));

  budgetFlags(
    ltl
      .command('check')
      .description('decide whether the lasso word prefix·cycle^ω satisfies a formula (exit 0 yes, 1 no)')
      .argument('[formula]', 'LTL formula')
      .option('-f, --file <path>', 'read the formula from a file')
      .option('--prefix <word>', "letters separated by ';', propositions by ',' (e.g. 'a;;b,c')", '')
      .requiredOption('--cycle <word>', 'the repeated part, at least one letter')
      .option('--json', 'print the verdict as JSON'),
  ).action((formula: string | undefined, o: SourceOpts & { prefix: string; cycle: string; json?: boolean; maxStates?: number; timeLimitMs?: number }) =>
    guarded(io, setExit, (w) => {
      const src = source(formula, o);
      if (src.where !== undefined) w.where = src.where;
      const f = parseLtl(src.text);
      const word = { prefix: parseWord(o.prefix, '--prefix'), cycle: parseWord(o.cycle, '--cycle') };
      if (word.cycle.length === 0) throw new CliError('--cycle: the repeated part needs at least one letter (use {} for a letter where nothing holds)');
      const semantics = evaluateLasso(f, word);
      const automaton = acceptsLasso(translateFormula(f, budgetOptions(o)).automaton, word);
      if (semantics !== automaton) throw new CliError(`internal disagreement: semantics ${semantics}, automaton ${automaton}`, 70);
      if (o.json) io.out(JSON.stringify({ formula: printLtl(f), satisfied: semantics }) + '\n');
      else io.out(`${semantics ? 'satisfied' : 'violated'}: ${word.prefix.map(showLetter).join(' ')} (${word.cycle.map(showLetter).join(' ')})^ω ${semantics ? '⊨' : '⊭'} ${printLtl(f)}\n`);
      return semantics ? EXIT.ok : EXIT.negative;
    }));

  budgetFlags(
    ltl
      .command('monitor')
      .description('run the state-set monitor over a finite label word and print the states after each letter')
      .argument('[formula]', 'LTL formula')
      .option('-f, --file <path>', 'read the formula from a file')
      .requiredOption('--word <word>', "letters separated by ';', propositions by ','")
      .option('--json', 'print the steps as JSON lines'),
  ).action((formula: string | undefined, o: SourceOpts & { word: string; json?: boolean; maxStates?: number; timeLimitMs?: number }) =>
    guarded(io, setExit, (w) => {
      const src = source(formula, o);
      if (src.where !== undefined) w.where = src.where;
      const f = parseLtl(src.text);
      const a = translateFormula(f, budgetOptions(o)).automaton;
      const m = new StateSetMonitor(a);
      const word = parseWord(o.word, '--word');
      let last = m.snapshot();
      if (!o.json) io.out(`start: states {${last.states.join(',')}}\n`);
      for (const letter of word) {
        last = m.step(letter);
        if (o.json) io.out(JSON.stringify({ letter: [...letter], ...last }) + '\n');
        else io.out(`${String(last.position).padStart(3)} ${showLetter(letter).padEnd(12)} states {${last.states.join(',')}}${last.viable ? '' : '  VIOLATED: no accepting continuation'}\n`);
      }
      return last.viable ? EXIT.ok : EXIT.negative;
    }));

  return ltl;
}


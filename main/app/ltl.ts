/**
 * The LTL engine as a workflow: read a formula (text or file), translate it to a Büchi automaton
 * (with optional support-aware pruning) and print it as HOA, JSON or DOT, print a formula back, decide
 * a lasso word, run the monitor over a finite word. Every front end (the `witness ltl` commands, the
 * API's ltlTranslate and automaton views) calls these.
 *
 * The tools read Spot's whole LTL syntax, the next operator X included (TOOL_SYNTAX); `automatonOf`,
 * which the planner's API and the graph views call for mission specifications, refuses X unless
 * asked, as every mission path does (a continuous execution is stutter-invariant).
 */
import { WitnessError } from '../contract/errors.js';
import { INPUT, InputRefused, readFailure, readInputText } from '../platform/input-files.js';
import type { Formula } from '../core/ltl/ast.js';
import { type ParseOptions, parseLtl } from '../core/ltl/parser.js';
import { printLtl } from '../core/ltl/printer.js';
import { type TranslateOptions, translateFormula } from '../core/ltl/translate.js';
import { type AcceptanceKind, type AutomatonFormat, formatAutomaton } from '../core/ltl/formats.js';
import { pruneAutomaton } from '../core/ltl/prune.js';
import { evaluateLasso } from '../core/ltl/lasso.js';
import { acceptsLasso } from '../core/ltl/accept.js';
import { type MonitorStep, StateSetMonitor } from '../core/ltl/monitor.js';
import { type BuchiAutomaton, counts } from '../core/ltl/automaton.js';
import { LtlSyntaxError } from '../core/ltl/errors.js';
import type { ApiError, LtlTranslateRequest, LtlTranslateResponse } from '../contract/api/core.js';
import { LTL_OUTPUT_FORMATS } from '../contract/defaults.js';
export { PATTERNS, instantiatePattern, patternUsage, type Pattern } from '../core/ltl/patterns.js';

export type { AcceptanceKind, AutomatonFormat, Formula, BuchiAutomaton };

export interface Budget {
  readonly maxStates?: number;
  readonly timeLimit_ms?: number;
}

const budgetOptions = (b: Budget = {}): TranslateOptions => ({
  ...(b.maxStates !== undefined ? { maxStates: b.maxStates } : {}),
  ...(b.timeLimit_ms !== undefined ? { timeLimit_ms: b.timeLimit_ms } : {}),
});

/** A formula's text and where it came from (a file name for error positions). */
export interface FormulaSource {
  readonly text: string;
  readonly where?: string;
}

/** The formula given as an argument or in a file (exactly one of them). */
export async function formulaSource(formula: string | undefined, file: string | undefined): Promise<FormulaSource> {
  if (file !== undefined) {
    if (formula !== undefined)
      throw new WitnessError('invalid-input', 'give the formula either as an argument or with --file, not both');
    try {
      return { text: await readInputText(file, INPUT.formula), where: file };
    } catch (e) {
      if (e instanceof InputRefused) throw e;
      throw new WitnessError(
        readFailure(e) === 'ENOENT' ? 'not-found' : 'invalid-input',
        `cannot read ${file}: ${readFailure(e)}`,
        { file },
      );
    }
  }
  if (formula === undefined)
    throw new WitnessError('invalid-input', 'missing formula: give it as an argument or with --file');
  return { text: formula };
}

/** What the LTL tools read: the whole syntax, X included. */
export const TOOL_SYNTAX: ParseOptions = Object.freeze({ allowNext: true });

export function parseFormula(text: string): Formula {
  return parseLtl(text, TOOL_SYNTAX);
}

export function printFormula(f: Formula, syntax: 'witness' | 'spin' = 'witness'): string {
  return printLtl(f, syntax);
}

export interface TranslateRequest extends Budget {
  readonly format?: AutomatonFormat;
  readonly acceptance?: AcceptanceKind;
  /** Prune guard terms that need two propositions at once (disjoint regions). */
  readonly disjoint?: boolean;
  /** Prune guard terms that need one of these propositions. */
  readonly unavailable?: readonly string[];
}

export interface Translation {
  readonly automaton: BuchiAutomaton;
  readonly output: string;
  readonly counts: ReturnType<typeof counts>;
  readonly stats: { alternatingStates: number; generalizedStates: number; acceptanceSets: number; elapsed_ms: number };
  /** Present when pruning was asked for. */
  readonly pruning?: {
    droppedTerms: number;
    droppedTargets: number;
    removedStates: number;
    empty: boolean;
    unknownPropositions: readonly string[];
  };
}

/** Translates (and prunes) a formula and prints the automaton. */
export function translate(text: string, o: TranslateRequest = {}): Translation {
  const t = translateFormula(parseLtl(text, TOOL_SYNTAX), budgetOptions(o));
  let automaton = t.automaton;
  let pruning: Translation['pruning'];
  if (o.disjoint === true || o.unavailable !== undefined) {
    const p = pruneAutomaton(automaton, { disjoint: o.disjoint ?? false, unavailable: o.unavailable ?? [] });
    automaton = p.automaton;
    const r = p.report;
    pruning = {
      droppedTerms: r.droppedTerms.length,
      droppedTargets: r.droppedTargets.length,
      removedStates: r.removedStates.length,
      empty: r.empty,
      unknownPropositions: r.unknownPropositions,
    };
  }
  return {
    automaton,
    output: formatAutomaton(automaton, o.format ?? 'hoa', o.acceptance ?? 'state'),
    counts: counts(automaton),
    stats: {
      alternatingStates: t.stats.alternatingStates,
      generalizedStates: t.stats.generalizedStates,
      acceptanceSets: t.stats.acceptanceSets,
      elapsed_ms: t.stats.elapsed_ms,
    },
    ...(pruning !== undefined ? { pruning } : {}),
  };
}

/**
 * The automaton of a formula (no printing). Without `syntax` it reads a mission specification
 * (X refused); the tools pass TOOL_SYNTAX.
 */
export function automatonOf(text: string, o: Budget = {}, syntax: ParseOptions = {}): BuchiAutomaton {
  return translateFormula(parseLtl(text, syntax), budgetOptions(o)).automaton;
}

const NAME = /^[A-Za-z0-9_.:-]+$/;

/** A label word: letters separated by ';', propositions in a letter by ',' (`{}` or nothing: an empty letter). */
export function parseWord(text: string, flag: string): ReadonlySet<string>[] {
  if (text.trim() === '') return [];
  return text.split(';').map((letter, i) => {
    const body = letter
      .trim()
      .replace(/^\{(.*)\}$/, '$1')
      .trim();
    if (body === '') return new Set<string>();
    const names = body.split(',').map((s) => s.trim());
    for (const n of names) {
      if (!NAME.test(n))
        throw new WitnessError(
          'invalid-input',
          `${flag}: letter ${i + 1}: '${n}' is not a proposition name (letters are separated by ';', propositions by ',')`,
          { path: flag },
        );
    }
    return new Set(names);
  });
}

export function showLetter(l: ReadonlySet<string>): string {
  return `{${[...l].join(',')}}`;
}

export interface LassoVerdict {
  readonly formula: string;
  readonly satisfied: boolean;
  readonly prefix: readonly ReadonlySet<string>[];
  readonly cycle: readonly ReadonlySet<string>[];
}

/**
 * Whether prefix·cycle^ω satisfies the formula, decided by the semantics and checked against the
 * automaton (a disagreement is an internal error: one of the two is wrong).
 */
export function checkLasso(text: string, prefix: string, cycle: string, o: Budget = {}): LassoVerdict {
  const f = parseLtl(text, TOOL_SYNTAX);
  const word = { prefix: parseWord(prefix, '--prefix'), cycle: parseWord(cycle, '--cycle') };
  if (word.cycle.length === 0)
    throw new WitnessError(
      'invalid-input',
      '--cycle: the repeated part needs at least one letter (use {} for a letter where nothing holds)',
      { path: '--cycle' },
    );
  const semantics = evaluateLasso(f, word);
  const automaton = acceptsLasso(translateFormula(f, budgetOptions(o)).automaton, word);
  if (semantics !== automaton)
    throw new WitnessError('internal', `internal disagreement: semantics ${semantics}, automaton ${automaton}`);
  return { formula: printLtl(f), satisfied: semantics, ...word };
}

/** The state-set monitor over a finite word: its state before, and after each letter. */
export function monitorWord(
  text: string,
  wordText: string,
  o: Budget = {},
): { start: MonitorStep; steps: { letter: ReadonlySet<string>; state: MonitorStep }[] } {
  const a = translateFormula(parseLtl(text, TOOL_SYNTAX), budgetOptions(o)).automaton;
  const m = new StateSetMonitor(a);
  const start = m.snapshot();
  const steps = parseWord(wordText, '--word').map((letter) => ({ letter, state: m.step(letter) }));
  return { start, steps };
}

/**
 * The API's ltlTranslate (the tools' syntax, X included): the automaton printed in the requested format, or `{ ok:
 * false, error }` with the position of a syntax error (checked here too: direct callers skip the transport's schema).
 */
export function translateRequest(request: LtlTranslateRequest): LtlTranslateResponse {
  const r: unknown = request;
  const invalid = (message: string): LtlTranslateResponse => ({
    ok: false,
    error: { code: 'invalid-params', message },
  });
  if (typeof r !== 'object' || r === null) return invalid('request: expected an object { formula, format? }');
  const { formula, format } = r as { formula?: unknown; format?: unknown };
  if (typeof formula !== 'string') return invalid('request.formula: expected a string');
  if (format !== undefined && !(LTL_OUTPUT_FORMATS as readonly unknown[]).includes(format)) {
    return invalid(`request.format: expected one of ${LTL_OUTPUT_FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  }
  try {
    return {
      ok: true,
      output: formatAutomaton(automatonOf(formula, {}, TOOL_SYNTAX), (format ?? 'hoa') as AutomatonFormat),
    };
  } catch (e) {
    return { ok: false, error: ltlApiError(e) };
  }
}

/** An LTL problem as an ApiError (the position of a syntax error, a budget); anything else is rethrown. */
export function ltlApiError(e: unknown): ApiError {
  if (e instanceof LtlSyntaxError) return { code: e.code, message: e.detail, line: e.line, column: e.column };
  if (e instanceof WitnessError && e.code === 'budget') return { code: 'budget', message: `budget: ${e.message}` };
  throw e;
}

/**
 * The specification pattern catalogue for spec authors: the property patterns of Dwyer, Avrunin and Corbett with
 * their scopes (patterns-property.ts) and the robotic mission patterns of Menghi et al. (patterns-robotic.ts). Each
 * pattern has a name, its parameters and a description; `instantiatePattern` fills the parameters with formulas
 * (given as text) and returns the formula. A scoped property pattern is named `BASE` (globally) or `BASE-SCOPE`
 * (`absence-before`, `response-after-until`, …).
 */
import { WitnessError } from '../../contract/errors.js';
import { closest } from '../loop/vocabulary.js';
import type { Formula } from './ast.js';
import { LtlSyntaxError } from './errors.js';
import { parseLtl } from './parser.js';
import { printLtl } from './printer.js';
import * as P from './patterns-property.js';
import * as M from './patterns-robotic.js';

/**
 * A parameter: one formula, a list of formulas (the last parameter, one or more), or a count (the last, an integer).
 */
interface PatternParam {
  readonly name: string;
  readonly kind: 'formula' | 'list' | 'count';
  readonly description: string;
}

interface PatternValues {
  /** The formula parameters by name. */
  readonly f: P.Args;
  readonly list: readonly Formula[];
  readonly count: number;
}

export interface Pattern {
  readonly name: string;
  readonly family: 'property' | 'robotic';
  readonly params: readonly PatternParam[];
  readonly description: string;
  readonly build: (v: PatternValues) => Formula;
}

/** Most formulas a list parameter takes (each one more location multiplies the automaton). */
const PATTERN_MAX_LIST = 8;
/** Largest count (visits, steps). */
const PATTERN_MAX_COUNT = 16;

const formula = (name: string, description: string): PatternParam => ({ name, kind: 'formula', description });
const LOCATIONS: PatternParam = {
  name: 'l…',
  kind: 'list',
  description: `locations in order, 1 to ${PATTERN_MAX_LIST}`,
};
const count = (description: string): PatternParam => ({ name: 'n', kind: 'count', description });

const PROPERTY_PARAMS: Record<string, PatternParam> = {
  P: formula('P', 'the property'),
  S: formula('S', 'the related event'),
  T: formula('T', 'the second related event'),
  Q: formula('Q', 'opens the scope'),
  R: formula('R', 'closes the scope'),
};

type ScopedBuild = (scope: P.Scope, a: P.Args) => Formula;

const SCOPED: readonly [string, readonly string[], string, ScopedBuild][] = [
  ['absence', ['P'], 'P never holds', P.absence],
  ['existence', ['P'], 'P holds at some position', P.existence],
  ['bounded-existence', ['P'], 'P holds in at most two segments (P is entered at most twice)', P.boundedExistence],
  ['universality', ['P'], 'P holds at every position', P.universality],
  ['precedence', ['P', 'S'], 'S precedes P: no P before the first S', P.precedence],
  ['response', ['P', 'S'], 'S responds to P: every P is followed by an S', P.response],
];

function propertyPatterns(): Pattern[] {
  const out: Pattern[] = [];
  for (const [base, own, what, build] of SCOPED) {
    for (const scope of P.SCOPES) {
      out.push({
        name: scope === 'globally' ? base : `${base}-${scope}`,
        family: 'property',
        params: [...own, ...P.scopeParams(scope)].map((k) => PROPERTY_PARAMS[k]!),
        description: `${what}, ${P.SCOPE_TEXT[scope]}`,
        build: (v) => build(scope, v.f),
      });
    }
  }
  const chain = (name: string, description: string, build: (a: P.Args) => Formula): Pattern => ({
    name,
    family: 'property',
    params: ['P', 'S', 'T'].map((k) => PROPERTY_PARAMS[k]!),
    description: `${description}, over the whole run`,
    build: (v) => build(v.f),
  });
  out.push(chain('precedence-chain', 'S then T precede P: a P only after an S and then a T', P.precedenceChain));
  out.push(chain('response-chain', 'S then T respond to P: every P is followed by an S and then a T', P.responseChain));
  return out;
}

const listed = (name: string, description: string, build: (ls: readonly Formula[]) => Formula): Pattern => ({
  name,
  family: 'robotic',
  params: [LOCATIONS],
  description,
  build: (v) => build(v.list),
});

const pair = (
  name: string,
  [a, b]: [PatternParam, PatternParam],
  description: string,
  build: (x: Formula, y: Formula) => Formula,
): Pattern => ({
  name,
  family: 'robotic',
  params: [a, b],
  description,
  build: (v) => build(v.f[a.name]!, v.f[b.name]!),
});

const C = formula('c', 'the condition');
const L = formula('l', 'the location');
const PP = formula('p', 'what must (or must not) hold');

function roboticPatterns(): Pattern[] {
  const visits = (name: string, description: string, build: (l: Formula, n: number) => Formula): Pattern => ({
    name,
    family: 'robotic',
    params: [L, count(`number of visits, 1 to ${PATTERN_MAX_COUNT}`)],
    description,
    build: (v) => build(v.f['l']!, v.count),
  });
  return [
    listed('visit', 'visit every location, in any order', M.visit),
    listed('sequenced-visit', 'visit the locations in this sequence (others may come in between)', M.sequencedVisit),
    listed('ordered-visit', 'sequenced visit, and no location before its predecessor', M.orderedVisit),
    listed('strict-ordered-visit', 'ordered visit, and no location twice before its successor', M.strictOrderedVisit),
    listed('fair-visit', 'visit every location, each as often as the others (cyclically)', M.fairVisit),
    listed('patrolling', 'visit every location infinitely often', M.patrolling),
    listed('sequenced-patrolling', 'keep visiting the locations in this sequence', M.sequencedPatrolling),
    listed('ordered-patrolling', 'sequenced patrolling, and no location before its predecessor', M.orderedPatrolling),
    listed(
      'strict-ordered-patrolling',
      'ordered patrolling, and no location twice before its successor',
      M.strictOrderedPatrolling,
    ),
    listed('fair-patrolling', 'patrol every location, each as often as the others (cyclically)', M.fairPatrolling),
    {
      name: 'avoidance',
      family: 'robotic',
      params: [PP],
      description: 'p never holds (global avoidance)',
      build: (v) => M.globalAvoidance(v.f['p']!),
    },
    pair('past-avoidance', [C, PP], 'avoid p until c has held', M.pastAvoidance),
    pair('future-avoidance', [C, PP], 'once c has held, avoid p for ever', M.futureAvoidance),
    visits('lower-restricted-avoidance', 'enter l at least n times', M.lowerRestrictedAvoidance),
    visits('upper-restricted-avoidance', 'enter l at most n times', M.upperRestrictedAvoidance),
    visits('exact-restricted-avoidance', 'enter l exactly n times', M.exactRestrictedAvoidance),
    pair('wait', [L, C], 'stay where l holds until c', M.wait),
    pair('instantaneous-reaction', [C, PP], 'whenever c holds, p holds at once', M.instantaneousReaction),
    pair(
      'delayed-reaction',
      [C, PP],
      'whenever c holds, p holds then or later (response with a delay)',
      M.delayedReaction,
    ),
    pair('prompt-reaction', [C, PP], 'whenever c holds, p holds at the next step', M.promptReaction),
    pair('bound-reaction', [C, PP], 'p holds exactly when c holds', M.boundReaction),
    pair('bound-delay', [C, PP], 'p holds exactly one step after c holds', M.boundDelay),
    {
      name: 'reaction-within',
      family: 'robotic',
      params: [C, PP, count(`steps, 1 to ${PATTERN_MAX_COUNT}`)],
      description: 'whenever c holds, p holds within n steps (response with a bounded delay)',
      build: (v) => M.reactionWithin(v.f['c']!, v.f['p']!, v.count),
    },
  ];
}

/** The whole catalogue, property patterns (every scope) first. */
export const PATTERNS: readonly Pattern[] = Object.freeze([...propertyPatterns(), ...roboticPatterns()]);

const BY_NAME = new Map(PATTERNS.map((p) => [p.name, p] as const));

/** How a pattern is written with its parameters: `response-before P S R`, `visit l…`. */
export function patternUsage(p: Pattern): string {
  return [p.name, ...p.params.map((x) => x.name)].join(' ');
}

/** The pattern named, or an invalid-input error with the closest name. */
function patternNamed(name: string): Pattern {
  const p = BY_NAME.get(name);
  if (p !== undefined) return p;
  const hint = closest(name, [...BY_NAME.keys()]);
  throw new WitnessError(
    'invalid-input',
    `no pattern "${name}"${hint !== null ? ` (did you mean ${hint}?)` : ''}; \`witness ltl pattern --list\` lists them`,
  );
}

function arityError(p: Pattern, given: number): WitnessError {
  const last = p.params[p.params.length - 1];
  const fixed = p.params.filter((x) => x.kind !== 'list').length;
  const wants =
    last?.kind === 'list'
      ? `${fixed + 1} to ${fixed + PATTERN_MAX_LIST} arguments`
      : `${fixed} argument${fixed === 1 ? '' : 's'}`;
  return new WitnessError('invalid-input', `${p.name} takes ${wants} (${patternUsage(p)}), got ${given}`);
}

function parseArg(p: Pattern, param: PatternParam, i: number, text: string, parse: (t: string) => Formula): Formula {
  try {
    return parse(text);
  } catch (e) {
    if (!(e instanceof LtlSyntaxError)) throw e;
    throw new WitnessError(
      'invalid-input',
      `${p.name}: argument ${i + 1} (${param.name}) is not a formula: ${e.message}`,
    );
  }
}

function parseCount(p: Pattern, param: PatternParam, i: number, text: string): number {
  const n = /^[0-9]+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > PATTERN_MAX_COUNT)
    throw new WitnessError(
      'invalid-input',
      `${p.name}: argument ${i + 1} (${param.name}) must be an integer from 1 to ${PATTERN_MAX_COUNT}, got "${text}"`,
    );
  return n;
}

/** What the tools read (X included: the strict, fair and prompt patterns use it). */
const readFormula = (t: string): Formula => parseLtl(t, { allowNext: true });

/**
 * The pattern instantiated with its arguments (formula texts; a count as digits): the formula and its text. Errors
 * (unknown name, wrong number of arguments, an argument that is not a formula, a count out of range) are
 * invalid-input WitnessErrors.
 */
export function instantiatePattern(
  name: string,
  args: readonly string[],
  parse: (t: string) => Formula = readFormula,
): { readonly formula: Formula; readonly text: string } {
  const p = patternNamed(name);
  const last = p.params[p.params.length - 1];
  const fixed = last?.kind === 'list' ? p.params.length - 1 : p.params.length;
  const ok =
    last?.kind === 'list' ? args.length > fixed && args.length <= fixed + PATTERN_MAX_LIST : args.length === fixed;
  if (!ok) throw arityError(p, args.length);
  const f: Record<string, Formula> = {};
  let list: Formula[] = [];
  let n = 0;
  p.params.forEach((param, i) => {
    if (param.kind === 'formula') f[param.name] = parseArg(p, param, i, args[i]!, parse);
    else if (param.kind === 'count') n = parseCount(p, param, i, args[i]!);
    else list = args.slice(i).map((t, k) => parseArg(p, param, i + k, t, parse));
  });
  const formula = p.build({ f, list, count: n });
  return { formula, text: printLtl(formula) };
}

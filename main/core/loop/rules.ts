/**
 * Rules files (`*.rules.json`, schema in docs/schemas/rules.schema.json): temporal rules over the tool
 * loop. Propositions are CEL predicates over the state observed after a call and the call itself
 * (`call.tool`, `call.args.<name>`); rules are LTL over them, one letter per executed call. A bounded
 * recurrence is written with the counting macro `F[<=n] p` (p within n calls, this one included),
 * which expands to `p | X p | … | X^(n-1) p` before translation. Registration checks everything
 * against the world's vocabulary and the registered tools before anything runs (a rule that can
 * never hold included), each problem at its file, JSON path and line.
 */
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { InputError, checkSchema } from '../input/json.js';
import { RULE_NAME, RulesDocument, jsonSchema } from '../../contract/formats.js';
import { type Formula, G, X, and, ap, atomicPropositions, not, or } from '../ltl/ast.js';
import { parseLtl } from '../ltl/parser.js';
import { printLtl } from '../ltl/printer.js';
import { scanLtl } from '../ltl/lexer.js';
import { translateFormula } from '../ltl/translate.js';
import type { BuchiAutomaton } from '../ltl/automaton.js';
import { LetterSteps } from '../ltl/forbidden.js';
import { WitnessError } from '../../contract/errors.js';
import type { RegisteredTool } from './tools.js';
import { type Vocabulary, VocabularyError, checkCondition, closest } from './vocabulary.js';
import { type Expr, parseExpr, plainPath, references, rootName, toRef, type Ref } from './cel-ast.js';

/** The published schema of rules files (docs/schemas/rules.schema.json). */
export const RULES_SCHEMA = jsonSchema(RulesDocument);

/** The largest bound of the counting macro `F[<=n]`: each step of it is one more X in the automaton. */
const MAX_RULE_BOUND = 64;

interface RuleProposition {
  readonly name: string;
  readonly expr: string;
}

interface Rule {
  readonly name: string;
  /** As written (with the counting macro). */
  readonly ltl: string;
  /** The formula translated: the macro expanded, printed canonically. */
  readonly expanded: string;
  readonly automaton: BuchiAutomaton;
  readonly description?: string;
}

/** A registered rules file. */
export interface RuleSet {
  readonly file: string;
  readonly propositions: readonly RuleProposition[];
  readonly rules: readonly Rule[];
}

const TOP_FIELDS = ['$schema', 'description', 'propositions', 'rules'];
const RULE_FIELDS = ['name', 'ltl', 'description'];

/** "file:line" for a JSON path of the document's text, or the file alone when the text is not at hand. */
function located(file: string, text: string | undefined, path: (string | number)[]): string {
  if (text === undefined) return file;
  const tree = parseTree(text);
  const node = tree === undefined ? undefined : findNodeAtLocation(tree, path);
  if (node === undefined) return file;
  // A property's name is where a reader looks for it.
  const at = node.parent?.type === 'property' ? node.parent.offset : node.offset;
  return `${file}:${text.slice(0, at).split('\n').length}`;
}

/** A JSON path's segments as the `$.a[0]["b c"]` text messages give. */
export const jsonPathOf = (path: readonly (string | number)[]): string =>
  '$' +
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`))
    .join('');

/** A problem of a rules document: where (a JSON path into it) and what. */
export interface RulesProblem {
  readonly path: readonly (string | number)[];
  readonly detail: string;
}

type Fail = (path: (string | number)[], detail: string) => void;

/** Unknown fields, with the closest known one: checked before the schema, which would only say "unknown". */
function checkFields(value: unknown, fail: Fail): void {
  const unknownIn = (o: unknown, known: readonly string[], at: (string | number)[]): void => {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) return;
    for (const k of Object.keys(o)) {
      if (known.includes(k)) continue;
      const hint = closest(k, known);
      fail([...at, k], `unknown field "${k}"${hint ? ` (did you mean ${hint}?)` : ''}; fields: ${known.join(', ')}`);
    }
  };
  unknownIn(value, TOP_FIELDS, []);
  const props = (value as { propositions?: unknown } | null)?.propositions;
  if (props !== null && typeof props === 'object')
    for (const k of Object.keys(props))
      if (!new RegExp(RULE_NAME).test(k))
        fail(['propositions', k], `"${k}" is no proposition name: a lowercase letter first, then a-z, 0-9 and _`);
  const rules = (value as { rules?: unknown } | null)?.rules;
  if (Array.isArray(rules)) rules.forEach((r, i) => unknownIn(r, RULE_FIELDS, ['rules', i]));
}

/**
 * Expands the counting macro: `F[<=n] p` is `p | X p | … | X^(n-1) p`. The macro's `F` tokens are
 * told from plain ones by position: the parser's syntax tree lists F nodes in the order their tokens
 * appear (a prefix operator precedes its operand), so the i-th F node is the i-th F token.
 */
export function expandRule(ltl: string): Formula {
  const bounds = new Map<number, number>();
  const macro = /F\s*\[\s*<=\s*(\d+)\s*\]/g;
  let plain = '';
  let last = 0;
  for (let m = macro.exec(ltl); m !== null; m = macro.exec(ltl)) {
    const n = Number(m[1]);
    if (n < 1 || n > MAX_RULE_BOUND)
      throw new VocabularyError(`F[<=${m[1]}]: the bound is a number of calls from 1 to ${MAX_RULE_BOUND}`);
    plain += ltl.slice(last, m.index);
    bounds.set(plain.length, n);
    plain += 'F' + ' '.repeat(m[0].length - 1); // the same length: positions in messages stay true
    last = m.index + m[0].length;
  }
  plain += ltl.slice(last);
  const f = parseLtl(plain, { allowNext: true });
  if (bounds.size === 0) return f;
  const tokens = scanLtl(plain).filter((t) => t.kind === 'F');
  let i = 0;
  const walk = (g: Formula): Formula => {
    switch (g.kind) {
      case 'true':
      case 'false':
      case 'ap':
        return g;
      case 'and':
      case 'or':
        return { kind: g.kind, args: g.args.map(walk) };
      case 'not':
      case 'G':
      case 'X':
        return { kind: g.kind, arg: walk(g.arg) };
      case 'F': {
        const n = bounds.get(tokens[i++]?.start ?? -1);
        const arg = walk(g.arg);
        if (n === undefined) return { kind: 'F', arg };
        const steps: Formula[] = [arg];
        for (let k = 1; k < n; k++) steps.push(X(steps[k - 1]!));
        return or(...steps);
      }
      default: {
        const left = walk(g.left);
        return { kind: g.kind, left, right: walk(g.right) };
      }
    }
  };
  const out = walk(f);
  if (i !== tokens.length) throw new WitnessError('internal', `the counting macro of "${ltl}" could not be placed`);
  return out;
}

/** A world path a reference reads or writes, with `*` for an index by a non-constant key; null for args/pre/call. */
export function worldPattern(r: Ref): string | null {
  const root = rootName(r);
  if (root === 'args' || root === 'pre' || root === 'call') return null;
  const seg = (x: Ref): string[] =>
    x.kind === 'name'
      ? [x.name]
      : x.kind === 'field'
        ? [...seg(x.of), x.field]
        : [...seg(x.of), x.key.kind === 'const' ? x.key.value : '*'];
  return seg(r).join('.');
}

/** Two path patterns can name the same field (segment by segment, `*` matching any), or one is within the other. */
export function overlaps(a: string, b: string): boolean {
  const x = a.split('.'),
    y = b.split('.');
  for (let i = 0; i < Math.min(x.length, y.length); i++)
    if (x[i] !== y[i] && x[i] !== '*' && y[i] !== '*') return false;
  return true;
}

/** The tool names a proposition compares `call.tool` with. */
function comparedTools(e: Expr, out: string[] = []): string[] {
  const k = e.exprKind;
  if (k.case === 'callExpr') {
    const v = k.value as { function: string; target?: Expr; args: Expr[] };
    if ((v.function === '_==_' || v.function === '_!=_') && v.args.length === 2) {
      const [a, b] = v.args as [Expr, Expr];
      for (const [ref, c] of [
        [a, b],
        [b, a],
      ] as const) {
        const r = toRef(ref);
        const cv = c.exprKind;
        if (r !== null && plainPath(r) === 'call.tool' && cv.case === 'constExpr') {
          const ck = (cv.value as { constantKind: { case: string; value: unknown } }).constantKind;
          if (ck.case === 'stringValue') out.push(ck.value as string);
        }
      }
    }
    if (v.target) comparedTools(v.target, out);
    v.args.forEach((x) => comparedTools(x, out));
  }
  return out;
}

/** What is wrong with a proposition given the tools, or null: a tool not registered, or a state nothing changes. */
function propositionProblem(
  expr: string,
  tools: ReadonlyMap<string, RegisteredTool>,
  written: string[],
): string | null {
  const names = [...tools.keys()];
  for (const t of comparedTools(parseExpr(expr))) {
    if (!tools.has(t)) {
      const hint = closest(t, names);
      return `call.tool is compared with "${t}", which is no registered tool${hint ? ` (did you mean ${hint}?)` : ''}; the tools are ${names.join(', ')}`;
    }
  }
  const refs = references(expr);
  if (refs.some((r) => rootName(r) === 'call')) return null;
  const reads = refs.map(worldPattern).filter((p): p is string => p !== null);
  if (reads.length > 0 && !reads.some((p) => written.some((w) => overlaps(p, w))))
    return `no tool can change it: it reads ${reads.join(', ')}, which no tool's postconditions mention`;
  return null;
}

/**
 * Every problem of a rules document, in the order registration meets them, and the rules registered when there is
 * none: the schema (unknown fields with did-you-mean; the schema is not checked past them), each proposition
 * type-checked as a boolean over the world's fields and the call, each tool name it compares with registered, each
 * proposition over the state changeable by some tool (its postconditions mention what it reads), each rule's LTL
 * parsed (with the counting macro) over the file's propositions and translated, a rule no sequence of calls
 * satisfies. The editor shows them all; registration refuses the first.
 */
export function checkRulesDocument(
  value: unknown,
  file: string,
  tools: ReadonlyMap<string, RegisteredTool>,
  v: Vocabulary,
): { set: RuleSet | null; problems: RulesProblem[] } {
  const problems: RulesProblem[] = [];
  const fail: Fail = (path, detail) => {
    problems.push({ path, detail });
  };
  checkFields(value, fail);
  if (problems.length > 0) return { set: null, problems };
  let doc: RulesDocument;
  try {
    doc = checkSchema<RulesDocument>(RulesDocument, value, file);
  } catch (e) {
    if (!(e instanceof InputError) || e.file !== file) throw e;
    const path = [...e.path.matchAll(/\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g)].map(
      (m) => m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(`"${m[3]!}"`) as string)),
    );
    return { set: null, problems: [{ path, detail: e.detail }] };
  }
  const written = [...tools.values()].flatMap((t) =>
    t.postconditions.flatMap((c) => references(c.expr).map(worldPattern)).filter((p): p is string => p !== null),
  );
  const propositions: RuleProposition[] = [];
  for (const [name, expr] of Object.entries(doc.propositions)) {
    try {
      checkCondition(expr, v, { where: 'rule proposition' });
    } catch (e) {
      if (!(e instanceof VocabularyError)) throw e;
      fail(['propositions', name], e.message);
      continue;
    }
    const problem = propositionProblem(expr, tools, written);
    if (problem !== null) fail(['propositions', name], `proposition "${name}": ${problem}`);
    propositions.push({ name, expr });
  }
  const { rules, formulas } = registerEachRule(doc, Object.keys(doc.propositions), fail);
  if (problems.length === 0) checkConflicts(doc, formulas, fail);
  return { set: problems.length > 0 ? null : { file, propositions, rules }, problems };
}

/** The tool a proposition requires the call to be (`call.tool == "pick"`, alone or as a conjunct), or null. */
function requiredTool(e: Expr): string | null {
  const k = e.exprKind;
  if (k.case !== 'callExpr') return null;
  const v = k.value as { function: string; args: Expr[] };
  if (v.function === '_&&_') {
    for (const a of v.args) {
      const t = requiredTool(a);
      if (t !== null) return t;
    }
    return null;
  }
  if (v.function !== '_==_' || v.args.length !== 2) return null;
  const tools = comparedTools(e);
  return tools.length === 1 ? tools[0]! : null;
}

/**
 * Pairs of rules that cannot both hold: no sequence of calls satisfies the two together. Each call is of one tool, so
 * two propositions that require different tools never hold on one call; that is the only dependence between
 * propositions assumed, so a conflict reported is a true one (two rules that conflict only through what the world
 * allows go unreported). Each pair at the later rule, both named.
 */
function checkConflicts(doc: RulesDocument, formulas: readonly Formula[], fail: Fail): void {
  const tools = new Map(Object.entries(doc.propositions).map(([name, expr]) => [name, requiredTool(parseExpr(expr))]));
  for (let j = 1; j < formulas.length; j++)
    for (let i = 0; i < j; i++) {
      const [a, b] = [formulas[i]!, formulas[j]!];
      const aps = [...new Set([...atomicPropositions(a), ...atomicPropositions(b)])];
      const exclusive: Formula[] = [];
      for (const [x, p] of aps.entries())
        for (const q of aps.slice(x + 1)) {
          const [tp, tq] = [tools.get(p), tools.get(q)];
          if (tp != null && tq != null && tp !== tq) exclusive.push(G(not(and(ap(p), ap(q)))));
        }
      const joint = translateFormula(and(a, b, ...exclusive)).automaton;
      if (new LetterSteps(joint).viable(joint.initial)) continue;
      const [ra, rb] = [doc.rules[i]!, doc.rules[j]!];
      fail(
        ['rules', j, 'ltl'],
        `rules "${ra.name}" and "${rb.name}" cannot both hold: no sequence of calls satisfies ${ra.ltl} and ${rb.ltl} together`,
      );
    }
}

/**
 * Each rule of a document parsed over the file's propositions and translated, with its formula (the macro expanded); a
 * problem is put to `fail`.
 */
function registerEachRule(
  doc: RulesDocument,
  known: readonly string[],
  fail: Fail,
): { rules: Rule[]; formulas: Formula[] } {
  const seen = new Set<string>();
  const out: Rule[] = [];
  const formulas: Formula[] = [];
  doc.rules.forEach((r, i) => {
    if (seen.has(r.name)) return fail(['rules', i, 'name'], `a rule named "${r.name}" is already defined`);
    seen.add(r.name);
    let formula: Formula;
    try {
      formula = expandRule(r.ltl);
    } catch (e) {
      if (e instanceof WitnessError && e.code !== 'internal') return fail(['rules', i, 'ltl'], e.message);
      throw e;
    }
    const unknown = atomicPropositions(formula).filter((ap) => !known.includes(ap));
    for (const ap of unknown) {
      const hint = closest(ap, [...known]);
      fail(
        ['rules', i, 'ltl'],
        `unknown proposition "${ap}"${hint ? ` (did you mean ${hint}?)` : ''}; the file defines ${known.join(', ')}`,
      );
    }
    if (unknown.length > 0) return;
    const automaton = translateFormula(formula).automaton;
    // A rule no sequence of calls satisfies would refuse every call: a mistake to say now, not at the first call.
    if (!new LetterSteps(automaton).viable(automaton.initial))
      return fail(['rules', i, 'ltl'], `rule "${r.name}" can never hold (no sequence of calls satisfies ${r.ltl})`);
    formulas.push(formula);
    out.push({
      name: r.name,
      ltl: r.ltl,
      expanded: printLtl(formula),
      automaton,
      ...(r.description !== undefined ? { description: r.description } : {}),
    });
  });
  return { rules: out, formulas };
}

/**
 * Parses and registers a rules file (checkRulesDocument), refusing its first problem at the file's line.
 * `text`: the file's text, for line numbers in messages.
 */
export function registerRules(
  value: unknown,
  file: string,
  tools: ReadonlyMap<string, RegisteredTool>,
  v: Vocabulary,
  text?: string,
): RuleSet {
  const r = checkRulesDocument(value, file, tools, v);
  const first = r.problems[0];
  if (first !== undefined)
    throw new InputError(located(file, text, [...first.path]), jsonPathOf([...first.path]), first.detail);
  return r.set!;
}

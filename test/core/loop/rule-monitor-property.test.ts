/**
 * A seeded property test of the rules' monitor: random rules (safety, response, bounded recurrence through the
 * counting macro) and random call sequences; at every call the monitor's verdicts, predicted and observed, agree with
 * an independent evaluator written here: LTL evaluated directly on lasso words (no automaton), a finite trace
 * judged alive when some short lasso continuation satisfies the rule.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRulesDocument, registerRules } from '../../../main/core/loop/rules.js';
import { RuleMonitor } from '../../../main/core/loop/rule-monitor.js';
import { StepThroughWorld, VOCAB, tools } from './step-world.js';

type F =
  | { k: 'ap'; name: 'a' | 'b' }
  | { k: 'not' | 'X' | 'F' | 'G'; x: F }
  | { k: 'Fn'; n: number; x: F }
  | { k: 'and' | 'or' | 'U' | 'R' | 'implies'; l: F; r: F };

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gen(r: () => number, depth: number): F {
  if (depth === 0 || r() < 0.25) return { k: 'ap', name: r() < 0.5 ? 'a' : 'b' };
  const c = Math.floor(r() * 11);
  const sub = (): F => gen(r, depth - 1);
  if (c === 0) return { k: 'not', x: sub() };
  if (c === 1) return { k: 'X', x: sub() };
  if (c === 2) return { k: 'F', x: sub() };
  if (c === 3 || c === 4) return { k: 'G', x: sub() };
  if (c === 5) return { k: 'Fn', n: 1 + Math.floor(r() * 3), x: sub() };
  const kinds = ['and', 'or', 'U', 'R', 'implies'] as const;
  return { k: kinds[c - 6]!, l: sub(), r: sub() };
}

function text(f: F): string {
  switch (f.k) {
    case 'ap':
      return f.name;
    case 'not':
      return `!(${text(f.x)})`;
    case 'X':
    case 'F':
    case 'G':
      return `${f.k} (${text(f.x)})`;
    case 'Fn':
      return `F[<=${f.n}] (${text(f.x)})`;
    case 'implies':
      return `(${text(f.l)}) -> (${text(f.r)})`;
    case 'and':
      return `(${text(f.l)}) & (${text(f.r)})`;
    case 'or':
      return `(${text(f.l)}) | (${text(f.r)})`;
    default:
      return `(${text(f.l)}) ${f.k} (${text(f.r)})`;
  }
}

type Letter = ReadonlySet<string>;

/** The positions where f holds on the lasso word prefix·cycle^ω (position i's successor wraps into the cycle). */
function sat(f: F, word: readonly Letter[], loop: number): boolean[] {
  const n = word.length;
  const next = (i: number): number => (i + 1 < n ? i + 1 : loop);
  const fix = (init: boolean, step: (i: number, s: boolean[]) => boolean): boolean[] => {
    let s: boolean[] = new Array<boolean>(n).fill(init);
    for (let it = 0; it <= n; it++) s = s.map((_, i) => step(i, s));
    return s;
  };
  switch (f.k) {
    case 'ap':
      return word.map((l) => l.has(f.name));
    case 'not':
      return sat(f.x, word, loop).map((v) => !v);
    case 'X': {
      const x = sat(f.x, word, loop);
      return x.map((_, i) => x[next(i)]!);
    }
    case 'F': {
      const x = sat(f.x, word, loop);
      return fix(false, (i, s) => x[i]! || s[next(i)]!);
    }
    case 'G': {
      const x = sat(f.x, word, loop);
      return fix(true, (i, s) => x[i]! && s[next(i)]!);
    }
    case 'Fn': {
      const x = sat(f.x, word, loop);
      return x.map((_, i) => {
        for (let k = 0, j = i; k < f.n; k++, j = next(j)) if (x[j]) return true;
        return false;
      });
    }
    default: {
      const l = sat(f.l, word, loop);
      const r = sat(f.r, word, loop);
      if (f.k === 'and') return l.map((v, i) => v && r[i]!);
      if (f.k === 'or') return l.map((v, i) => v || r[i]!);
      if (f.k === 'implies') return l.map((v, i) => !v || r[i]!);
      if (f.k === 'U') return fix(false, (i, s) => r[i]! || (l[i]! && s[next(i)]!));
      return fix(true, (i, s) => r[i]! && (l[i]! || s[next(i)]!));
    }
  }
}

const ALPHABET: Letter[] = [new Set(), new Set(['a']), new Set(['b']), new Set(['a', 'b'])];

function words(len: number): Letter[][] {
  let out: Letter[][] = [[]];
  for (let i = 0; i < len; i++) out = out.flatMap((w) => ALPHABET.map((l) => [...w, l]));
  return out;
}
const STEMS = [0, 1, 2].flatMap(words);
const CYCLES = [1, 2, 3].flatMap(words);

/** Some lasso continuation (a stem of up to 2 letters, a cycle of up to 3) satisfies f after the trace. */
function alive(f: F, trace: readonly Letter[]): boolean {
  for (const stem of STEMS)
    for (const cycle of CYCLES) {
      const word = [...trace, ...stem, ...cycle];
      if (sat(f, word, trace.length + stem.length)[0]) return true;
    }
  return false;
}

/** Calls whose letters are every subset of {a, b}: a is "the call is a pick", b "its target is the tray". */
const CALLS = [
  { tool: 'place', args: { target: 'red_mug' } },
  { tool: 'pick', args: { target: 'red_mug' } },
  { tool: 'place', args: { target: 'tray' } },
  { tool: 'pick', args: { target: 'tray' } },
];

test('random rules and call sequences: predicted and observed verdicts agree with a direct lasso evaluator', () => {
  const seed = 20_240_511;
  const r = rng(seed);
  const registered = tools();
  const state = new StepThroughWorld().state;
  let checked = 0;
  for (let k = 0; k < 60; k++) {
    const f = gen(r, 3);
    const ltl = text(f);
    const set = registerRules(
      {
        propositions: { a: 'call.tool == "pick"', b: 'call.args.target == "tray"' },
        rules: [{ name: 'r', ltl }],
      },
      'random.rules.json',
      registered,
      VOCAB,
    );
    const m = new RuleMonitor(set);
    const trace: Letter[] = [];
    if (!alive(f, trace)) continue; // an unsatisfiable rule refuses everything: nothing to compare step by step
    for (let step = 0; step < 5; step++) {
      const c = Math.floor(r() * 4);
      const call = CALLS[c]!;
      const letter = ALPHABET[c]!;
      const expected = alive(f, [...trace, letter]);
      const predicted = m.predict(call, registered.get(call.tool)!, state);
      const where = `seed ${seed}, rule ${k} "${ltl}", trace ${JSON.stringify(trace.map((l) => [...l]))} + ${JSON.stringify([...letter])}`;
      assert.equal(predicted.ok, expected, `predicted: ${where}`);
      checked++;
      if (!expected) break; // refused: the loop would not run it
      const observed = m.advance(call, state);
      assert.equal(observed.ok, true, `observed: ${where}`);
      trace.push(letter);
    }
  }
  assert.ok(checked > 100, `only ${checked} verdicts compared`);
});

/** Some lasso (a stem of up to 2 letters, a cycle of up to 3) satisfies both. */
const jointlyAlive = (f: F, g: F): boolean =>
  STEMS.some((stem) =>
    CYCLES.some((cycle) => {
      const word = [...stem, ...cycle];
      return sat(f, word, stem.length)[0]! && sat(g, word, stem.length)[0]!;
    }),
  );

test('random pairs of rules: a conflict is reported exactly when no lasso satisfies both (the direct evaluator)', () => {
  const seed = 20_261_205;
  const r = rng(seed);
  const registered = tools();
  let pairs = 0,
    conflicts = 0;
  for (let k = 0; k < 80; k++) {
    const [f, g] = [gen(r, 3), gen(r, 3)];
    if (!alive(f, []) || !alive(g, [])) continue; // a rule that can never hold is refused on its own
    const doc = {
      propositions: { a: 'call.tool == "pick"', b: 'call.args.target == "tray"' },
      rules: [
        { name: 'f', ltl: text(f) },
        { name: 'g', ltl: text(g) },
      ],
    };
    const { problems } = checkRulesDocument(doc, 'pair.rules.json', registered, VOCAB);
    const reported = problems.some((p) => p.detail.startsWith('rules "f" and "g" cannot both hold'));
    assert.equal(reported, !jointlyAlive(f, g), `seed ${seed}, pair ${k}: ${text(f)} and ${text(g)}`);
    pairs++;
    if (reported) conflicts++;
  }
  assert.ok(pairs > 40 && conflicts > 0, `${pairs} pairs compared, ${conflicts} conflicting`);
});

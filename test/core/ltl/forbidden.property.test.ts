/**
 * What a specification forbids now (core/ltl/forbidden.ts) against its definition, checked with
 * the lasso evaluator (LTL semantics, no automaton): after a word w read by the monitor, the letter
 * {x} is dead exactly when no infinite word w·{x}·u satisfies the formula. A dead verdict is checked
 * against every continuation u up to four letters (prefix and cycle); a live one by the witness the
 * automaton gives (a path to an accepting cycle), which the evaluator must accept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { translateFormula, translateLtl } from '../../../main/core/ltl/translate.js';
import { LetterSteps } from '../../../main/core/ltl/forbidden.js';
import { StateSetMonitor } from '../../../main/core/ltl/monitor.js';
import { evaluateLasso, type Lasso, type Letter } from '../../../main/core/ltl/lasso.js';
import { type BuchiAutomaton, outgoing } from '../../../main/core/ltl/automaton.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { formulaArb, temporalArb } from './arbitraries.js';

const PROPS = ['a', 'b'] as const;
const LETTERS: Letter[] = [new Set(), new Set(['a']), new Set(['b']), new Set(['a', 'b'])];
const letterArb = fc.constantFrom(...LETTERS);

/** The states after reading `word` from the initial states. */
function statesAfter(a: BuchiAutomaton, word: readonly Letter[]): number[] {
  const m = new StateSetMonitor(a);
  for (const l of word) m.step(l);
  return [...m.snapshot().states];
}

/** Every lasso u = v·c^ω with 1 ≤ |v| + |c| ≤ n over the four letters, c non-empty. */
function* continuations(n: number): Generator<{ v: Letter[]; c: Letter[] }> {
  for (let len = 1; len <= n; len++) {
    const total = LETTERS.length ** len;
    for (let code = 0; code < total; code++) {
      const seq: Letter[] = [];
      for (let k = 0, c = code; k < len; k++, c = Math.floor(c / LETTERS.length))
        seq.push(LETTERS[c % LETTERS.length]!);
      for (let cut = 0; cut < len; cut++) yield { v: seq.slice(0, cut), c: seq.slice(cut) };
    }
  }
}

/** Some bounded continuation of w·{x} satisfies f. */
function someContinuation(f: Formula, prefix: readonly Letter[]): Lasso | null {
  for (const { v, c } of continuations(4)) {
    const w: Lasso = { prefix: [...prefix, ...v], cycle: c };
    if (evaluateLasso(f, w)) return w;
  }
  return null;
}

/** A word the automaton accepts from one of `from`: a path to an accepting state on a cycle, and the cycle. */
function witness(
  a: BuchiAutomaton,
  steps: LetterSteps,
  from: readonly number[],
): { path: Letter[]; cycle: Letter[] } | null {
  const out = outgoing(a);
  const letterOf = (g: BuchiAutomaton['edges'][number]['guard']): Letter =>
    new Set(a.aps.filter((_, i) => (g[0]!.pos >> BigInt(i)) & 1n));
  /** Letters of a shortest path from any of `src` to `dst` (BFS over edges with satisfiable guards). */
  const route = (src: readonly number[], dst: (q: number) => boolean, firstStep: boolean): Letter[] | null => {
    const prev = new Map<number, { q: number; l: Letter } | null>();
    const queue: number[] = [];
    for (const q of src) {
      if (!firstStep && dst(q)) return [];
      prev.set(q, null);
      queue.push(q);
    }
    for (let h = 0; h < queue.length; h++) {
      const q = queue[h]!;
      for (const e of out[q]!) {
        if (e.guard.length === 0) continue;
        if (dst(e.to)) {
          const letters = [letterOf(e.guard)];
          for (let p = prev.get(q); p != null; p = prev.get(p.q)) letters.unshift(p.l);
          return letters;
        }
        if (!prev.has(e.to)) {
          prev.set(e.to, { q, l: letterOf(e.guard) });
          queue.push(e.to);
        }
      }
    }
    return null;
  };
  const live = from.filter((q) => steps.live[q] === 1);
  for (let f = 0; f < a.states.length; f++) {
    if (!a.states[f]!.accepting) continue;
    const path = route(live, (q) => q === f, false);
    const cycle = path === null ? null : route([f], (q) => q === f, true);
    if (path !== null && cycle !== null) return { path, cycle };
  }
  return null;
}

/** The verdict for {x} after w agrees with the formula's semantics. */
function agrees(f: Formula, word: readonly Letter[], x: string): void {
  const { automaton } = translateFormula(f);
  const steps = new LetterSteps(automaton);
  const states = statesAfter(automaton, word);
  fc.pre(steps.viable(states));
  const dead = steps.dead(states, [x]);
  const shown = `${printLtl(f)} after [${word.map((l) => `{${[...l].join(',')}}`).join(' ')}], {${x}}`;
  const prefix = [...word, new Set([x])];
  if (dead) {
    const w = someContinuation(f, prefix);
    assert.equal(
      w,
      null,
      `${shown}: forbidden, but ${w === null ? '' : JSON.stringify({ prefix: w.prefix.map((l) => [...l]), cycle: w.cycle.map((l) => [...l]) })} satisfies it`,
    );
  } else {
    const wit = witness(automaton, steps, steps.next(states, [x]));
    assert.ok(wit !== null, `${shown}: allowed, but no accepting cycle is reachable`);
    assert.equal(
      evaluateLasso(f, { prefix: [...prefix, ...wit.path], cycle: wit.cycle }),
      true,
      `${shown}: allowed, but the automaton's witness does not satisfy it`,
    );
  }
}

test('G !x forbids x after every word that has not entered it, and nothing else', () => {
  const a = translateLtl('G !a').automaton;
  const steps = new LetterSteps(a);
  fc.assert(
    fc.property(fc.array(fc.constantFrom(LETTERS[0]!, LETTERS[2]!), { maxLength: 6 }), (word) => {
      const s = statesAfter(a, word);
      assert.deepEqual(steps.forbiddenRegions(s, ['a', 'b']), ['a']);
      assert.equal(steps.dead(s, ['a', 'b']), true, 'a with b is a too');
    }),
    { numRuns: 200, seed: 11 },
  );
});

test('!x U y forbids x until y has held, and nothing after', () => {
  const a = translateLtl('!a U b').automaton;
  const steps = new LetterSteps(a);
  fc.assert(
    fc.property(
      fc.array(fc.constant(LETTERS[0]!), { maxLength: 4 }),
      fc.array(letterArb, { maxLength: 4 }),
      (before, after) => {
        assert.deepEqual(
          steps.forbiddenRegions(statesAfter(a, before), ['a', 'b']),
          ['a'],
          'before b: a is forbidden, b is not',
        );
        const s = statesAfter(a, [...before, new Set(['b']), ...after]);
        assert.deepEqual(steps.forbiddenRegions(s, ['a', 'b']), [], 'after b: nothing');
        assert.equal(steps.dead(statesAfter(a, before), ['a', 'b']), false, 'a together with b releases the until');
      },
    ),
    { numRuns: 200, seed: 12 },
  );
});

test('random formulas: {x} is forbidden exactly when no continuation satisfies the formula (1000 cases)', () => {
  fc.assert(
    fc.property(
      formulaArb([...PROPS], 3),
      fc.array(letterArb, { maxLength: 3 }),
      fc.constantFrom(...PROPS),
      (f, w, x) => agrees(f, w, x),
    ),
    { numRuns: 1000, seed: 13 },
  );
});

test('temporal shapes: {x} is forbidden exactly when no continuation satisfies the formula (1000 cases)', () => {
  fc.assert(
    fc.property(temporalArb([...PROPS]), fc.array(letterArb, { maxLength: 3 }), fc.constantFrom(...PROPS), (f, w, x) =>
      agrees(f, w, x),
    ),
    { numRuns: 1000, seed: 14 },
  );
});

/** Safety parts as missions write them (G !x, !x U y, G (x -> y)), conjoined with a random temporal formula. */
const AP = (name: string): Formula => ({ kind: 'ap', name });
const SAFETY: Formula[] = [
  { kind: 'G', arg: { kind: 'not', arg: AP('a') } },
  { kind: 'U', left: { kind: 'not', arg: AP('a') }, right: AP('b') },
  { kind: 'G', arg: { kind: 'implies', left: AP('a'), right: AP('b') } },
];

test('safety parts with random formulas: {x} is forbidden exactly when no continuation satisfies the formula (1000 cases)', () => {
  const arb = fc
    .tuple(fc.constantFrom(...SAFETY), temporalArb([...PROPS]))
    .map(([s, f]): Formula => ({ kind: 'and', args: [s, f] }));
  fc.assert(
    fc.property(arb, fc.array(letterArb, { maxLength: 3 }), fc.constantFrom(...PROPS), (f, w, x) => agrees(f, w, x)),
    { numRuns: 1000, seed: 15 },
  );
});

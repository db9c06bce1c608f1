/**
 * AP-HIQL's automaton-only label planner against the lasso evaluator: every plan's implied label word
 * satisfies the formula, no two different regions follow each other, and it starts with the
 * start's own letter; when the planner finds none, no short alternating block word is accepted either.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { evaluateLasso, type Letter } from '../../../main/core/ltl/lasso.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { type LabelBlock, goalCount, impliedWord, labelLasso } from '../../../main/core/plan/label-lasso.js';
import { temporalArb } from '../ltl/arbitraries.js';

const PROPS = ['a', 'b', 'c'];

/** No two different regions follow each other. */
const alternates = (bs: readonly LabelBlock[]): boolean =>
  bs.every((b, i) => i === 0 || b.region === null || bs[i - 1]!.region === null || b.region === bs[i - 1]!.region);

/**
 * Every alternating block lasso with blocks of one letter each: prefix ≤ 3 blocks, cycle ≤ 4, starting outside every
 * region.
 */
function* shortWords(): Generator<{ prefix: Letter[]; cycle: Letter[] }> {
  const regionLetters: Letter[] = PROPS.map((p) => new Set([p]));
  const none: Letter = new Set();
  function* seqs(len: number, firstNone: boolean): Generator<Letter[]> {
    if (len === 0) {
      yield [];
      return;
    }
    const heads = firstNone ? [none] : regionLetters;
    for (const h of heads) for (const rest of seqs(len - 1, !firstNone)) yield [h, ...rest];
  }
  for (let p = 1; p <= 3; p++)
    for (const prefix of seqs(p, true)) {
      const lastNone = prefix[prefix.length - 1]!.size === 0;
      for (let c = 1; c <= 4; c++)
        for (const cycle of seqs(c, !lastNone)) {
          // The cycle wraps around: its last block and its first differ in kind (one block cycles only on ∅ after a
          // region).
          if (c > 1 && (cycle[c - 1]!.size === 0) === (cycle[0]!.size === 0)) continue;
          if (c === 1 && cycle[0]!.size > 0) continue;
          yield { prefix, cycle };
        }
    }
}

test('label lasso: every plan implies an accepted, alternating word from the start letter; "none" only when no short word is accepted', () => {
  fc.assert(
    fc.property(temporalArb(PROPS), fc.constantFrom<string | null>(null, 'a'), (f, start) => {
      const { automaton } = translateFormula(f);
      const r = labelLasso(automaton, PROPS, start);
      if (r.status === 'ok') {
        const word = impliedWord(r);
        assert.ok(evaluateLasso(f, word), `${printLtl(f)}: ${JSON.stringify(r)}`);
        assert.ok(r.cycle.length > 0);
        assert.equal(r.prefix[0]!.region, start);
        assert.ok(alternates([...r.prefix, ...r.cycle]) && alternates([...r.cycle, ...r.cycle]), JSON.stringify(r));
        assert.equal(r.goals, goalCount(r.prefix, r.cycle));
      } else if (start === null) {
        for (const w of shortWords())
          assert.ok(
            !evaluateLasso(f, w),
            `${printLtl(f)}: none, but ${JSON.stringify(w, (_, v: unknown) => (v instanceof Set ? [...(v as Set<string>)] : v))} is accepted`,
          );
      }
    }),
    { numRuns: 300, seed: 19 },
  );
});

test('label lasso: the fewest goal letters on known formulas', () => {
  const plan = (s: string, start: string | null = null) =>
    labelLasso(translateFormula(parseLtl(s)).automaton, PROPS, start);
  const seq = plan('F (a & F b)');
  assert.equal(seq.status, 'ok');
  if (seq.status === 'ok') {
    assert.equal(seq.goals, 2);
    const blocks = [...seq.prefix, ...seq.cycle];
    assert.deepEqual(
      blocks.filter((b, i) => b.region !== null && blocks[i - 1]?.region !== b.region).map((b) => b.region),
      ['a', 'b'],
    );
  }
  const patrol = plan('G F a & G F b');
  assert.ok(patrol.status === 'ok' && goalCount([], patrol.cycle) === 2, JSON.stringify(patrol));
  const persist = plan('F G a');
  assert.ok(
    persist.status === 'ok' && persist.goals === 1 && persist.cycle.length === 1 && persist.cycle[0]!.region === 'a',
    JSON.stringify(persist),
  );
  const safe = plan('G !a');
  assert.ok(safe.status === 'ok' && safe.goals === 0 && safe.cycle.every((b) => b.region === null));
  // Starting inside a: the first block is a.
  const fromA = plan('F b', 'a');
  assert.ok(fromA.status === 'ok' && fromA.prefix[0]!.region === 'a');
});

test('label lasso: a specification that needs two regions at once has no plan, with a reason', () => {
  const r = labelLasso(translateFormula(parseLtl('F (a & b)')).automaton, PROPS);
  assert.equal(r.status, 'none');
  if (r.status === 'none') assert.match(r.reason, /no accepting lasso whose letters hold at most one region at a time/);
  const g = labelLasso(translateFormula(parseLtl('G a & F b')).automaton, PROPS);
  assert.equal(g.status, 'none');
  assert.throws(() => labelLasso(translateFormula(parseLtl('F a')).automaton, PROPS, 'z'), /start region z/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { LtlBudgetError } from '../../../main/core/ltl/errors.js';

const w = (prefix: string[][], cycle: string[][]): Lasso => ({
  prefix: prefix.map((l) => new Set(l)),
  cycle: cycle.map((l) => new Set(l)),
});
const holds = (f: string, word: Lasso): boolean => evaluateLasso(parseLtl(f), word);

test('hand-checked verdicts', () => {
  const cases: [string, Lasso, boolean][] = [
    ['a', w([['a']], [[]]), true],
    ['a', w([[]], [['a']]), false],
    ['F a', w([[], []], [['a']]), true],
    ['F a', w([['b']], [['b']]), false],
    ['G a', w([['a']], [['a'], ['a', 'b']]), true],
    ['G a', w([['a']], [['a'], ['b']]), false],
    ['G F a', w([], [[], ['a']]), true],
    ['G F a', w([['a']], [[]]), false],
    ['F G a', w([[], ['a']], [['a']]), true],
    ['F G a', w([], [['a'], []]), false],
    ['a U b', w([['a'], ['a']], [['b']]), true],
    ['a U b', w([['a'], []], [['b']]), false],
    ['a U b', w([], [['a']]), false],
    ['a W b', w([], [['a']]), true],
    ['a R b', w([], [['b']]), true],
    ['a R b', w([['b'], ['a', 'b']], [[]]), true],
    ['a R b', w([['b'], ['a']], [['b']]), false],
    ['!e5 U e7', w([[], ['e7'], ['e5']], [[]]), true],
    ['!e5 U e7', w([['e5'], ['e7']], [[]]), false],
    ['G (a -> F b)', w([['a']], [[], ['b'], ['a']]), true],
    ['G (a -> F b)', w([], [['a'], []]), false],
    ['a <-> F b', w([['a']], [['b']]), true],
    ['a <-> F b', w([[]], [['b']]), false],
  ];
  for (const [f, word, expected] of cases) assert.equal(holds(f, word), expected, f);
});

test('the word is a lasso: prefix then the cycle forever', () => {
  // b only in the prefix: F b holds at 0 but G F b does not
  assert.equal(holds('F b', w([['b']], [[]])), true);
  assert.equal(holds('G F b', w([['b']], [[]])), false);
  assert.throws(() => evaluateLasso(parseLtl('a'), w([['a']], [])), /cycle of a lasso word must not be empty/);
});

test('a formula deeper than the nesting limit is refused before the evaluator recurses over it', () => {
  let f: Formula = { kind: 'ap', name: 'a' };
  for (let i = 0; i < 100_000; i++) f = { kind: 'iff', left: f, right: { kind: 'ap', name: 'b' } };
  const word = w([], [['a', 'b']]);
  assert.throws(
    () => evaluateLasso(f, word),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth' && e.limit === 500,
  );
  // at the limit it evaluates (a <-> b <-> … with a and b true: true)
  let g: Formula = { kind: 'ap', name: 'a' };
  for (let i = 0; i < 500; i++) g = { kind: 'iff', left: g, right: { kind: 'ap', name: 'b' } };
  assert.equal(evaluateLasso(g, word), true);
  assert.throws(
    () => evaluateLasso(g, word, 499),
    (e: unknown) => e instanceof LtlBudgetError && e.limit === 499,
  );
});

// @slow: translations run until their time budgets run out (not in npm run test:quick)
/**
 * Deep formulas cannot hurt the LTL engine: the nesting limit holds for the tree
 * built, every stage of the translation keeps the time budget and says which stage ran out, sizes
 * are bounded while automata are built, and nothing but a budget or syntax error comes out.
 * Time is an injected clock that counts its calls, so these tests do not depend on the machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { LtlBudgetError, LtlSyntaxError } from '../../../main/core/ltl/errors.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { StateSetMonitor } from '../../../main/core/ltl/monitor.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import {
  STATE_NAME_MAX_CHARS,
  translateFormula,
  translateLtl,
  type TranslateOptions,
} from '../../../main/core/ltl/translate.js';
import { chain, hostileShapes } from './hostile.js';

/** A clock that reads 0 for its first `calls` readings and then far past any deadline. */
function runsOutAfter(calls: number): () => number {
  let n = 0;
  return () => (++n > calls ? 1e12 : 0);
}

/** A budget of `checks` clock readings (each reading comes after 256 small steps of work, or at a stage's start). */
const counted = (checks: number): TranslateOptions => {
  let n = 0;
  return { clock: () => n++, timeLimit_ms: checks };
};

const expected = (e: unknown): boolean => e instanceof LtlBudgetError || e instanceof LtlSyntaxError;

test('every stage of the translation checks the deadline and names itself', () => {
  const named = new Set<string>();
  for (const text of [
    'F p0 & F p1 & F p2 & F p3 & F p4 & G (p5 -> F p0)',
    `(${chain('<->', 30)}) & G F (p0 & F p1) & F G (p2 -> p3 W p4)`,
  ]) {
    for (let k = 1; ; k++) {
      try {
        translateLtl(text, { clock: runsOutAfter(k), timeLimit_ms: 1 });
        break;
      } catch (e) {
        assert.ok(e instanceof LtlBudgetError && e.budget === 'time', String(e));
        named.add(/ during (.*)$/.exec(e.message)![1]!);
      }
    }
  }
  assert.deepEqual([...named].sort(), [
    'Büchi reduction',
    'acceptance set pruning',
    'alternating automaton construction',
    'degeneralization',
    'generalized Büchi construction',
    'generalized automaton reduction',
    'naming states',
    'negation normal form',
    'obligation minimisation',
    'simulation reduction',
    'transition simplification',
  ]);
});

test('a deep <-> chain runs out of time in the rewriting of the formula, not after it', () => {
  assert.throws(
    () => translateLtl(chain('<->', 500), { clock: runsOutAfter(1), timeLimit_ms: 1 }),
    (e: unknown) =>
      e instanceof LtlBudgetError && e.budget === 'time' && / during negation normal form$/.test(e.message),
  );
});

test('size budgets hold while the automata are built: formula nodes, transitions in all', () => {
  assert.throws(
    () => translateLtl(chain('<->', 100), { maxFormulaNodes: 50 }),
    (e: unknown) =>
      e instanceof LtlBudgetError &&
      e.budget === 'nodes' &&
      e.limit === 50 &&
      e.message === 'translation exceeded its budget of 50 formula nodes during negation normal form',
  );
  // The size budgets are what is tested: a time limit far beyond them, so a loaded machine (the
  // suite runs files in parallel) cannot trip the 10 s default first.
  const untimed = { timeLimit_ms: 600_000 };
  const f6 = 'F p0 & F p1 & F p2 & F p3 & F p4 & F p5';
  assert.throws(
    () => translateLtl(f6, { maxEdges: 200, ...untimed }),
    (e: unknown) =>
      e instanceof LtlBudgetError &&
      e.budget === 'transitions' &&
      e.limit === 200 &&
      /^translation exceeded its budget of 200 transitions in all during /.test(e.message),
  );
  assert.equal(translateLtl(f6, untimed).automaton.states.length, 64);
  // a product with 2^16 terms stops at the per-state limit while it is being built
  const cnf = Array.from({ length: 16 }, (_, i) => `(a${i} | b${i})`).join(' & ');
  assert.throws(
    () => translateLtl(cnf, untimed),
    (e: unknown) =>
      e instanceof LtlBudgetError &&
      e.budget === 'transitions' &&
      / from one state during alternating automaton construction$/.test(e.message),
  );
});

test('formulas built in code deeper than the limit are refused before the translation recurses', () => {
  let f: Formula = { kind: 'ap', name: 'a' };
  for (let i = 0; i < 50_000; i++) f = { kind: 'U', left: { kind: 'ap', name: `p${i % 3}` }, right: f };
  assert.throws(
    () => translateFormula(f),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth' && e.limit === 500,
  );
  assert.throws(
    () => evaluateLasso(f, { prefix: [], cycle: [new Set(['a'])] }),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth',
  );
});

test('state names stay short when shared subformulas would spell out a huge formula', () => {
  // G (p0 <-> p1 <-> … 60 times): its negation normal form shares each half, a tree of 2^60 nodes
  const a = translateLtl(`G (${chain('<->', 60)}) & F q`).automaton;
  assert.ok(a.states.length >= 2);
  for (const s of a.states) assert.ok(s.name.length <= STATE_NAME_MAX_CHARS + 1, `${s.name.length} characters`);
  assert.ok(
    a.states.some((s) => /\(alternating state \d+\)/.test(s.name)),
    a.states.map((s) => s.name).join(' / '),
  );
});

test('hostile shapes through the core API: refused at parse when too deep or long, otherwise within budget', () => {
  const word = { prefix: [new Set(['p0'])], cycle: [new Set(['p1', 'q']), new Set<string>()] };
  for (const shape of hostileShapes()) {
    let f: Formula;
    try {
      f = parseLtl(shape.text);
    } catch (e) {
      assert.ok(shape.refused, `${shape.name}: refused (${String(e)})`);
      assert.ok(
        e instanceof LtlBudgetError && (e.budget === 'depth' || e.budget === 'length'),
        `${shape.name}: ${String(e)}`,
      );
      if (e.budget === 'depth') assert.match(e.message, /^\d+:\d+: formula nests deeper than 500 levels$/);
      continue;
    }
    assert.ok(!shape.refused, `${shape.name}: parsed`);
    assert.deepEqual(parseLtl(printLtl(f), { maxLength: 100_000 }), f, `${shape.name}: printed and parsed back`);
    assert.equal(typeof evaluateLasso(f, word), 'boolean');
    try {
      const { automaton } = translateFormula(f, counted(400));
      new StateSetMonitor(automaton).step(['p0']);
    } catch (e) {
      assert.ok(e instanceof LtlBudgetError, `${shape.name}: ${String(e)}`);
    }
  }
});

test('property: random deep chains (50 to 5000 operators, any operators) give a result or a budget or syntax error, nothing else', () => {
  const ops = ['&', '|', '->', '<->', 'U', 'R', 'W'];
  const step = fc.record({
    op: fc.constantFrom(...ops),
    wrap: fc.constantFrom('', '!', 'F ', 'G ', '!!'),
    atom: fc.integer({ min: 0, max: 5 }),
    paren: fc.boolean(),
  });
  fc.assert(
    fc.property(
      fc.oneof(fc.integer({ min: 50, max: 500 }), fc.integer({ min: 50, max: 5000 })),
      fc.array(step, { minLength: 1, maxLength: 16 }),
      fc.boolean(),
      (n, pattern, tight) => {
        let text = 'p0';
        for (let i = 0; i < n; i++) {
          const s = pattern[i % pattern.length]!;
          const operand = `${s.wrap}p${(s.atom + i) % 6}`;
          const sep = tight ? '' : ' ';
          text = s.paren ? `(${text}${sep}${s.op}${sep}${operand})` : `${text}${sep}${s.op}${sep}${operand}`;
        }
        let f: Formula;
        try {
          f = parseLtl(text, { maxLength: 100_000 });
        } catch (e) {
          assert.ok(expected(e), String(e));
          return;
        }
        assert.equal(typeof evaluateLasso(f, { prefix: [], cycle: [new Set(['p1'])] }), 'boolean');
        printLtl(f);
        try {
          translateFormula(f, counted(100));
        } catch (e) {
          assert.ok(e instanceof LtlBudgetError, String(e));
        }
      },
    ),
    { seed: 18, numRuns: 80 },
  );
});

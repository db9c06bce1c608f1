/**
 * The label planner on the shortest-path engine plans exactly as its former Dijkstra did: on random
 * Büchi automata (random states, accepting marks, initial states and guards over named and unnamed
 * propositions), any regions and any start, the same plan block for block, or the same "none".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { BuchiAutomaton } from '../../../main/core/ltl/automaton.js';
import { term } from '../../../main/core/ltl/guard.js';
import { labelLasso } from '../../../main/core/plan/label-lasso.js';
import { referenceLabelLasso } from './label-lasso-reference.js';

const APS = ['a', 'b', 'c', 'z'];

const termArb = fc
  .tuple(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 15 }))
  .map(([pos, neg]) => term(BigInt(pos & ~neg), BigInt(neg & ~pos)));

const automatonArb = fc.integer({ min: 1, max: 7 }).chain((n) =>
  fc
    .record({
      accepting: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      initial: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: n }),
      edges: fc.uniqueArray(
        fc.record({
          from: fc.integer({ min: 0, max: n - 1 }),
          to: fc.integer({ min: 0, max: n - 1 }),
          guard: fc.array(termArb, { minLength: 1, maxLength: 3 }),
        }),
        { maxLength: 3 * n, selector: (e) => `${e.from}>${e.to}` },
      ),
    })
    .map((r): BuchiAutomaton => ({
      aps: APS,
      states: r.accepting.map((accepting, i) => ({ accepting, name: `q${i}` })),
      initial: r.initial,
      edges: r.edges,
      formula: 'random',
    })),
);

test('label lasso: the engine-backed planner returns the former Dijkstra planner’s plan on random automata', () => {
  fc.assert(
    fc.property(automatonArb, fc.subarray(['a', 'b', 'c', 'd']), fc.nat(4), (a, regions, s) => {
      const start = s < regions.length ? regions[s]! : null;
      assert.deepEqual(labelLasso(a, regions, start), referenceLabelLasso(a, regions, start));
    }),
    { numRuns: 2000 },
  );
});

test('label lasso: the property’s automata include plans with several blocks and automata with none', () => {
  const samples = fc.sample(fc.tuple(automatonArb, fc.subarray(['a', 'b', 'c'])), { numRuns: 400, seed: 7 });
  const results = samples.map(([a, regions]) => labelLasso(a, regions, null));
  assert.ok(results.some((r) => r.status === 'none'));
  assert.ok(results.some((r) => r.status === 'ok' && r.prefix.length + r.cycle.length >= 3));
});

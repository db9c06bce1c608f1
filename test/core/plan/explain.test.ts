/**
 * Explanations of infeasible specifications on graphs whose minimal conflict is known: two conjuncts
 * that conflict beside one that does not, a region labelled nowhere, a region the start cannot reach,
 * a region forbidden on every path (with the cut), and the bound on the planner's searches.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { labelledGraph } from '../../../main/core/plan/labelled-graph.js';
import { DEFAULT_PLAN } from '../../../main/core/plan/plan.js';
import { conjunctsOf, explainInfeasible, positivePropositions, weakenings } from '../../../main/core/plan/explain.js';

const explain = (g: ReturnType<typeof labelledGraph>, spec: string, maxChecks?: number) =>
  explainInfeasible(g, parseLtl(spec), {
    plan: DEFAULT_PLAN,
    automaton: (f) => translateFormula(f).automaton,
    ...(maxChecks !== undefined ? { maxChecks } : {}),
  });

// s — b — a, and s — c: a is reachable only through b.
const behindB = () =>
  labelledGraph(
    {
      nodes: [{ id: 's' }, { id: 'nb', labels: ['b'] }, { id: 'na', labels: ['a'] }, { id: 'nc', labels: ['c'] }],
      edges: [
        { from: 's', to: 'nb', weight: 1 },
        { from: 'nb', to: 'na', weight: 1 },
        { from: 's', to: 'nc', weight: 1 },
      ],
      start: 's',
    },
    'g.json',
  );

test('of three conjuncts, the two that conflict: F a and G !b where a lies behind b, with the cut', () => {
  const e = explain(behindB(), 'F c & F a & G !b');
  assert.deepEqual(e.conjuncts, ['F c', 'F a', 'G !b']);
  assert.deepEqual(e.conflict, [1, 2]);
  assert.equal(e.minimal, true);
  assert.equal(e.core, 'F a & G !b');
  assert.equal(e.contradiction, false, 'on another graph the two can hold together');
  const forbidden = e.regions.filter((r) => r.why === 'forbidden');
  assert.deepEqual(
    forbidden.map((r) => [r.region, r.node, r.cut]),
    [['b', 'nb', ['nb']]],
  );
  assert.equal(e.reason?.enters?.[0]?.region, 'b');
  assert.match(e.message, /the conjuncts F a and G !b cannot hold together/);
  assert.match(e.message, /"b" lies on every path/);
  assert.equal(e.bound, undefined);
});

test('a region labelled nowhere: the smallest failing part of the one conjunct names it', () => {
  const e = explain(behindB(), 'F c & F (c & x)');
  assert.deepEqual(e.conflict, [1]);
  assert.equal(e.core, 'F x');
  assert.deepEqual(e.regions, [{ region: 'x', why: 'labelled-nowhere' }]);
  assert.match(
    e.message,
    /the conjunct F \(c & x\) cannot be met.*smallest part that fails is F x.*"x" labels no node/,
  );
});

test('a region the start cannot reach on a directed graph', () => {
  const g = labelledGraph(
    {
      nodes: [{ id: 's' }, { id: 'nc', labels: ['c'] }, { id: 'na', labels: ['a'] }],
      edges: [
        { from: 's', to: 'nc', weight: 1 },
        { from: 'na', to: 's', weight: 1 },
      ],
      start: 's',
      directed: true,
    },
    'g.json',
  );
  const e = explain(g, 'G F c & G F a');
  assert.deepEqual(e.conflict, [1]);
  assert.equal(e.core, 'G F a');
  assert.deepEqual(e.regions, [{ region: 'a', why: 'unreachable' }]);
});

test('conjuncts that contradict each other hold on no graph, and the explanation says so', () => {
  const e = explain(behindB(), 'F c & G (c -> F b) & G !b');
  assert.deepEqual(e.conflict, [0, 1, 2]);
  assert.equal(e.contradiction, true);
  assert.match(e.message, /cannot hold together on any graph: they contradict each other/);
});

test('a specification the exact search can meet has no conflict', () => {
  const e = explain(behindB(), 'F a');
  assert.deepEqual(e.conflict, []);
  assert.match(e.message, /finds a plan/);
});

test('the bound on planner searches is reported, and the set found so far still conflicts', () => {
  const e = explain(behindB(), 'F c & F a & G !b', 2);
  assert.equal(e.minimal, false);
  assert.match(e.bound ?? '', /2 planner searches/);
  assert.match(e.message, /partial/);
  assert.deepEqual(e.conflict, [1, 2]);
});

test('conjuncts, weakenings and positive propositions', () => {
  assert.deepEqual(
    conjunctsOf(parseLtl('a & (F b & G c)')).map((f) => printLtl(f)),
    ['a', 'F b', 'G c'],
  );
  assert.deepEqual(
    weakenings(parseLtl('F (a & b)')).map((f) => printLtl(f)),
    ['F a', 'F b'],
  );
  assert.deepEqual(
    weakenings(parseLtl('a U b')).map((f) => printLtl(f)),
    ['F b'],
  );
  // Under a negation a disjunction weakens; a conjunction does not.
  assert.deepEqual(
    weakenings(parseLtl('!(a | b)')).map((f) => printLtl(f)),
    ['!a', '!b'],
  );
  assert.deepEqual(weakenings(parseLtl('!(a & b)')), []);
  assert.deepEqual(positivePropositions(parseLtl('G !b & F a & (c -> d)')), ['a', 'd']);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { labelledGraph } from '../../../main/core/plan/labelled-graph.js';
import { type Plan, type PlanResult, plan, DEFAULT_PLAN, type Method } from '../../../main/core/plan/plan.js';
import { referenceOptimum } from '../../../main/core/plan/exhaustive.js';
import { checkCertificate } from '../../../main/core/plan/certificate.js';
import { planDocument } from '../../../main/core/plan/document.js';
import { InputError } from '../../../main/core/input/json.js';

const line = (extra: object = {}) =>
  labelledGraph(
    {
      nodes: [{ id: 's' }, { id: 'a', labels: ['a'] }, { id: 'c', labels: ['c'] }, { id: 'b', labels: ['b'] }],
      edges: [
        { from: 's', to: 'a', weight: 1 },
        { from: 'a', to: 'c', weight: 1 },
        { from: 's', to: 'b', weight: 100 },
      ],
      start: 's',
      ...extra,
    },
    'line.json',
  );

function run(
  g: ReturnType<typeof labelledGraph>,
  spec: string,
  method: Method = 'sagas',
  k = DEFAULT_PLAN.k,
  lambda = 0.5,
): PlanResult {
  const a = translateFormula(parseLtl(spec)).automaton;
  return plan(g, a, { ...DEFAULT_PLAN, method, k, lambda });
}

function ids(g: ReturnType<typeof labelledGraph>, r: Plan): { prefix: string[]; suffix: string[] } {
  const nodes = r.steps.map((s) => g.ids[s.node]!);
  return { prefix: nodes.slice(0, r.prefixLength), suffix: nodes.slice(r.prefixLength) };
}

test('sagas: reach, sequence, dwell suffix, objective; the certificate checks', () => {
  const g = line();
  const r = run(g, 'F (a & F c)');
  assert.equal(r.status, 'ok');
  const p = r;
  assert.deepEqual(ids(g, p), { prefix: ['s', 'a', 'c'], suffix: ['c'] });
  assert.equal(p.cost.prefix, 2);
  assert.equal(p.cost.suffix, 0);
  assert.equal(p.cost.objective, 1);
  assert.equal(p.dwell, true);
  assert.equal(p.certificate.checked.guardWordAccepted, true);
  assert.equal(checkCertificate(translateFormula(parseLtl('F (a & F c)')).automaton, g, p.certificate, 0.05).ok, true);
});

test('patrol needs a return cycle; exact mode agrees with the reference', () => {
  const g = line();
  const spec = 'G F a & G F c';
  const r = run(g, spec) as Plan;
  assert.equal(r.status, 'ok');
  assert.equal(r.cost.suffix, 2);
  const ref = referenceOptimum(g, translateFormula(parseLtl(spec)).automaton, 0.5);
  const exact = run(g, spec, 'sagas', Infinity) as Plan;
  // The reference cuts lassos at accepting states, as the search does; the plan is then rotated back.
  assert.equal(exact.rotation.searchObjective, ref.objective);
  assert.ok(exact.cost.objective <= ref.objective);
  const word = r.steps.map((s) => new Set(s.letter));
  assert.equal(
    evaluateLasso(parseLtl(spec), { prefix: word.slice(0, r.prefixLength), cycle: word.slice(r.prefixLength) }),
    true,
  );
});

test('LF-GAS follows the fewest automaton hops; SAGAS weighs graph costs', () => {
  const g = line();
  const spec = 'F (a & F c) | F b';
  const s = run(g, spec, 'sagas') as Plan;
  const lf = run(g, spec, 'lf-gas') as Plan;
  assert.deepEqual(ids(g, s).prefix, ['s', 'a', 'c']);
  assert.deepEqual(ids(g, lf).prefix, ['s', 'b']);
  assert.ok(lf.cost.objective > s.cost.objective);
});

test('GA-GAS takes the nearest witness first; SAGAS plans the whole lasso', () => {
  const g = labelledGraph(
    {
      nodes: [{ id: 's' }, { id: 'a', labels: ['a'] }, { id: 'b', labels: ['b'] }, { id: 'c', labels: ['c'] }],
      edges: [
        { from: 's', to: 'a', weight: 1 },
        { from: 's', to: 'b', weight: 3 },
        { from: 'a', to: 'c', weight: 100 },
      ],
      start: 's',
    },
    'g.json',
  );
  const spec = 'F (a & F c) | F b';
  const ga = run(g, spec, 'ga-gas') as Plan;
  const s = run(g, spec, 'sagas') as Plan;
  // GA-GAS commits to the nearest witness (a, cost 1) before anything else. What it takes after `a`
  // depends on the automaton's shape, not only its language (the translator's rewrites and
  // minimisation change which state `a` leads to): b back through s, or c. Either way it pays more
  // than SAGAS's whole-lasso s → b.
  const prefix = ids(g, ga).prefix;
  assert.deepEqual(prefix.slice(0, 2), ['s', 'a']);
  assert.ok(['b', 'c'].includes(prefix.at(-1)!), `GA-GAS ends its prefix at ${prefix.at(-1)}`);
  assert.deepEqual(ids(g, s).prefix, ['s', 'b']);
  assert.ok(ga.cost.objective > s.cost.objective, `GA-GAS ${ga.cost.objective} vs SAGAS ${s.cost.objective}`);
});

test('infeasible: unavailable proposition, no suffix cycle, start rejected', () => {
  const g = line();
  const u = run(g, 'F z');
  assert.equal(u.status, 'infeasible');
  assert.equal(u.status === 'infeasible' && u.reason.kind, 'unavailable-propositions');
  assert.deepEqual(u.status === 'infeasible' && u.reason.kind === 'unavailable-propositions' && u.reason.propositions, [
    'z',
  ]);
  const dir = labelledGraph(
    {
      nodes: [{ id: 's' }, { id: 'a', labels: ['a'] }, { id: 'b', labels: ['b'] }],
      edges: [
        { from: 's', to: 'a' },
        { from: 'a', to: 'b' },
      ],
      start: 's',
      directed: true,
    },
    'd.json',
  );
  const c = run(dir, 'G F a & G F b');
  assert.equal(c.status, 'infeasible');
  assert.equal(c.status === 'infeasible' && c.reason.kind, 'no-suffix-cycle');
  const st = run(line(), 'a');
  assert.equal(st.status === 'infeasible' && st.reason.kind, 'start-rejected');
  const np = run(dir, 'F b & G !a');
  assert.equal(np.status === 'infeasible' && np.reason.kind, 'no-accepting-prefix');
});

test('graph JSON errors name the JSON path', () => {
  const bad = (v: unknown, path: RegExp) =>
    assert.throws(
      () => labelledGraph(v, 'w.json'),
      (e: unknown) => e instanceof InputError && path.test(e.message),
    );
  bad({ nodes: [], start: 'a' }, /^w\.json: \$\.nodes: /);
  bad({ nodes: [{ id: 'a' }], start: 'b' }, /^w\.json: \$\.start: unknown node "b"/);
  bad({ nodes: [{ id: 'a' }, { id: 'a' }], start: 'a' }, /\$\.nodes\[1\]\.id: duplicate node id "a"/);
  bad({ nodes: [{ id: 'a' }], edges: [{ from: 'a', to: 'x' }], start: 'a' }, /\$\.edges\[0\]\.to: unknown node "x"/);
  bad(
    { nodes: [{ id: 'a' }], edges: [{ from: 'a', to: 'a', weight: -1 }], start: 'a' },
    /\$\.edges\[0\]\.weight: must be >= 0/,
  );
  bad({ nodes: [{ id: 'a', lables: ['p'] }], start: 'a' }, /\$\.nodes\[0\]: unknown field "lables"/);
});

test('budgets: a cancelled search stops with PlanBudgetError; the deadline uses the injected clock', async () => {
  const { gridGraph } = await import('../../../main/bench/plan-bench.js');
  const { PlanBudgetError, deadline } = await import('../../../main/core/plan/plan.js');
  const g = gridGraph(40, 1);
  const a = translateFormula(parseLtl('G F e0 & G F e1 & G F e2')).automaton;
  let t = 0;
  const check = deadline(100, () => t);
  t = 50;
  check();
  t = 101;
  assert.throws(() => check(), PlanBudgetError);
  assert.throws(
    () =>
      plan(g, a, {
        ...DEFAULT_PLAN,
        method: 'sagas',
        k: Infinity,
        check: () => {
          throw new PlanBudgetError('cancelled');
        },
      }),
    PlanBudgetError,
  );
});

/** A 6×6 grid of unit edges, the start (0,0) labelled e0 and the far corner (5,5) labelled e1. */
const grid6 = () =>
  labelledGraph(
    {
      nodes: Array.from({ length: 36 }, (_, k) => ({
        id: `n${k % 6}_${Math.floor(k / 6)}`,
        ...(k === 0 ? { labels: ['e0'] } : k === 35 ? { labels: ['e1'] } : {}),
      })),
      edges: Array.from({ length: 36 }, (_, k) => [k % 6, Math.floor(k / 6)] as const).flatMap(([x, y]) => [
        ...(x < 5 ? [{ from: `n${x}_${y}`, to: `n${x + 1}_${y}`, weight: 1 }] : []),
        ...(y < 5 ? [{ from: `n${x}_${y}`, to: `n${x}_${y + 1}`, weight: 1 }] : []),
      ]),
      start: 'n0_0',
    },
    'grid6.json',
  );

test('GA-GAS with a start inside a named region (two initial automaton states) plans, and matches SAGAS', () => {
  const g = grid6();
  const spec = 'G F e0 & G F e1';
  const ga = run(g, spec, 'ga-gas');
  const s = run(g, spec, 'sagas') as Plan;
  assert.equal(ga.status, 'ok', `GA-GAS: ${ga.status === 'ok' ? '' : JSON.stringify(ga)}`);
  assert.equal(ga.cost.objective, s.cost.objective);
  const nodes = ids(g, ga);
  assert.ok([...nodes.prefix, ...nodes.suffix].includes('n5_5'));
});

test("the objective is the driven path's: the lasso cut where its node path begins to repeat, whatever the automaton states there", () => {
  // A 6×6 grid of unit edges, the start in one corner, e1 and e2 in the two far corners.
  const N = 6,
    id = (i: number, j: number): string => `n${j * N + i}`;
  const nodes = Array.from({ length: N * N }, (_, k) => ({
    id: `n${k}`,
    pos: [k % N, Math.floor(k / N)],
    ...(k === 30 ? { labels: ['e1'] } : k === 35 ? { labels: ['e2'] } : {}),
  }));
  const edges = nodes.flatMap((_, k) => {
    const i = k % N,
      j = Math.floor(k / N);
    return [
      ...(i + 1 < N ? [{ from: id(i, j), to: id(i + 1, j), weight: 1 }] : []),
      ...(j + 1 < N ? [{ from: id(i, j), to: id(i, j + 1), weight: 1 }] : []),
    ];
  });
  const g = labelledGraph({ nodes, edges, start: 'n5' }, 'grid.json');
  const r = run(g, 'G F e1 & G F e2', 'sagas', Infinity) as Plan;
  // The product lasso goes on past e2 before its cycle closes; the same path is cut one step earlier.
  assert.deepEqual(ids(g, r).prefix, ['n5', 'n11', 'n17', 'n23', 'n29', 'n35', 'n34']);
  assert.equal(r.rotation.pathSteps, 1);
  assert.equal(r.pathPrefix, r.prefixLength - 1);
  assert.deepEqual([r.cost.prefix, r.cost.suffix, r.cost.objective], [5, 10, 7.5]);
  assert.deepEqual(r.certificate.cost, { prefix: 6, suffix: 10 }, 'the certificate keeps the product lasso');
  const doc = planDocument(r, g, {}) as { prefix: string[]; suffix: string[] };
  assert.deepEqual(doc.prefix, ['n5', 'n11', 'n17', 'n23', 'n29', 'n35']);
  assert.deepEqual(doc.suffix, ['n34', 'n33', 'n32', 'n31', 'n30', 'n31', 'n32', 'n33', 'n34', 'n35']);
  // The cut path is the same infinite path, and it still satisfies the formula.
  const letter = (n: string): Set<string> => new Set(n === 'n30' ? ['e1'] : n === 'n35' ? ['e2'] : []);
  assert.equal(
    evaluateLasso(parseLtl('G F e1 & G F e2'), { prefix: doc.prefix.map(letter), cycle: doc.suffix.map(letter) }),
    true,
  );
});

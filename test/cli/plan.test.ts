import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLtl } from '../../main/core/ltl/parser.js';
import { evaluateLasso } from '../../main/core/ltl/lasso.js';
import { cli, asset } from './harness.js';

interface PlanDoc {
  status: string;
  method: string;
  prefix: string[];
  suffix: string[];
  cost: { prefix: number; suffix: number; objective: number };
  planning_ms: number;
  k: string | number;
  certificate: {
    steps: { node: string; letter: string[] }[];
    suffixStart: number;
    checked: { guardWordAccepted: boolean };
  };
  reason?: { kind: string; message: string };
  explanation?: {
    conjuncts: string[];
    conflict: number[];
    minimal: boolean;
    contradiction: boolean;
    core: string | null;
    regions: { region: string; why: string; node?: string; cut?: string[] }[];
    message: string;
  };
  augmentation?: { anchors: { proposition: string; accepted: number }[] };
}

test('plan --json on a labelled graph: the contract (prefix, suffix back to the endpoint, costs, certificate); exact by default', async () => {
  const spec = 'G F shelf_a & G F shelf_b & G F (pack & F charge) & G !wet';
  const r = await cli('plan', '--graph', asset('graphs/warehouse.json'), '--spec', spec, '--json');
  assert.equal(r.code, 0, r.err);
  const d = JSON.parse(r.out) as PlanDoc;
  assert.equal(d.status, 'ok');
  assert.equal(d.method, 'sagas');
  assert.equal(d.k, 'all');
  assert.equal(d.prefix[0], 'dock');
  assert.equal(d.suffix[d.suffix.length - 1], d.prefix[d.prefix.length - 1]);
  assert.equal(d.cost.objective, 0.5 * d.cost.prefix + 0.5 * d.cost.suffix);
  assert.equal(d.certificate.checked.guardWordAccepted, true);
  assert.equal(typeof d.planning_ms, 'number');
  const letters = d.certificate.steps.map((s) => new Set(s.letter));
  assert.equal(
    evaluateLasso(parseLtl(spec), {
      prefix: letters.slice(0, d.certificate.suffixStart),
      cycle: letters.slice(d.certificate.suffixStart),
    }),
    true,
  );
  assert.ok(!d.prefix.includes('crossing') && !d.suffix.includes('crossing'), 'the wet crossing is avoided');
  // λ and the baselines
  const lf = JSON.parse(
    (
      await cli(
        'plan',
        '--graph',
        asset('graphs/warehouse.json'),
        '--spec',
        spec,
        '--method',
        'lf-gas',
        '--lambda',
        '0.2',
        '--json',
      )
    ).out,
  ) as PlanDoc;
  assert.equal(lf.method, 'lf-gas');
  assert.ok(Math.abs(lf.cost.objective - (0.2 * lf.cost.prefix + 0.8 * lf.cost.suffix)) < 1e-9);
  const text = await cli('plan', '--graph', asset('graphs/lab-floor.json'), '--spec', 'F office & G !c4');
  assert.equal(text.code, 0);
  assert.match(text.err, /warning: proposition "c4" labels no node/);
  assert.match(text.out, /prefix {3}home → c1 → c2 → c3 → c4 → office/);
});

test('plan: infeasible is exit 3 with a structured reason; malformed input is exit 2 naming file and JSON path', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-plan-'));
  const inf = await cli(
    'plan',
    '--graph',
    asset('graphs/lab-floor.json'),
    '--spec',
    'G F office & G !c4 & G (office -> F lab1) & G !lab1',
    '--json',
  );
  assert.equal(inf.code, 3);
  const d = JSON.parse(inf.out) as PlanDoc;
  assert.equal(d.status, 'infeasible');
  assert.ok(
    d.reason &&
      ['unsatisfiable', 'no-accepting-prefix', 'no-suffix-cycle', 'unavailable-propositions'].includes(d.reason.kind),
  );
  const un = JSON.parse(
    (await cli('plan', '--graph', asset('graphs/lab-floor.json'), '--spec', 'F kitchen', '--json')).out,
  ) as PlanDoc;
  assert.equal(un.reason?.kind, 'unavailable-propositions');
  // Why: the minimal conflicting conjuncts, and a region labelled nowhere.
  assert.deepEqual(d.explanation?.conflict, [0, 2, 3]);
  assert.equal(d.explanation?.minimal, true);
  assert.equal(d.explanation?.contradiction, true);
  assert.deepEqual(un.explanation?.regions, [{ region: 'kitchen', why: 'labelled-nowhere' }]);
  const words = await cli(
    'plan',
    '--graph',
    asset('graphs/lab-floor.json'),
    '--spec',
    'G F office & G !c4 & G (office -> F lab1) & G !lab1',
  );
  assert.equal(words.code, 3);
  assert.match(
    words.out,
    /why: the conjuncts G F office and G \(office -> F lab1\) and G !lab1 cannot hold together on any graph: they contradict each other\n {2}conflicting conjuncts \(minimal\):\n {4}\[1\] G F office\n {4}\[3\] G \(office -> F lab1\)\n {4}\[4\] G !lab1\n/,
  );
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ nodes: [{ id: 'a' }], edges: [{ from: 'a', to: 'b' }], start: 'a' }));
  const b = await cli('plan', '--graph', bad, '--spec', 'F a');
  assert.equal(b.code, 2);
  assert.equal(b.err, `error: ${bad}: $.edges[0].to: unknown node "b"\n`);
  const syntax = join(dir, 'syntax.json');
  writeFileSync(syntax, '{\n  "nodes": [\n    { "id": "a" },\n  ]\n}\n');
  const s = await cli('plan', '--graph', syntax, '--spec', 'F a');
  assert.equal(s.code, 2);
  assert.match(s.err, new RegExp(`^error: ${syntax.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 4:\\d+: not valid JSON`));
  assert.match(
    (await cli('plan', '--graph', asset('graphs/warehouse.json'), '--spec', 'F (dock')).err,
    /^error: --spec:1:8: /,
  );
  assert.equal((await cli('plan', '--graph', join(dir, 'missing.json'), '--spec', 'F a')).code, 2);
  assert.match(
    (await cli('plan', '--graph', asset('graphs/warehouse.json'), '--spec', 'F dock', '--lambda', '2')).err,
    /--lambda must be a number in \[0, 1\]/,
  );
  assert.match(
    (await cli('plan', '--graph', asset('graphs/warehouse.json'), '--spec', 'F dock', '--k', '0')).err,
    /--k must be an integer ≥ 1/,
  );
});

test('plan on a latent graph: augmentation from the dataset and the shipped models; inputs are cross-checked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-plan-latent-'));
  const data = join(dir, 'nav.wds'),
    other = join(dir, 'other.wds'),
    graph = join(dir, 'g.wgraph');
  assert.equal(
    (
      await cli(
        'data',
        'gen',
        'pointmaze-medium',
        '--kind',
        'navigate',
        '--steps',
        '30000',
        '--seed',
        '4',
        '--out',
        data,
      )
    ).code,
    0,
  );
  assert.equal(
    (await cli('graph', 'build', '--data', data, '--models', asset('models/pointmaze-medium'), '--out', graph)).code,
    0,
  );
  const regions = asset('regions/pointmaze-medium.json');
  const spec = 'F (e1 & F e3) & G !e0';
  const r = await cli(
    'plan',
    '--graph',
    graph,
    '--data',
    data,
    '--regions',
    regions,
    '--start',
    '4,20',
    '--spec',
    spec,
    '--json',
  );
  assert.equal(r.code, 0, r.err);
  const d = JSON.parse(r.out) as PlanDoc;
  assert.equal(d.status, 'ok');
  assert.equal(d.k, 5);
  assert.equal(d.prefix[0], 'start');
  assert.ok(d.prefix.some((n) => n.startsWith('anchor:e1:')) && d.prefix.some((n) => n.startsWith('anchor:e3:')));
  assert.deepEqual(
    d.augmentation?.anchors.map((a) => a.proposition),
    ['e0', 'e1', 'e3'],
  );
  assert.equal(d.certificate.checked.guardWordAccepted, true);
  // missing flags, a wall, another dataset, an undefined proposition
  assert.match((await cli('plan', '--graph', graph, '--spec', spec)).err, /is a latent graph: --regions is required/);
  assert.match(
    (await cli('plan', '--graph', graph, '--data', data, '--regions', regions, '--start', '8,0', '--spec', spec)).err,
    /--start: \(8, 0\): inside a wall of pointmaze-medium/,
  );
  assert.match(
    (await cli('plan', '--graph', graph, '--data', data, '--regions', regions, '--start', '4,20', '--spec', 'F e9'))
      .err,
    /--spec mentions e9, which .* does not define/,
  );
  // the graph is pointmaze-medium's: the Ant's regions of the same layout are another world's
  const ant = await cli(
    'plan',
    '--graph',
    graph,
    '--data',
    data,
    '--regions',
    asset('regions/antmaze-medium.json'),
    '--start',
    '4,20',
    '--spec',
    spec,
  );
  assert.equal(ant.code, 2, ant.out);
  assert.match(
    ant.err,
    /antmaze-medium\.json: \$\.world: the regions are for "antmaze-medium", the mission is in "pointmaze-medium"/,
  );
  assert.equal(
    (
      await cli(
        'data',
        'gen',
        'pointmaze-medium',
        '--kind',
        'navigate',
        '--steps',
        '2000',
        '--seed',
        '5',
        '--out',
        other,
      )
    ).code,
    0,
  );
  const wrong = await cli(
    'plan',
    '--graph',
    graph,
    '--data',
    other,
    '--regions',
    regions,
    '--start',
    '4,20',
    '--spec',
    spec,
  );
  assert.equal(wrong.code, 2);
  assert.match(wrong.err, /dataset: built from another dataset than/);
});

test('plan: edge weights whose sums overflow are refused as a cost overflow (exit 2), not reported infeasible', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-plan-overflow-'));
  const doc = JSON.parse(readFileSync(asset('graphs/warehouse.json'), 'utf8')) as { edges: { weight?: number }[] };
  const spec = 'G F shelf_a & G F shelf_b & G !wet';
  const huge = join(dir, 'huge.json');
  writeFileSync(huge, JSON.stringify({ ...doc, edges: doc.edges.map((e) => ({ ...e, weight: 1e308 })) }));
  for (const method of ['sagas', 'lf-gas', 'ga-gas']) {
    const r = await cli('plan', '--graph', huge, '--spec', spec, '--method', method);
    assert.equal(r.code, 2, `${method}: ${r.err}${r.out}`);
    assert.equal(r.out, '');
    assert.match(
      r.err,
      /^error: cost overflow: the graph's 28 directed edge weights \(largest 1\.000e\+308\) sum to more than the largest finite number, so a path through the product with \d+ automaton state\(s\) could cost more than 1\.798e\+308; scale the edge weights down/,
    );
  }
  // Large but summable weights still plan, and the plan is the one the unscaled graph gives.
  const large = join(dir, 'large.json');
  writeFileSync(
    large,
    JSON.stringify({ ...doc, edges: doc.edges.map((e) => ({ ...e, weight: (e.weight ?? 1) * 1e300 })) }),
  );
  const scaled = await cli('plan', '--graph', large, '--spec', spec, '--json');
  const plain = await cli('plan', '--graph', asset('graphs/warehouse.json'), '--spec', spec, '--json');
  assert.equal(scaled.code, 0, scaled.err);
  const a = JSON.parse(scaled.out) as PlanDoc,
    b = JSON.parse(plain.out) as PlanDoc;
  assert.deepEqual([a.prefix, a.suffix], [b.prefix, b.suffix]);
  assert.ok(Math.abs(a.cost.objective / 1e300 - b.cost.objective) < 1e-9);
});

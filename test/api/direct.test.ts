import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDirectApi } from '../../main/api/direct.js';
import { registerIpc } from '../../main/api/ipc.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { API_METHODS, IPC_INVOKE, type ApiEnvelope, type LtlTranslateRequest } from '../../main/contract/api.js';

test('ltlTranslate returns HOA by default and JSON on request', async () => {
  const api = createDirectApi();
  const hoa = await api.ltlTranslate({ formula: 'G F a' });
  assert.ok(hoa.ok && hoa.output.startsWith('HOA: v1'));
  const json = await api.ltlTranslate({ formula: 'G F a', format: 'json' });
  assert.ok(json.ok && (JSON.parse(json.output) as { format: string }).format === 'witness-buchi');
});

test('ltlTranslate reports syntax errors with positions and rejects malformed requests', async () => {
  const api = createDirectApi();
  const bad = await api.ltlTranslate({ formula: 'G (a &' });
  assert.deepEqual(bad, {
    ok: false,
    error: { code: 'invalid-spec', message: "expected a formula after '&', found end of input", line: 1, column: 7 },
  });
  const wrong = await api.ltlTranslate({ formula: 42 } as unknown as LtlTranslateRequest);
  assert.deepEqual(wrong, {
    ok: false,
    error: { code: 'invalid-params', message: 'request.formula: expected a string' },
  });
  const fmt = await api.ltlTranslate({ formula: 'a', format: 'xml' } as unknown as LtlTranslateRequest);
  assert.equal(fmt.ok, false);
  const budget = await api.ltlTranslate({ formula: 'a & '.repeat(3000) + 'a' });
  assert.ok(!budget.ok && /^budget: formula is \d+ characters long/.test(budget.error.message));
});

test('the IPC transport has one channel, refuses untrusted senders and validates every call against the contract', async () => {
  const handlers = new Map<string, (e: { senderFrame?: { url: string } }, ...a: unknown[]) => unknown>();
  const trusted = (url: string): boolean => url.startsWith('app://witness/');
  registerIpc({ handle: (c, l) => handlers.set(c, l) }, createDispatcher(createDirectApi()), trusted);
  assert.deepEqual([...handlers.keys()], [IPC_INVOKE]);
  const invoke = handlers.get(IPC_INVOKE)!;
  const app = { senderFrame: { url: 'app://witness/index.html' } };
  const res = (await invoke(app, 'ltlTranslate', { formula: 'F a', format: 'dot' })) as ApiEnvelope;
  assert.ok(res.ok && (res.result as { output: string }).output.startsWith('digraph'));
  const foreign = (await invoke({ senderFrame: { url: 'https://evil.example/' } }, 'version', {})) as ApiEnvelope;
  assert.ok(!foreign.ok && foreign.error.code === 'forbidden');
  const noFrame = (await invoke({}, 'version', {})) as ApiEnvelope;
  assert.ok(!noFrame.ok && noFrame.error.code === 'forbidden');
  const unknown = (await invoke(app, 'shutdown', {})) as ApiEnvelope;
  assert.deepEqual(unknown, { ok: false, error: { code: 'unknown-method', message: 'unknown API method "shutdown"' } });
  const proto = (await invoke(app, '__proto__', {})) as ApiEnvelope;
  assert.ok(!proto.ok && proto.error.code === 'unknown-method');
  const bad = (await invoke(app, 'cancelJob', { job: 3 })) as ApiEnvelope;
  assert.ok(!bad.ok && bad.error.code === 'invalid-params' && bad.error.path === '$.job', JSON.stringify(bad));
  const extra = (await invoke(app, 'cancelJob', { job: 'j', evil: true })) as ApiEnvelope;
  assert.ok(!extra.ok && /unknown parameter "evil"/.test(extra.error.message));
  const two = (await invoke(app, 'version', {}, {})) as ApiEnvelope;
  assert.ok(!two.ok && two.error.code === 'invalid-params');
});

test('parameters nested deeper than 256 levels are refused at the boundary, before validation or a worker copies them', async () => {
  const dispatch = createDispatcher(createDirectApi());
  const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
  for (const [method, params] of [
    ['planGraph', { graph: deep, spec: 'F a' }],
    ['version', deep],
    ['ltlTranslate', { formula: deep }],
  ] as const) {
    assert.deepEqual(await dispatch(method, params), {
      ok: false,
      error: {
        code: 'invalid-params',
        message: `${method}: its parameters are nested deeper than 256 levels of arrays and objects`,
        path: '$',
      },
    });
  }
  // Nesting a graph needs is far from it.
  const shallow = await dispatch('planGraph', { graph: { nodes: [] }, spec: 'F a' });
  assert.ok(shallow.ok, JSON.stringify(shallow));
});

test('every contract method has a handler in the direct API', () => {
  const api = createDirectApi();
  for (const m of API_METHODS) assert.equal(typeof api[m], 'function', m);
});

test('planGraph plans on a labelled graph, reports infeasibility as a document and malformed input with its path', async () => {
  const api = createDirectApi();
  const graph = {
    nodes: [{ id: 's' }, { id: 'a', labels: ['a'] }, { id: 'b', labels: ['b'] }],
    edges: [
      { from: 's', to: 'a', weight: 2 },
      { from: 'a', to: 'b', weight: 3 },
    ],
    start: 's',
  };
  const ok = await api.planGraph({ graph, spec: 'G F a & G F b' });
  assert.ok(ok.ok);
  if (ok.ok) {
    assert.equal(ok.plan.status, 'ok');
    // Cut where its cycle begins (rotated back from s a b | a b): s a | b a, objective 4, not 5.5.
    assert.deepEqual(ok.plan.prefix, ['s', 'a']);
    assert.deepEqual(ok.plan.cost, { prefix: 2, suffix: 6, objective: 4 });
  }
  const inf = await api.planGraph({ graph, spec: 'F c' });
  assert.ok(inf.ok && inf.plan.status === 'infeasible' && inf.plan.reason?.kind === 'unavailable-propositions');
  // Why: b lies behind a, which the second conjunct forbids; the third conjunct plays no part.
  const why = await api.planGraph({ graph, spec: 'F b & G !a & G !c' });
  assert.ok(why.ok);
  const e = why.plan['explanation'] as { conflict: number[]; regions: { region: string; why: string }[] };
  assert.deepEqual(e.conflict, [0, 1]);
  assert.deepEqual(
    e.regions.map((r) => [r.region, r.why]),
    [['a', 'forbidden']],
  );
  const bad = await api.planGraph({ graph: { ...graph, start: 'x' }, spec: 'F a' });
  assert.deepEqual(bad, { ok: false, error: { code: 'invalid-input', message: '$.start: unknown node "x"' } });
  const syntax = await api.planGraph({ graph, spec: 'F (a' });
  assert.ok(!syntax.ok && syntax.error.line === 1);
  const k = await api.planGraph({ graph, spec: 'F a', k: 0 });
  assert.ok(!k.ok && /request\.k/.test(k.error.message));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDirectApi } from '../../main/api/direct.js';
import { registerIpc } from '../../main/api/ipc.js';
import { API_CHANNELS, type LtlTranslateRequest } from '../../main/api/contract.js';

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
  assert.deepEqual(bad, { ok: false, error: { message: "expected a formula after '&', found end of input", line: 1, column: 7 } });
  const wrong = await api.ltlTranslate({ formula: 42 } as unknown as LtlTranslateRequest);
  assert.deepEqual(wrong, { ok: false, error: { message: 'request.formula: expected a string' } });
  const fmt = await api.ltlTranslate({ formula: 'a', format: 'xml' } as unknown as LtlTranslateRequest);
  assert.equal(fmt.ok, false);
  const budget = await api.ltlTranslate({ formula: 'a & '.repeat(3000) + 'a' });
  assert.ok(!budget.ok && /^budget: formula is \d+ characters long/.test(budget.error.message));
});

test('the IPC transport registers one handler per contract channel and forwards arguments', async () => {
  const handlers = new Map<string, (e: unknown, ...a: unknown[]) => unknown>();
  registerIpc({ handle: (c, l) => handlers.set(c, l) }, createDirectApi());
  assert.deepEqual([...handlers.keys()].sort(), Object.values(API_CHANNELS).sort());
  const res = await handlers.get(API_CHANNELS.ltlTranslate)!({}, { formula: 'F a', format: 'dot' });
  assert.ok((res as { ok: boolean; output: string }).output.startsWith('digraph'));
});

test('planGraph plans on a labelled graph, reports infeasibility as a document and malformed input with its path', async () => {
  const api = createDirectApi();
  const graph = { nodes: [{ id: 's' }, { id: 'a', labels: ['a'] }, { id: 'b', labels: ['b'] }], edges: [{ from: 's', to: 'a', weight: 2 }, { from: 'a', to: 'b', weight: 3 }], start: 's' };
  const ok = await api.planGraph({ graph, spec: 'G F a & G F b' });
  assert.ok(ok.ok);
  if (ok.ok) {
    assert.equal(ok.plan.status, 'ok');
    assert.deepEqual(ok.plan.prefix, ['s', 'a', 'b']);
    assert.deepEqual(ok.plan.cost, { prefix: 5, suffix: 6, objective: 5.5 });
  }
  const inf = await api.planGraph({ graph, spec: 'F c' });
  assert.ok(inf.ok && inf.plan.status === 'infeasible' && inf.plan.reason?.kind === 'unavailable-propositions');
  const bad = await api.planGraph({ graph: { ...graph, start: 'x' }, spec: 'F a' });
  assert.deepEqual(bad, { ok: false, error: { message: '$.start: unknown node "x"' } });
  const syntax = await api.planGraph({ graph, spec: 'F (a' });
  assert.ok(!syntax.ok && syntax.error.line === 1);
  const k = await api.planGraph({ graph, spec: 'F a', k: 0 });
  assert.ok(!k.ok && /request\.k/.test(k.error.message));
});

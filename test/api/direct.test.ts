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

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createDirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { type ErrorReport, WitnessError, errorReport } from '../../main/contract/errors.js';
import type { AuditEventRow, AuditFilter, WitnessApi } from '../../main/contract/api.js';
import { BIG_TOOLS, NEEDLE, T0, T1, writeFixture } from './audit-fixture.js';

const BIG = 20_000;
const dir = mkdtempSync(path.join(tmpdir(), 'witness-audit-api-'));
const file = path.join(dir, 'audit.sqlite');
const fx = await writeFixture(file, BIG);
const small = fx.small,
  big = fx.big!;
const digest = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
const before = { sha: digest(file), mtime: statSync(file).mtimeMs };

function apiOn(auditFile = file): ReturnType<typeof createDirectApi> {
  return createDirectApi({ auditFile, workspace: path.join(dir, 'workspace') });
}

async function rejects(p: Promise<unknown>, code: string, where?: string | RegExp): Promise<ErrorReport> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof WitnessError, `expected a WitnessError, got ${String(e)}`);
    const r = errorReport(e);
    assert.equal(r.code, code, r.message);
    if (typeof where === 'string') assert.equal(r.path, where, r.message);
    else if (where) assert.match(r.path ?? '', where);
    return r;
  }
  assert.fail(`expected a ${code} failure`);
}

/** Every matching event, page by page through the cursor. */
async function all(api: WitnessApi, filter: AuditFilter, limit = 997): Promise<AuditEventRow[]> {
  const out: AuditEventRow[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const p = await api.auditQuery({ filter, limit, cursor });
    out.push(...p.events);
    if (p.next === null) return out;
    cursor = p.next;
  }
  assert.fail('paging did not end');
}

test('auditRuns: a fresh machine has no database yet (an empty list, said so); a named missing file is an error naming it', async () => {
  const missing = path.join(dir, 'nowhere', 'audit.sqlite');
  const api = apiOn(missing);
  try {
    const r = await api.auditRuns({});
    assert.deepEqual(
      { ...r, message: undefined },
      { file: missing, exists: false, runs: [], next: null, message: undefined },
    );
    assert.match(r.message!, /no audit database yet at .*nowhere.*missions record/);
    const e = await rejects(api.auditRuns({ file: missing }), 'not-found', missing);
    assert.match(e.message, /no such file/);
    await rejects(api.auditQuery({ filter: {}, limit: 10 }), 'not-found', missing);
  } finally {
    await api.close();
  }
});

test('auditRuns: runs newest first with start, world, operator, outcome, event count, spec and metadata', async () => {
  const api = apiOn();
  try {
    const r = await api.auditRuns({});
    assert.equal(r.exists, true);
    assert.deepEqual(
      r.runs.map((x) => [x.id, x.world, x.operator, x.outcome, x.events, x.spec, x.started_ms]),
      [
        [big.run, 'pointmaze-large', 'bob', 'success', BIG, 'G F e1', T1],
        [small.run, 'pointmaze-medium', 'ada', 'failed', small.events, 'F e2 & G F e1 & G !e0', T0],
      ],
    );
    assert.deepEqual(r.runs[1]!.meta, { method: 'sagas-replan', start: [4, 20], seed: 0 });
    assert.ok(r.runs[1]!.ended_ms! > T0);
    // The same database by a relative path (from the workspace) and by ~ are the same file.
    const rel = await api.auditRuns({ file: path.relative(path.join(dir, 'workspace'), file) });
    assert.equal(rel.file, file);
  } finally {
    await api.close();
  }
});

test('opening: not SQLite, a foreign SQLite file, another schema version, a folder — each an ApiError with its code and the file', async () => {
  const api = apiOn();
  const text = path.join(dir, 'notes.txt');
  writeFileSync(text, 'these are not the droids you are looking for\n'.repeat(10));
  const foreign = path.join(dir, 'foreign.sqlite');
  const f = new Database(foreign);
  f.exec('CREATE TABLE t (x)');
  f.close();
  const newer = path.join(dir, 'newer.sqlite');
  copyFileSync(file, newer);
  const n = new Database(newer);
  n.pragma('user_version = 7');
  n.close();
  try {
    const e1 = await rejects(api.auditRuns({ file: text }), 'not-sqlite', text);
    assert.match(e1.message, /notes\.txt: not an SQLite database/);
    await rejects(api.auditRuns({ file: foreign }), 'not-audit-database', foreign);
    const e3 = await rejects(api.auditRuns({ file: newer }), 'schema-version', newer);
    assert.match(e3.message, /version 7 is not one this Witness reads/);
    await rejects(api.auditRuns({ file: dir }), 'not-a-file', dir);
    await rejects(api.auditRuns({ file: 'bad\0name' }), 'invalid-params', '$.file');
  } finally {
    await api.close();
  }
});

test('auditQuery: cursor pages cover the run once, in order; an offset jump lands on the same rows; the first page has the total', async () => {
  const api = apiOn();
  try {
    const rows = await all(api, { run: big.run }, 1500);
    assert.equal(rows.length, BIG);
    assert.ok(rows.every((r, i) => i === 0 || r.id > rows[i - 1]!.id));
    const first = await api.auditQuery({ filter: { run: big.run }, limit: 100 });
    assert.equal(first.total, BIG);
    const jump = await api.auditQuery({ filter: { run: big.run }, limit: 50, offset: 12_345 });
    assert.deepEqual(
      jump.events.map((e) => e.id),
      rows.slice(12_345, 12_395).map((e) => e.id),
    );
    assert.equal(jump.total, undefined);
    const end = await api.auditQuery({ filter: { run: big.run }, limit: 100, offset: BIG - 100 });
    assert.equal(end.events.length, 100);
    assert.equal(end.next, null, 'the last full page says it is the last');
    assert.equal(end.events[99]!.kind, 'run_end');
    const past = await api.auditQuery({ filter: { run: big.run }, limit: 100, offset: BIG + 5 });
    assert.deepEqual(past.events, []);
  } finally {
    await api.close();
  }
});

test('auditQuery: each filter narrows to exactly the matching events (kinds, tool, failure label, time window, text)', async () => {
  const api = apiOn();
  try {
    const kinds = await all(api, { run: big.run, kinds: ['tool_call', 'failure_record'] });
    assert.equal(kinds.length, big.kinds['tool_call']! + big.kinds['failure_record']!);
    assert.ok(kinds.every((r) => r.kind === 'tool_call' || r.kind === 'failure_record'));
    const pick = await all(api, { run: big.run, tool: 'pick' });
    assert.equal(pick.length, big.tools['pick']);
    assert.ok(pick.every((r) => r.tool === 'pick'));
    const failed = await all(api, { run: big.run, failureLabel: 'grasp-missed' });
    assert.equal(failed.length, big.failures);
    assert.ok(failed.every((r) => r.kind === 'failure_record' && r.failureLabel === 'grasp-missed'));
    // Events 1000..1999 of the big run (t = T1 + 10 ms per step).
    const window = await all(api, { run: big.run, fromMs: T1 + 10_000, toMs: T1 + 19_990 });
    assert.deepEqual([window.length, window[0]!.step, window.at(-1)!.step], [1000, 1000, 1999]);
    const combined = await api.auditQuery({
      filter: { run: big.run, kinds: ['tool_call'], tool: 'move', fromMs: T1, toMs: T1 + 9_990 },
      limit: 5000,
    });
    assert.equal(combined.total, combined.events.length);
    assert.ok(combined.events.every((r) => r.kind === 'tool_call' && r.tool === 'move' && r.t_ms <= T1 + 9_990));
    const needle = await all(api, { run: big.run, text: NEEDLE.toUpperCase() });
    assert.deepEqual(
      needle.map((r) => [r.kind, r.step]),
      [['tool_call', big.needleStep]],
    );
    const smallText = await all(api, { run: small.run, text: 'red_mug' });
    assert.deepEqual(
      smallText.map((r) => r.kind),
      ['tool_call', 'evidence', 'failure_record'],
    );
    // Literal text: % and _ are not wildcards.
    assert.deepEqual(await all(api, { run: small.run, text: '%' }), []);
    for (const t of BIG_TOOLS) assert.ok(big.tools[t]! > 0);
  } finally {
    await api.close();
  }
});

test('auditQuery and auditLocate refuse what they cannot answer, with the parameter at fault', async () => {
  const api = apiOn();
  const dispatch = createDispatcher(api);
  try {
    await rejects(api.auditQuery({ filter: {}, limit: 10, cursor: 'seq 7' }), 'invalid-params', '$.cursor');
    await rejects(api.auditQuery({ filter: { text: 'x' }, limit: 10, offset: 20 }), 'invalid-params', '$.offset');
    await rejects(api.auditQuery({ filter: {}, limit: 10, offset: 20, cursor: 's:3' }), 'invalid-params', '$.offset');
    await rejects(api.auditQuery({ filter: { fromMs: 10, toMs: 5 }, limit: 10 }), 'invalid-params', '$.filter.toMs');
    await rejects(api.auditLocate({ filter: { run: small.run } }), 'invalid-params', '$.step');
    await rejects(api.auditFacets({ run: 'no-such-run' }), 'not-found', '$.run');
    await rejects(api.auditEvent({ id: 999_999 }), 'not-found', '$.id');
    const r = await dispatch('auditQuery', { filter: { kinds: 'tool_call' }, limit: 10 });
    assert.ok(!r.ok && r.error.code === 'invalid-params' && r.error.path === '$.filter.kinds', JSON.stringify(r));
    const w = await dispatch('auditExport', { format: 'xlsx' });
    assert.ok(!w.ok && w.error.path === '$.format', JSON.stringify(w));
  } finally {
    await api.close();
  }
});

test('auditFacets and auditLocate: the filter choices of a run; the event nearest a step and its index among the matches', async () => {
  const api = apiOn();
  try {
    const f = await api.auditFacets({ run: small.run });
    assert.deepEqual(Object.fromEntries(f.kinds.map((k) => [k.kind, k.n])), small.kinds);
    assert.deepEqual(f.tools, ['pick']);
    assert.deepEqual(f.failureLabels, ['grasp-missed', 'tracking-timeout']);
    assert.equal(f.firstMs, T0);
    const rows = await all(api, { run: small.run });
    const at = await api.auditLocate({ filter: { run: small.run }, step: 29 });
    assert.equal(at.row?.step, 30);
    assert.equal(rows[at.index]!.id, at.row.id);
    const tied = await api.auditLocate({ filter: { run: small.run, kinds: ['checkpoint'] }, step: 12 });
    assert.equal(tied.row?.step, 10, 'a tie goes to the earlier event');
    assert.equal(tied.index, 1);
    const none = await api.auditLocate({ filter: { run: small.run, kinds: ['operator_decision'] }, step: 3 });
    assert.deepEqual(none, { index: -1, row: null });
    const byTime = await api.auditLocate({ filter: { run: big.run }, tMs: T1 + 5_004 });
    assert.equal(byTime.row?.step, 500);
  } finally {
    await api.close();
  }
});

test('auditEvent: tool call arguments, verifier evidence, failure records, plans before and after a replan', async () => {
  const api = apiOn();
  try {
    const rows = await all(api, { run: small.run });
    const of = async (kind: string, n = 0): Promise<Awaited<ReturnType<WitnessApi['auditEvent']>>> =>
      api.auditEvent({ id: rows.filter((r) => r.kind === kind)[n]!.id });
    const call = await of('tool_call');
    assert.deepEqual((call.body as { arguments: unknown }).arguments, { target: 'red_mug', approach_dz: 0.01 });
    assert.equal(call.row.summary, 'pick({"approach_dz":0.01,"target":"red_mug"}) → ok');
    assert.match(call.hash, /^[0-9a-f]{64}$/);
    const v = await of('verifier_result');
    assert.equal((v.body as { pass: boolean }).pass, false);
    assert.match(v.row.summary, /grasp_success: FAIL/);
    const fr = await of('failure_record');
    assert.equal(fr.row.failureLabel, 'grasp-missed');
    assert.equal((fr.body as { stage: string }).stage, 'postcondition');
    const replan = await of('replan');
    const p = replan.plans!;
    assert.deepEqual(p.before?.prefix, ['start', 'c1', 'c2', 'anchor:e2:0']);
    assert.deepEqual(p.after?.prefix, ['start', 'c4', 'anchor:e1:0']);
    assert.deepEqual(p.prefix, [
      { op: '=', node: 'start' },
      { op: '-', node: 'c1' },
      { op: '-', node: 'c2' },
      { op: '-', node: 'anchor:e2:0' },
      { op: '+', node: 'c4' },
      { op: '+', node: 'anchor:e1:0' },
    ]);
    assert.deepEqual(
      p.suffix.filter((d) => d.op !== '=').map((d) => `${d.op}${d.node}`),
      ['-anchor:e1:0', '-c3', '+c5', '+anchor:e1:0'],
    );
    assert.equal(p.after?.trigger, 'replan');
    assert.equal((p.after?.document['certificate'] as { formula: string }).formula, 'F e2 & G F e1 & G !e0');
    const first = await of('plan');
    assert.equal(first.plans?.before, null);
    assert.equal(first.plans?.note, 'the first plan of the run');
    assert.equal((first.blobs['plan'] as { method: string }).method, 'sagas');
    const start = await of('run_start');
    assert.equal(start.blobs['spec'], 'F e2 & G F e1 & G !e0');
    assert.equal((start.blobs['regions'] as { world: string }).world, 'pointmaze-medium');
  } finally {
    await api.close();
  }
});

test('auditVerify: intact, then the first bad row of a tampered copy', async () => {
  const api = apiOn();
  const copy = path.join(dir, 'tampered.sqlite');
  copyFileSync(file, copy);
  const raw = new Database(copy);
  raw.exec('DROP TRIGGER events_no_update;');
  raw.prepare('UPDATE events SET body = \'{"outcome":"success"}\' WHERE seq = ?').run(small.events);
  raw.close();
  try {
    const ok = await api.auditVerify({});
    assert.deepEqual([ok.ok, ok.events, ok.integrity, ok.firstBad], [true, small.events + BIG, 'ok', undefined]);
    const bad = await api.auditVerify({ file: copy });
    assert.equal(bad.ok, false);
    assert.deepEqual(bad.firstBad?.table, 'events');
    assert.equal(bad.firstBad?.key, String(small.events));
    assert.match(bad.firstBad.reason, /the row was altered/);
    assert.equal(bad.events, small.events - 1);
  } finally {
    await api.close();
  }
});

test('auditExport: one run or the whole database, as JSON Lines, CSV or MCAP, into the workspace exports folder', async () => {
  const api = apiOn();
  try {
    const jl = await api.auditExport({ run: small.run, format: 'jsonl' });
    assert.equal(path.dirname(jl.path), path.join(dir, 'workspace', 'exports'));
    assert.match(path.basename(jl.path), new RegExp(`^audit-${small.run.slice(0, 8)}-\\d{8}-\\d{6}\\.jsonl$`));
    const lines = readFileSync(jl.path, 'utf8').trim().split('\n');
    assert.equal(lines.length, small.events);
    assert.equal(jl.bytes, statSync(jl.path).size);
    assert.ok(lines.every((l) => (JSON.parse(l) as { run_id: string }).run_id === small.run));
    const again = await api.auditExport({ run: small.run, format: 'jsonl' });
    assert.notEqual(again.path, jl.path, 'a second export never overwrites the first');
    const csv = await api.auditExport({ format: 'csv' });
    const csvLines = readFileSync(csv.path, 'utf8').trim().split('\n');
    assert.equal(csvLines[0], 'seq,run_id,t_ms,step,kind,tool,failure_label,prev_hash,hash,body');
    assert.ok(csvLines.length > small.events + BIG, 'every event, bodies may span lines');
    const mcap = await api.auditExport({ run: small.run, format: 'mcap' });
    assert.deepEqual([...readFileSync(mcap.path).subarray(0, 8)], [0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a]);
    assert.match(mcap.summary, new RegExp(`^${small.events} messages`));
    await rejects(api.auditExport({ run: 'nope', format: 'csv' }), 'not-found', '$.run');
    assert.equal(readdirSync(path.join(dir, 'workspace', 'exports')).length, 4);
  } finally {
    await api.close();
  }
});

test('read-only: browsing leaves the database byte for byte as it was; connections are cached, bounded and follow a replaced file', async () => {
  const h = createDirectApi({ auditFile: file, workspace: path.join(dir, 'workspace') });
  try {
    await h.auditRuns({});
    await h.auditQuery({ filter: { run: small.run, text: 'pick' }, limit: 10 });
    await h.auditReplay({ run: small.run });
    await h.auditVerify({});
    assert.equal(h.auditConnections(), 1);
    const copies = Array.from({ length: 6 }, (_, i) => path.join(dir, `copy${i}.sqlite`));
    for (const c of copies) {
      copyFileSync(file, c);
      assert.equal((await h.auditRuns({ file: c })).runs.length, 2);
    }
    assert.equal(h.auditConnections(), 4, 'at most four open at once');
    // A file replaced under the same name is reopened, not read through a stale handle.
    const other = path.join(dir, 'other.sqlite');
    await writeFixture(other, 0);
    copyFileSync(other, `${copies[5]!}.new`);
    const { renameSync } = await import('node:fs');
    renameSync(`${copies[5]!}.new`, copies[5]!);
    assert.equal((await h.auditRuns({ file: copies[5] })).runs.length, 1);
  } finally {
    await h.close();
  }
  assert.equal(h.auditConnections(), 0);
  assert.deepEqual({ sha: digest(file), mtime: statSync(file).mtimeMs }, before);
  mkdirSync(path.join(dir, 'workspace'), { recursive: true });
});

// The audit browser's model: run pages, the filter the controls describe, the texts shown, and
// whether a verify result still speaks for the database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditReplay, AuditRunSummary, AuditVerifyResult } from '../../main/contract/api.js';
import {
  type FilterFields,
  bytes,
  carryFields,
  countText,
  failuresText,
  mergeNewest,
  mergeOlder,
  nodeBlocked,
  parseFilter,
  runClass,
  runsText,
  sameRun,
  staleText,
  time,
  timelineAt,
  verifyView,
} from '../../renderer/src/audit/model.js';

const run = (id: string, over: Partial<AuditRunSummary> = {}): AuditRunSummary =>
  ({
    id,
    started_ms: 1_000_000,
    events: 10,
    failures: { records: 0, postconditions: 0 },
    outcome: 'success',
    world: 'w',
    operator: 'o',
    software: 's',
    backend: 'b',
    spec: null,
    ...over,
  }) as AuditRunSummary;
const none: FilterFields = { kinds: [], tool: '', failure: '', from: '', to: '', text: '' };

test('times, sizes and failure counts read as the panel shows them', () => {
  assert.equal(time(null), '–');
  assert.equal(time(Date.UTC(2020, 0, 2, 3, 4, 5, 678)), '2020-01-02 03:04:05Z');
  assert.equal(bytes(1023), '1023 B');
  assert.equal(bytes(2048), '2.0 KiB');
  assert.equal(bytes(3 << 20), '3.0 MiB');
  assert.equal(failuresText(run('a')), '');
  assert.equal(
    failuresText(run('a', { failures: { records: 1, postconditions: 2 } })),
    '1 failure record · 2 failed postconditions',
  );
  assert.equal(
    runClass(run('a', { failures: { records: 1, postconditions: 0 } }), 'a', 'a'),
    'has-failures selected chain-bad',
  );
  assert.equal(runClass(run('a'), 'b', null), '');
});

test('the newest page joins the runs listed when it reaches them, else the list starts over from it', () => {
  const listed = { runs: [run('c'), run('b'), run('a')], next: null };
  // One new run on top; the page reaches the old top: older ones stay, the end of the list stays known.
  const grown = mergeNewest(listed, { runs: [run('d'), run('c')], next: 'cur' });
  assert.deepEqual(
    grown.runs.map((r) => r.id),
    ['d', 'c', 'b', 'a'],
  );
  assert.equal(grown.next, null);
  // Many new runs: the page does not reach the old top, so the list starts over (no gap between them).
  const over = mergeNewest(listed, { runs: [run('f'), run('e')], next: 'cur2' });
  assert.deepEqual(
    over.runs.map((r) => r.id),
    ['f', 'e'],
  );
  assert.equal(over.next, 'cur2');
  // An updated summary replaces the listed one.
  const updated = mergeNewest(listed, { runs: [run('c', { events: 99 })], next: null });
  assert.equal(updated.runs[0]!.events, 99);
  const older = mergeOlder({ runs: [run('d'), run('c')], next: 'x' }, { runs: [run('c'), run('b')], next: null });
  assert.deepEqual(
    older.runs.map((r) => r.id),
    ['d', 'c', 'b'],
  );
  assert.equal(older.next, null);
  assert.equal(runsText('a.sqlite', { runs: [run('a')], next: null }, 1), 'a.sqlite: 1 run (read-only)');
  assert.equal(
    runsText('a.sqlite', { runs: [run('a'), run('b')], next: 'x' }, 7),
    'a.sqlite: the newest 2 of 7 runs (read-only)',
  );
});

test('the filter controls give a filter, or say which field is wrong', () => {
  const r = run('r');
  assert.deepEqual(parseFilter(r, none), { ok: true, filter: { run: 'r' } });
  const all = [
    { value: 'tool_call', checked: true },
    { value: 'plan', checked: true },
  ];
  assert.deepEqual(parseFilter(r, { ...none, kinds: all }), { ok: true, filter: { run: 'r' } });
  const some = parseFilter(r, {
    kinds: [all[0]!, { value: 'plan', checked: false }],
    tool: 'pick',
    failure: 'slip',
    from: ' 1.5 ',
    to: '2',
    text: ' mug ',
  });
  assert.deepEqual(some, {
    ok: true,
    filter: {
      run: 'r',
      kinds: ['tool_call'],
      tool: 'pick',
      failureLabel: 'slip',
      fromMs: 1_001_500,
      toMs: 1_002_000,
      text: 'mug',
    },
  });
  assert.deepEqual(parseFilter(r, { ...none, to: 'soon' }), {
    ok: false,
    error: 'to: "soon" is not a number of seconds since the run started',
    invalid: ['to'],
  });
  const both = parseFilter(r, { ...none, from: 'x', to: 'y' });
  assert.equal(both.ok, false);
  assert.deepEqual(!both.ok && both.invalid, ['from', 'to']);
  assert.deepEqual(parseFilter(r, { ...none, from: '3', to: '2' }), {
    ok: false,
    error: 'window: "to" is before "from"',
    invalid: [],
  });
});

test('a grown run keeps the operator’s filter choices; new kinds come ticked, a choice no longer offered goes', () => {
  const before: FilterFields = {
    kinds: [
      { value: 'tool_call', checked: true },
      { value: 'plan', checked: false },
    ],
    tool: 'pick',
    failure: 'gone',
    from: '1',
    to: '',
    text: 'mug',
  };
  const facets = {
    kinds: [
      { kind: 'tool_call', n: 2 },
      { kind: 'plan', n: 1 },
      { kind: 'run_end', n: 1 },
    ],
    tools: ['pick', 'place'],
    failureLabels: ['slip'],
  };
  assert.deepEqual(carryFields(before, facets), {
    kinds: [
      { value: 'tool_call', checked: true },
      { value: 'plan', checked: false },
      { value: 'run_end', checked: true },
    ],
    tool: 'pick',
    failure: '',
    from: '1',
    to: '',
    text: 'mug',
  });
});

test('the count reads as the pages know it', () => {
  assert.equal(countText(null), '');
  assert.equal(countText({ textMode: false, count: 0, done: false, total: null }), 'loading…');
  assert.equal(countText({ textMode: false, count: 1, done: true, total: 1 }), '1 event');
  assert.equal(countText({ textMode: false, count: 5, done: true, total: 5 }), '5 events');
  assert.equal(countText({ textMode: true, count: 3, done: false, total: null }), '3 found, searching…');
  assert.equal(countText({ textMode: true, count: 3, done: true, total: null }), '3 found');
});

test('a verify result names the row that breaks the chain, and is stale once events land after its check', () => {
  const ok: AuditVerifyResult = {
    file: 'f',
    ok: true,
    events: 12,
    blobs: 3,
    head: 'abcdef0123456789abcdef',
    integrity: 'ok',
    chain_ms: 4.4,
  };
  assert.deepEqual(verifyView(ok), {
    text: 'Chain intact: 12 events, 3 blobs verified in 4 ms; head abcdef0123456789…',
    firstBad: null,
    badSeq: null,
  });
  const bad = { ...ok, ok: false, events: 6, firstBad: { table: 'events' as const, key: '7', reason: 'hash' } };
  assert.deepEqual(verifyView(bad), {
    text: 'NOT intact — first bad row: events 7: hash (6 events verified before it)',
    firstBad: 'events:7',
    badSeq: 7,
  });
  assert.equal(verifyView({ ...bad, firstBad: { table: 'blobs', key: 'ab', reason: 'missing' } }).badSeq, null);
  assert.equal(staleText(12, 12), null);
  assert.equal(staleText(12, 13), 'The database has grown since this check (1 new event): verify again to cover them.');
  assert.match(staleText(12, 20)!, /\(8 new events\)/);
});

test('a table row places the timeline by step or by time; a node link needs the run’s own replay', () => {
  const r = run('r');
  const rp = (axis: 'step' | 'time', id = 'r'): AuditReplay => ({ axis, run: run(id) }) as unknown as AuditReplay;
  assert.equal(timelineAt(rp('step'), { step: 4, t_ms: 1_000_900 }, 2), 4);
  assert.equal(timelineAt(rp('step'), { step: null, t_ms: 1_000_900 }, 2), 2);
  assert.equal(timelineAt(rp('time'), { step: 4, t_ms: 1_000_900 }, 2), 900);
  assert.equal(nodeBlocked('c1', r, rp('step')), null);
  assert.match(nodeBlocked('c1', r, rp('step', 'other'))!, /^c1: run r's scene is not loaded/);
  assert.match(nodeBlocked('c1', r, null)!, /cannot be shown$/);
  assert.equal(sameRun(r, rp('step'), run('r')), true);
  assert.equal(sameRun(r, rp('step'), run('r', { events: 11 })), false);
  assert.equal(sameRun(r, null, run('r')), false);
});

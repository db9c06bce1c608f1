/** The fleet reports' pure part: keys, time flags, buckets, what bodies say, the fold and its order, the text. */
import { parseTimeFlag } from '../../../main/contract/time.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bucketStart,
  estopReport,
  failureCell,
  failureFields,
  foldFailures,
  parseReportKeys,
} from '../../../main/core/audit/report.js';
import { failuresText } from '../../../main/core/audit/report-text.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

test('time flags: spans back from now, ISO 8601, milliseconds; anything else is null', () => {
  assert.equal(parseTimeFlag('7d', NOW), NOW - 7 * 86_400_000);
  assert.equal(parseTimeFlag('12h', NOW), NOW - 12 * 3_600_000);
  assert.equal(parseTimeFlag('30m', NOW), NOW - 30 * 60_000);
  assert.equal(parseTimeFlag('45s', NOW), NOW - 45_000);
  assert.equal(parseTimeFlag('2w', NOW), NOW - 14 * 86_400_000);
  assert.equal(parseTimeFlag('2026-01-01', NOW), Date.UTC(2026, 0, 1));
  assert.equal(parseTimeFlag('2026-01-01T10:00:00Z', NOW), Date.UTC(2026, 0, 1, 10));
  assert.equal(parseTimeFlag('1700000000000', NOW), 1_700_000_000_000);
  assert.equal(parseTimeFlag('7', NOW), 7);
  for (const bad of ['', 'd', '7 days', '-7d', '7y', 'yesterday', '2026-13-45', '0x10', '1e3', '2026-01-01junk'])
    assert.equal(parseTimeFlag(bad, NOW), null, bad);
});

test('keys: known, in the order given, none twice', () => {
  assert.deepEqual(parseReportKeys('tool,robot'), ['tool', 'robot']);
  assert.deepEqual(parseReportKeys('world, kind ,verifier'), ['world', 'kind', 'verifier']);
  assert.match(parseReportKeys('tool,colour') as string, /'colour' is not a key/);
  assert.match(parseReportKeys('tool,tool') as string, /'tool' is named twice/);
  assert.match(parseReportKeys('') as string, /'' is not a key/);
});

test('buckets: UTC hours and days, weeks from Monday; times before 1970 too', () => {
  const t = Date.UTC(2026, 0, 15, 12, 34); // a Thursday
  assert.equal(bucketStart(t, 'hour'), Date.UTC(2026, 0, 15, 12));
  assert.equal(bucketStart(t, 'day'), Date.UTC(2026, 0, 15));
  assert.equal(bucketStart(t, 'week'), Date.UTC(2026, 0, 12));
  assert.equal(new Date(bucketStart(t, 'week')).getUTCDay(), 1);
  assert.equal(bucketStart(Date.UTC(2026, 0, 12), 'week'), Date.UTC(2026, 0, 12));
  assert.equal(bucketStart(-1, 'day'), -86_400_000);
});

test('a failure record: its verifier and kind, strings only; a body that is no object says nothing', () => {
  assert.deepEqual(failureFields('{"violated":"holding","label":"slip"}', 'slip'), {
    verifier: 'holding',
    kind: 'slip',
  });
  assert.deepEqual(failureFields('{"violated":"g","kind":"goal-aborted"}', null), {
    verifier: 'g',
    kind: 'goal-aborted',
  });
  assert.deepEqual(failureFields('{"violated":7,"label":["x"]}', null), { verifier: null, kind: null });
  assert.deepEqual(failureFields('not json', 'lbl'), { verifier: null, kind: 'lbl' });
  assert.deepEqual(failureFields('["violated"]', null), { verifier: null, kind: null });
  // PostgreSQL's jsonb holds no NUL: the store derives nothing from such a body, and neither does this.
  assert.deepEqual(failureFields('{"violated":"a\\u0000b"}', null), { verifier: null, kind: null });
  assert.deepEqual(failureFields('{"violated":"a\\\\u0000b"}', null), { verifier: 'a\\u0000b', kind: null });
  assert.deepEqual(failureFields('{"violated":"ok","x":{"\\ud800":1}}', 'l'), { verifier: null, kind: 'l' });
  assert.deepEqual(failureFields('{"violated":"\\ud83d\\ude00"}', null), { verifier: '\u{1f600}', kind: null });
});

test('the fold: groups summed over buckets, most first, ties by the keys in code-point order, nothing last', () => {
  const src = { log_id: 'ab'.repeat(32), host: null, robot: null };
  const e = (t_ms: number, tool: string | null, label: string | null) => ({
    t_ms,
    tool,
    failure_label: label,
    body: '{}',
    world: 'w',
  });
  const cells = [
    e(Date.UTC(2026, 0, 1, 5), 'b', 'x'),
    e(Date.UTC(2026, 0, 2, 5), 'b', 'x'),
    e(Date.UTC(2026, 0, 1, 7), 'a', 'x'),
    e(Date.UTC(2026, 0, 1, 8), null, 'x'),
    e(Date.UTC(2026, 0, 1, 9), 'B', 'x'),
  ].map((x) => failureCell(['tool'], 'day', x, src));
  const r = foldFailures(cells, ['tool'], 'day', {});
  assert.equal(r.total, 5);
  assert.deepEqual(
    r.groups.map((g) => [g.key.tool, g.count, g.buckets!.map((b) => b.count)]),
    [
      ['b', 2, [1, 1]],
      ['B', 1, [1]],
      ['a', 1, [1]],
      [null, 1, [1]],
    ],
  );
  assert.deepEqual(failuresText(r).slice(0, 3), [
    'failures by tool, every day: 5 in 4 groups',
    'tool  count  first                     last',
    'b     2      2026-01-01T05:00:00.000Z  2026-01-02T05:00:00.000Z',
  ]);
});

test('E-STOPs: the reset in its own run, or in the latch run that names it as stopped; none after it is none', () => {
  const src = { log_id: 'cd'.repeat(32), host: 'pc', robot: 'r' };
  const d = (seq: number, run: string, body: object, meta: object = {}) => ({
    source: src,
    seq,
    run_id: run,
    t_ms: seq * 1000,
    body: JSON.stringify(body),
    world: 'w',
    run_operator: 'op',
    meta: JSON.stringify(meta),
  });
  const stop = d(2, 'mission', { decision: 'estop', reason: 'why', operator: 'ana' }, { via: 'cli' });
  const latch = d(3, 'latch', { decision: 'estop', reason: 'why (1 run)', operator: null }, { stopped: ['mission'] });
  const reset = d(5, 'latch', { decision: 'estop-reset', reason: 'clear', operator: 'bo' }, { stopped: ['mission'] });
  const later = d(9, 'mission', { decision: 'estop', reason: 'again', operator: 'ana' });
  const abort = d(4, 'mission', { decision: 'abort', reason: 'no', operator: 'ana' });
  const all = [stop, latch, reset, later, abort];
  const r = estopReport(all, all, {});
  assert.deepEqual(
    r.estops.map((e) => [e.seq, e.operator, e.via, e.reason, e.reset?.operator ?? null]),
    [
      [2, 'ana', 'cli', 'why', 'bo'],
      [3, 'op', null, 'why (1 run)', 'bo'],
      [9, 'ana', null, 'again', null],
    ],
  );
  assert.equal(r.reset, 2);
});

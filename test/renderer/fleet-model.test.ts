// The audit browser's fleet store mode, its model: the sources filter the controls describe (times as dates, UTC
// date-times or spans ago), and the texts of the sources and of a source's mirroring.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  mirroredText,
  mirroringText,
  parseWhen,
  sourceFilter,
  sourceLabel,
  sourcesText,
  worldsText,
} from '../../renderer/src/audit/fleet-model.js';

const NOW = Date.UTC(2026, 11, 5, 8, 0, 0);
const empty = { robot: '', world: '', host: '', since: '', until: '' };

test('a time is a date (midnight UTC), a date-time (UTC unless zoned) or a span before now; else none', () => {
  assert.equal(parseWhen('', NOW), undefined);
  assert.equal(parseWhen('  ', NOW), undefined);
  assert.equal(parseWhen('2026-12-05', NOW), Date.UTC(2026, 11, 5));
  assert.equal(parseWhen('2026-12-05 07:30', NOW), Date.UTC(2026, 11, 5, 7, 30));
  assert.equal(parseWhen('2026-12-05T07:30:15Z', NOW), Date.UTC(2026, 11, 5, 7, 30, 15));
  assert.equal(parseWhen('2026-12-05T07:30+01:00', NOW), Date.UTC(2026, 11, 5, 6, 30));
  assert.equal(parseWhen('30m', NOW), NOW - 30 * 60_000);
  assert.equal(parseWhen('12h', NOW), NOW - 12 * 3_600_000);
  assert.equal(parseWhen('7d', NOW), NOW - 7 * 86_400_000);
  assert.equal(parseWhen('1.5 w', NOW), NOW - 1.5 * 7 * 86_400_000);
  for (const bad of ['yesterday', '2026-13-45', '2026-12-05 25:00', '7y', '-3d', '12/05/2026'])
    assert.equal(parseWhen(bad, NOW), null, bad);
});

test('the sources filter names only what is chosen; a bad time or a range that ends first is refused, saying which', () => {
  assert.deepEqual(sourceFilter(empty, NOW), { ok: true, filter: {} });
  assert.deepEqual(sourceFilter({ ...empty, robot: 'ant-1', world: 'tabletop', host: 'pc-a', since: '7d' }, NOW), {
    ok: true,
    filter: { robot: 'ant-1', world: 'tabletop', host: 'pc-a', sinceMs: NOW - 7 * 86_400_000 },
  });
  assert.deepEqual(sourceFilter({ ...empty, until: '2026-12-01' }, NOW), {
    ok: true,
    filter: { untilMs: Date.UTC(2026, 11, 1) },
  });
  const bad = sourceFilter({ ...empty, since: 'last week', until: 'soon' }, NOW);
  assert.equal(bad.ok, false);
  assert.ok(!bad.ok && bad.error.startsWith('since: "last week" is not a date'));
  assert.ok(!bad.ok && bad.invalid.join() === 'since,until');
  for (const [since, until] of [
    ['1d', '2d'],
    ['2026-12-01', '2026-12-01'],
  ] as const)
    assert.deepEqual(sourceFilter({ ...empty, since, until }, NOW), {
      ok: false,
      error: 'time range: "until" must come after "since"',
      invalid: ['until'],
    });
});

test('texts: a source by host, robot and short log id; the list; a mirror under way and landed', () => {
  const s = {
    host: 'pc-a',
    robot: 'ant-1',
    logId: 'ab'.repeat(32),
    worlds: [],
    events: 3,
    runs: 1,
    firstMs: 1,
    lastMs: 2,
  };
  assert.equal(sourceLabel(s), 'pc-a/ant-1/abababababab');
  assert.equal(sourceLabel({ ...s, robot: null }), 'pc-a/–/abababababab');
  assert.equal(worldsText(s), '–');
  assert.equal(worldsText({ ...s, worlds: ['maze', 'tabletop'] }), 'maze, tabletop');
  assert.equal(sourcesText('pg://x', 0, false), 'pg://x: no source pushed yet');
  assert.equal(sourcesText('pg://x', 0, true), 'pg://x: no source matches the filter');
  assert.equal(sourcesText('pg://x', 1, false), 'pg://x: 1 source');
  assert.equal(sourcesText('pg://x', 1, true), 'pg://x: 1 source matches the filter');
  assert.equal(sourcesText('pg://x', 2, true), 'pg://x: 2 sources match the filter');
  assert.equal(mirroringText('L', 0, true), 'mirroring L from the store…');
  assert.equal(mirroringText('L', 5000, true), 'mirroring L from the store: 5000 events so far');
  assert.equal(mirroringText('L', 5000, true, 30_000), 'mirroring L from the store: 5000 of 30000 events so far');
  assert.equal(mirroringText('L', 5000, true, 10), 'mirroring L from the store: 5000 events so far');
  assert.equal(mirroringText('L', 5, false, 30_000), 'pulling new events of L from the store: 5 events so far');
  assert.equal(mirroringText('L', 1, false), 'pulling new events of L from the store: 1 event so far');
  const r = { logId: s.logId, host: 'pc-a', robot: 'ant-1', file: '/c/x.sqlite', events: 40, pulled: 0 };
  assert.equal(mirroredText('L', r), 'L: verified replica of 40 events (following the store)');
  assert.equal(mirroredText('L', { ...r, pulled: 4 }), 'L: verified replica of 40 events, 4 new (following the store)');
});

/** The fleet store's URLs in messages: the password masked wherever it appears, nothing else changed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FleetError, isStoreUrl, redactText, redactUrl } from '../../../main/services/fleet/store.js';

test('a URL is shown with its password masked, in the authority and in a password parameter', () => {
  assert.equal(redactUrl('postgres://lab:s3cr%40t@db.lab:5432/fleet'), 'postgres://lab:***@db.lab:5432/fleet');
  assert.equal(
    redactUrl('postgresql://db/fleet?sslmode=require&password=hunter2&x=1'),
    'postgresql://db/fleet?sslmode=require&password=***&x=1',
  );
  assert.equal(redactUrl('postgres://lab@db/fleet'), 'postgres://lab@db/fleet');
  assert.equal(redactUrl('postgres://db/fleet'), 'postgres://db/fleet');
});

test('a message never holds the password, raw or decoded, nor PGPASSWORD', () => {
  const url = 'postgres://lab:s3cr%40t@db.lab/fleet';
  const before = process.env['PGPASSWORD'];
  process.env['PGPASSWORD'] = 'from-the-env';
  try {
    const msg = redactText(`connecting to ${url} as lab with s3cr@t or s3cr%40t or from-the-env failed`, url);
    assert.equal(msg, 'connecting to postgres://lab:***@db.lab/fleet as lab with *** or *** or *** failed');
    const e = new FleetError(url, 'password s3cr@t refused', 'forbidden');
    assert.equal(e.message, 'postgres://lab:***@db.lab/fleet: password *** refused');
    assert.equal(e.code, 'forbidden');
  } finally {
    if (before === undefined) delete process.env['PGPASSWORD'];
    else process.env['PGPASSWORD'] = before;
  }
});

test('only postgres:// and postgresql:// URLs name a store', () => {
  assert.equal(isStoreUrl('postgres://h/d'), true);
  assert.equal(isStoreUrl('POSTGRESQL://h/d'), true);
  assert.equal(isStoreUrl('audit.sqlite'), false);
  assert.equal(isStoreUrl('mysql://h/d'), false);
});

test('verify takes an audit database or a store with --from, exactly one of them', async () => {
  const { spawnSync } = await import('node:child_process');
  const bin = new URL('../../../../bin/witness.js', import.meta.url).pathname;
  for (const args of [
    ['audit', 'verify'],
    ['audit', 'verify', 'x.sqlite', '--from', 'postgres://h/d'],
  ]) {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /name an audit database, or a fleet store with --from postgres:\/\/…, not both/);
  }
  const r = spawnSync(process.execPath, [bin, 'audit', 'push', 'x.sqlite', '--to', 'mysql://u:pw@h/d'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /mysql:\/\/u:\*\*\*@h\/d: not a PostgreSQL URL/);
  assert.doesNotMatch(r.stderr + r.stdout, /:pw@/);
});

test('verify --from fetches blob bodies in groups within a byte bound, a larger blob alone, every key once in order', async () => {
  const { BLOB_BYTES, blobGroups } = await import('../../../main/services/fleet/verify.js');
  const sizes = [1, BLOB_BYTES / 2, BLOB_BYTES / 2, 3, BLOB_BYTES * 2, 5, BLOB_BYTES - 5, 6];
  const keys = sizes.map((bytes, i) => ({ sha256: String(i), kind: 'k', bytes }));
  const groups = blobGroups(keys);
  assert.deepEqual(groups.flat(), keys);
  for (const g of groups)
    assert.ok(g.length === 1 || g.reduce((n, k) => n + k.bytes, 0) <= BLOB_BYTES, JSON.stringify(g));
  assert.deepEqual(
    groups.map((g) => g.map((k) => k.sha256)),
    [['0', '1'], ['2', '3'], ['4'], ['5', '6'], ['7']],
  );
  assert.deepEqual(blobGroups([]), []);
});

test("COPY's text format: NULL as \\N, numbers as JavaScript writes them, backslash, tab, newline and CR escaped", async () => {
  const { copyText, copyValue } = await import('../../../main/services/fleet/copy-in.js');
  assert.equal(copyValue(null), '\\N');
  assert.equal(copyValue('\\N'), '\\\\N');
  assert.equal(copyValue(1700000000000.5), '1700000000000.5');
  assert.equal(copyValue(12), '12');
  assert.equal(copyValue('a\tb\nc\rd\\e'), 'a\\tb\\nc\\rd\\\\e');
  assert.equal(copyValue('{"plain":"json"}'), '{"plain":"json"}');
  assert.equal(
    copyText(
      [
        ['x', null, 2],
        ['y\n', 'z', 3],
      ],
      [7],
    ),
    '7\tx\t\\N\t2\n7\ty\\n\tz\t3\n',
  );
  assert.equal(copyText([]), '');
});

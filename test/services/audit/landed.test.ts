/**
 * The writer checks what it appended landed. A database changed under a writer that has it open —
 * a trigger that swallows inserts, one that deletes, updates or adds rows after them, a blob planted
 * at the address of one about to be stored — fails the batch at once as `tampered`, rolled back
 * whole, and the log takes nothing more; a run on it fails loudly. The writer also keeps the log
 * readable: a body nested deeper than the readers take, too large, a time or step that is not one is
 * refused with a clear error, never a stack overflow.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AuditError, AuditLog, openAuditReadOnly, sha256 } from '../../../main/services/audit/store.js';
import { auditSchema, schemaOf } from '../../../main/services/audit/schema.js';
import { schemaProblems } from '../../../main/services/audit/schema-check.js';
import { verifyChain, queryEvents } from '../../../main/services/audit/forensics.js';
import { MAX_BLOB_BYTES, MAX_BODY_BYTES, bodyOf } from '../../../main/services/audit/rows.js';
import { settleAudit } from '../../../main/app/audit-log.js';
import { runAct } from '../../../main/app/act.js';
import { WitnessError } from '../../../main/contract/errors.js';
import { asset } from '../../cli/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'witness-landed-'));
let files = 0;

async function openLog(): Promise<{ log: AuditLog; run: string; file: string }> {
  const file = join(dir, `log-${files++}.sqlite`);
  let t = 1_760_000_000_000;
  const log = AuditLog.open(file, { now: () => (t += 5) });
  const run = await log.startRun({
    world: 'tabletop',
    backend: 'mujoco',
    operator: 'ada',
    software: 'witness test',
    models: {},
    spec: 'the mug on the tray',
  });
  for (let i = 0; i < 3; i++) await log.append(run, 'evidence', { i });
  return { log, run, file };
}

/** SQL run on the database from another connection, as another program would. */
function elsewhere(file: string, sql: string): void {
  const db = new Database(file);
  db.exec(sql);
  db.close();
}

const count = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

const tampered =
  (re: RegExp) =>
  (e: unknown): boolean => {
    assert.ok(e instanceof AuditError, `an AuditError, not ${String(e)}`);
    assert.equal(e.code, 'tampered');
    assert.match(e.message, /did not land as written/);
    assert.match(e.message, /rolled back \(nothing of it kept\)/);
    assert.match(e.message, re);
    return true;
  };

test('the schema the writer creates is the one every check holds a file against: a new log has no difference', async () => {
  const { log, file } = await openLog();
  await log.close();
  const db = openAuditReadOnly(file);
  try {
    assert.deepEqual(schemaProblems(db), []);
    const ours = auditSchema(),
      theirs = schemaOf(db);
    assert.deepEqual([...theirs.objects.keys()], [...ours.objects.keys()]);
    const types = [...ours.objects.values()].map((o) => o.type);
    assert.deepEqual(
      ['table', 'index', 'trigger'].map((t) => types.filter((x) => x === t).length),
      [3, 7, 6],
    );
  } finally {
    db.close();
  }
});

const MIDRUN: readonly { name: string; sql: string; reason: RegExp }[] = [
  {
    name: 'a BEFORE INSERT trigger that ignores the row',
    sql: 'CREATE TRIGGER swallow BEFORE INSERT ON events BEGIN SELECT RAISE(IGNORE); END',
    reason:
      /event 5 was inserted, but it is not there \(dropped\).*a trigger swallow \(on events\) that Witness does not create was added/,
  },
  {
    name: 'an AFTER INSERT trigger that deletes the row (the guard dropped)',
    sql: 'DROP TRIGGER events_no_delete; CREATE TRIGGER eat AFTER INSERT ON events BEGIN DELETE FROM events WHERE seq = NEW.seq; END',
    reason:
      /event 5 was inserted, but it is not there \(dropped\).*the trigger events_no_delete is missing \(dropped\).*a trigger eat \(on events\)/,
  },
  {
    name: 'an AFTER INSERT trigger that rewrites the body (the guard dropped)',
    sql: "DROP TRIGGER events_no_update; CREATE TRIGGER rewrite AFTER INSERT ON events BEGIN UPDATE events SET body = '{}' WHERE seq = NEW.seq; END",
    reason:
      /its schema changed while this writer had it open: the trigger events_no_update is missing.*a trigger rewrite \(on events\)/,
  },
  {
    name: 'an AFTER INSERT trigger that rewrites the hash (the guard dropped)',
    sql: "DROP TRIGGER events_no_update; CREATE TRIGGER rehash AFTER INSERT ON events BEGIN UPDATE events SET hash = 'forged' WHERE seq = NEW.seq; END",
    reason: /the chain head, event 5, holds another hash than was written \(the row was altered\)/,
  },
  {
    name: 'an AFTER INSERT trigger that adds a row',
    sql: "CREATE TRIGGER twin AFTER INSERT ON events WHEN NEW.kind = 'evidence' BEGIN INSERT INTO events SELECT NEW.seq + 1, NEW.run_id, NEW.t_ms, NULL, 'run_end', NULL, NULL, '{}', NEW.hash, 'x'; END",
    reason: /event 5 was inserted, but 2 events follow event 4, up to event 6 \(rows were added\)/,
  },
];

test('a trigger added while the writer has the log open: the next append fails as tampered, its batch rolled back, and the log takes nothing more', async () => {
  for (const c of MIDRUN) {
    const { log, run, file } = await openLog();
    elsewhere(file, c.sql);
    await assert.rejects(log.append(run, 'evidence', { i: 'after' }), tampered(c.reason), c.name);
    assert.equal(count(file), 4, `${c.name}: nothing of the batch kept`);
    await assert.rejects(
      log.append(run, 'run_end', { outcome: 'success' }),
      tampered(c.reason),
      `${c.name}: the log takes nothing more`,
    );
    assert.throws(() => log.putBlob('plan', '{}'), tampered(c.reason));
    await log.close();
  }
});

test('a blob planted at the address of one the writer stores: the run does not start', async () => {
  const { log, file } = await openLog();
  const spec = 'G F dock';
  elsewhere(file, `DROP TRIGGER blobs_no_update; INSERT INTO blobs VALUES ('${sha256(spec)}', 'spec', 'G !dock')`);
  await assert.rejects(
    log.startRun({ world: 'tabletop', backend: 'mujoco', operator: 'ada', software: 'witness test', models: {}, spec }),
    tampered(/the blob at [0-9a-f]{12}… holds other content than its address says/),
  );
  await log.close();
});

test('a run on a log changed under it fails loudly: runAct rejects, settleAudit reports the failed append with its code', async () => {
  const { log, run, file } = await openLog();
  elsewhere(file, 'CREATE TRIGGER swallow BEFORE INSERT ON events BEGIN SELECT RAISE(IGNORE); END');
  await assert.rejects(
    runAct({
      world: 'tabletop',
      tools: asset('tools'),
      goal: 'objects.red_bin.on == "shelf_c4"',
      planner: 'scripted',
      plan: asset('plans/warehouse.json'),
      replans: 0,
      seed: 0,
      audit: log,
      decide: () => Promise.resolve({ decision: 'abort', reason: 'test' }),
    }),
    (e: unknown) => e instanceof WitnessError && e.code === 'tampered' && e.message.includes(file),
  );
  const errors: Error[] = [];
  log.append(run, 'evidence', { i: 'late' }).catch((e: unknown) => errors.push(e as Error));
  await assert.rejects(
    settleAudit(log, [{ errors }]),
    (e: unknown) =>
      e instanceof WitnessError &&
      e.code === 'tampered' &&
      e.message.startsWith(`audit log ${file}: what this writer appended`),
  );
  await log.close();
});

test('the writer keeps the log readable: what is nested deeper, too large, or not a time is refused with a clear error; 256 levels are written and read back', async () => {
  const { log, run, file } = await openLog();
  const nest = (n: number): unknown => {
    let v: unknown = 0;
    for (let i = 0; i < n; i++) v = [v];
    return v;
  };
  const refused =
    (code: string, re: RegExp) =>
    (e: unknown): boolean =>
      e instanceof AuditError && e.code === code && re.test(e.message);
  await assert.rejects(
    log.append(run, 'evidence', { deep: nest(100_000) }),
    refused(
      'invalid-input',
      /evidence event of run .*: its body is nested deeper than 256 levels of arrays and objects: not appended/,
    ),
  );
  await assert.rejects(
    log.append(run, 'evidence', nest(257)),
    refused('invalid-input', /nested deeper than 256 levels/),
  );
  const cycle: Record<string, unknown> = {};
  cycle['self'] = cycle;
  await assert.rejects(log.append(run, 'evidence', cycle), refused('invalid-input', /nested deeper than 256 levels/));
  await assert.rejects(
    log.append(run, 'evidence', { x: 'y'.repeat(MAX_BODY_BYTES) }),
    refused('too-large', /its body is larger than 16 MiB, the most the audit log holds/),
  );
  for (const t_ms of [Number.NaN, Infinity, 1e300])
    await assert.rejects(
      log.append(run, 'evidence', {}, { t_ms }),
      refused('invalid-input', /its time .* is not milliseconds since 1970/),
    );
  await assert.rejects(
    log.append(run, 'evidence', {}, { step: 1.5 }),
    refused('invalid-input', /its step 1.5 is not an integer/),
  );
  assert.throws(
    () => log.putBlob('map', 'z'.repeat(MAX_BLOB_BYTES + 1)),
    refused('too-large', /a map blob of .* is larger than 64 MiB/),
  );
  // A run that cannot be recorded leaves nothing behind: not its specification's blob either.
  await assert.rejects(
    log.startRun({
      world: 'w',
      backend: 'b',
      operator: 'o',
      software: 's',
      models: {},
      spec: 'F e9',
      meta: { deep: nest(300) },
    }),
    refused('invalid-input', /a run's meta is nested deeper than 256 levels/),
  );
  await assert.rejects(
    log.startRun({
      world: 'w',
      backend: 'b',
      operator: 'o',
      software: 's',
      models: {},
      spec: 'F e8',
      map: 'm'.repeat(MAX_BLOB_BYTES + 1),
    }),
    refused('too-large', /a map blob .* is larger than 64 MiB/),
  );
  const seq = await log.append(run, 'evidence', nest(256));
  await log.close();
  assert.equal(count(file), 5, 'only the body nested 256 deep was appended');
  const blobs = new Database(file, { readonly: true });
  assert.deepEqual(
    blobs.prepare('SELECT body FROM blobs').pluck().all(),
    ['the mug on the tray'],
    'no blob of a run that was not recorded',
  );
  blobs.close();
  const db = openAuditReadOnly(file);
  try {
    const e = queryEvents(db, { after: seq - 1, limit: 1 })[0]!;
    assert.equal(JSON.stringify(bodyOf(e)), JSON.stringify(nest(256)));
    assert.equal(verifyChain(db).ok, true);
  } finally {
    db.close();
  }
  rmSync(file, { force: true });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { mcapReader } from './mcap.js';
import { open } from 'node:fs/promises';
import { AuditError, AuditLog, openAuditReadOnly } from '../../../main/services/audit/store.js';
import { listRuns, queryEvents, verifyChain } from '../../../main/services/audit/forensics.js';
import { exportAudit } from '../../../main/services/audit/export.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'witness-audit-'));
const META = {
  world: 'pointmaze-medium',
  backend: 'mujoco',
  operator: 'ada',
  software: 'witness test',
  models: { embed: 'e', policy: 'p' },
  spec: 'F a',
};

async function filled(file: string, n = 50): Promise<string> {
  const log = AuditLog.open(file, {
    now: (() => {
      let t = 1_700_000_000_000;
      return () => (t += 10);
    })(),
  });
  const run = await log.startRun(META);
  const acks: Promise<number>[] = [];
  for (let i = 0; i < n; i++) {
    acks.push(
      log.append(
        run,
        i % 10 === 9 ? 'failure_record' : i % 2 === 0 ? 'tool_call' : 'verifier_result',
        { i, note: i === 7 ? 'red mug slipped' : 'ok' },
        {
          step: i,
          ...(i % 2 === 0 ? { tool: i % 4 === 0 ? 'pick' : 'place' } : {}),
          ...(i % 10 === 9 ? { failureLabel: 'grasp-missed' } : {}),
        },
      ),
    );
  }
  await log.append(run, 'run_end', { outcome: 'success' });
  const seqs = await Promise.all(acks);
  assert.deepEqual(
    seqs,
    Array.from({ length: n }, (_, i) => i + 2),
    'sequence numbers follow run_start',
  );
  await log.close();
  return run;
}

test('append, list, query with filters and keyset paging, verify; evidence refuses UPDATE and DELETE', async () => {
  const file = join(dir(), 'a.sqlite');
  const run = await filled(file);
  const db = openAuditReadOnly(file);
  try {
    const runs = listRuns(db);
    assert.deepEqual(
      runs.map((r) => [r.id, r.operator, r.events, r.outcome]),
      [[run, 'ada', 52, 'success']],
    );
    assert.equal(queryEvents(db, { tool: 'pick' }).length, 13);
    assert.equal(queryEvents(db, { failureLabel: 'grasp-missed' }).length, 5);
    assert.deepEqual(
      queryEvents(db, { text: 'red mug' }).map((e) => e.step),
      [7],
    );
    const page1 = queryEvents(db, { kind: 'verifier_result', limit: 10 });
    const page2 = queryEvents(db, { kind: 'verifier_result', limit: 10, after: page1[9]!.seq });
    assert.equal(page1.length + page2.length, 20);
    assert.ok(page2[0]!.seq > page1[9]!.seq);
    const w = queryEvents(db, { from_ms: 1_700_000_000_100, to_ms: 1_700_000_000_200 });
    assert.ok(w.length > 0 && w.every((e) => e.t_ms >= 1_700_000_000_100 && e.t_ms <= 1_700_000_000_200));
    const v = verifyChain(db);
    assert.deepEqual([v.ok, v.events, v.integrity], [true, 52, 'ok']);
    assert.throws(() => db.prepare('DELETE FROM events').run(), /readonly|read-only|attempt to write/i);
  } finally {
    db.close();
  }
  const raw = new Database(file);
  assert.throws(() => raw.prepare('UPDATE events SET body = ? WHERE seq = 3').run('{}'), /append-only: UPDATE refused/);
  assert.throws(() => raw.prepare('DELETE FROM events WHERE seq = 3').run(), /append-only: DELETE refused/);
  assert.throws(() => raw.prepare('DELETE FROM runs').run(), /append-only/);
  raw.close();
});

test('tampering is found: the first altered row, a removed row, an altered blob', async () => {
  const d = dir();
  const file = join(d, 'a.sqlite');
  await filled(file, 20);
  const tamper = (sql: string[]): ReturnType<typeof verifyChain> => {
    const copy = join(d, `t${Math.random()}.sqlite`);
    copyFileSync(file, copy);
    const raw = new Database(copy);
    raw.exec('DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete; DROP TRIGGER blobs_no_update;');
    for (const s of sql) raw.exec(s);
    raw.close();
    const db = openAuditReadOnly(copy);
    try {
      return verifyChain(db);
    } finally {
      db.close();
    }
  };
  const a = tamper([
    'UPDATE events SET body = \'{"i":666,"note":"ok"}\' WHERE seq = 8',
    "UPDATE events SET body = '{}' WHERE seq = 12",
  ]);
  assert.deepEqual([a.ok, a.firstBad?.key], [false, '8']);
  assert.match(a.firstBad!.reason, /hash does not match its content/);
  const b = tamper(['DELETE FROM events WHERE seq = 5']);
  assert.equal(b.firstBad?.key, '6');
  assert.match(b.firstBad.reason, /sequence gap/);
  const c = tamper(["UPDATE blobs SET body = 'F b'"]);
  assert.equal(c.firstBad?.table, 'blobs');
});

test('bad input: not SQLite, truncated, foreign SQLite, unknown schema version, locked, full disk', async () => {
  const d = dir();
  const text = join(d, 'notes.txt');
  writeFileSync(text, 'hello, this is not a database at all, but it is long enough to have a header'.repeat(3));
  assert.throws(
    () => openAuditReadOnly(text),
    (e: unknown) => e instanceof AuditError && /not an SQLite database/.test(e.message),
  );
  assert.throws(() => AuditLog.open(text), /not an SQLite database/);
  const file = join(d, 'a.sqlite');
  const run200 = await filled(file, 200);
  const half = join(d, 'half.sqlite');
  writeFileSync(half, readFileSync(file).subarray(0, 3000));
  assert.throws(
    () => {
      const db = openAuditReadOnly(half);
      try {
        verifyChain(db);
      } finally {
        db.close();
      }
    },
    (e: unknown) => e instanceof AuditError || (e instanceof Error && /malformed|corrupt|disk image/i.test(e.message)),
  );
  const foreign = join(d, 'foreign.sqlite');
  const f = new Database(foreign);
  f.exec('CREATE TABLE t (x)');
  f.close();
  assert.throws(() => openAuditReadOnly(foreign), /foreign SQLite file/);
  assert.throws(() => AuditLog.open(foreign), /foreign SQLite file/);
  assert.equal(readFileSync(foreign).length > 0, true);
  const future = join(d, 'future.sqlite');
  const g = new Database(future);
  g.pragma('user_version = 99');
  g.close();
  assert.throws(() => openAuditReadOnly(future), /schema version 99 is not one this Witness reads/);
  // Locked: another connection holds the write lock.
  const locker = new Database(file);
  locker.exec('BEGIN EXCLUSIVE');
  const log = AuditLog.open(file, { busyTimeout_ms: 50 });
  await assert.rejects(log.append(run200, 'evidence', {}), /locked by another process/);
  locker.exec('ROLLBACK');
  locker.close();
  await log.close();
  // Full: a size limit stands in for a full disk; the failed batch is rolled back whole.
  const small = join(d, 'small.sqlite');
  const s = AuditLog.open(small, { maxPages: 40 });
  const run = await s.startRun(META);
  await assert.rejects(
    Promise.all(Array.from({ length: 300 }, () => s.append(run, 'evidence', { pad: 'x'.repeat(400) }))),
    /disk is full/,
  );
  await s.close();
  const db = openAuditReadOnly(small);
  assert.equal(verifyChain(db).ok, true);
  assert.equal(queryEvents(db, { kind: 'evidence' }).length, 0, 'nothing of the failed batch');
  db.close();
});

test('an acknowledged event survives kill -9 of the writer; the chain and the database stay intact', async () => {
  const d = dir();
  const file = join(d, 'k.sqlite');
  const store = new URL('../../../main/services/audit/store.js', import.meta.url).href;
  const script = join(d, 'writer.mjs');
  writeFileSync(
    script,
    `
    import { AuditLog } from ${JSON.stringify(store)};
    const log = AuditLog.open(${JSON.stringify(file)});
    const run = await log.startRun({ world: 'w', backend: 'b', operator: 'o', software: 's', models: {} });
    let i = 0;
    for (;;) {
      const batch = [];
      for (let k = 0; k < 50; k++, i++) batch.push(log.append(run, 'evidence', { i }).then((seq) => process.stdout.write(seq + '\\n')));
      await Promise.all(batch);
    }
  `,
  );
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acked: number[] = [];
  let buf = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (b: Buffer) => {
      buf += b.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) acked.push(Number(l));
      if (acked.length >= 3000) {
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  await new Promise((r) => child.on('exit', r));
  const db = openAuditReadOnly(file);
  try {
    const have = new Set(queryEvents(db, { kind: 'evidence', limit: 100_000 }).map((e) => e.seq));
    const missing = acked.filter((s) => !have.has(s));
    assert.deepEqual(missing, [], 'every acknowledged event is there');
    const v = verifyChain(db);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    db.close();
  }
});

test('exports: JSON Lines, CSV, and an MCAP that the MCAP reader reads back', async () => {
  const d = dir();
  const file = join(d, 'a.sqlite');
  await filled(file, 30);
  const db = openAuditReadOnly(file);
  try {
    await exportAudit(db, 'jsonl', join(d, 'a.jsonl'));
    const lines = readFileSync(join(d, 'a.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; body: { i?: number } });
    assert.equal(lines.length, 32);
    assert.equal(lines[5]!.body.i, 4);
    await exportAudit(db, 'csv', join(d, 'a.csv'));
    const csv = readFileSync(join(d, 'a.csv'), 'utf8').trim().split('\n');
    assert.equal(csv.length, 33);
    assert.match(csv[0]!, /^seq,run_id,t_ms,step,kind,tool,failure_label,prev_hash,hash,body$/);
    await exportAudit(db, 'mcap', join(d, 'a.mcap'));
  } finally {
    db.close();
  }
  const fh = await open(join(d, 'a.mcap'), 'r');
  try {
    const reader = await mcapReader(fh);
    const topics = [...reader.channelsById.values()].map((c) => c.topic).sort();
    assert.deepEqual(topics, [
      '/witness/failure_record',
      '/witness/log',
      '/witness/run_end',
      '/witness/run_start',
      '/witness/scene',
      '/witness/tool_call/pick',
      '/witness/tool_call/place',
      '/witness/verifier_result',
    ]);
    let n = 0;
    for await (const m of reader.readMessages()) {
      // The foxglove.* channels (test/services/audit/foxglove.test.ts) carry no sequence numbers.
      if (['/witness/log', '/witness/scene'].includes(reader.channelsById.get(m.channelId)!.topic)) continue;
      const doc = JSON.parse(new TextDecoder().decode(m.data)) as { seq: number };
      assert.ok(doc.seq >= 1);
      n++;
    }
    assert.equal(n, 32);
    assert.equal(reader.metadataIndexes.length, 1);
    assert.equal(reader.attachmentIndexes.length, 1, 'the specification');
    assert.ok(reader.schemasById.size >= 5);
  } finally {
    await fh.close();
  }
});

test('stored times never decrease; a free-text page stops at its budget with a cursor to continue', async () => {
  const file = join(dir(), 't.sqlite');
  const log = AuditLog.open(file);
  const run = await log.startRun(META);
  await log.append(run, 'evidence', { n: 1 }, { t_ms: 5_000_000_000_000 });
  const seq = await log.append(run, 'evidence', { n: 2 }, { t_ms: 1 });
  for (let i = 0; i < 3000; i++) void log.append(run, 'evidence', { i });
  await log.close();
  const { queryPage } = await import('../../../main/services/audit/forensics.js');
  const db = openAuditReadOnly(file);
  try {
    assert.equal(
      queryEvents(db, { after: seq - 1, limit: 1 })[0]!.t_ms,
      5_000_000_000_000,
      'raised to the previous time',
    );
    assert.equal(verifyChain(db).ok, true);
    const partial = queryPage(db, { text: 'no such text' }, 0, 500);
    assert.equal(partial.complete, false);
    assert.ok(partial.next !== null && partial.next >= 1);
    const whole = queryPage(db, { text: 'no such text' }, Infinity);
    assert.deepEqual([whole.rows.length, whole.complete, whole.next], [0, true, null]);
    assert.equal(queryPage(db, { text: '"n":2' }).rows.length, 1);
  } finally {
    db.close();
  }
});

// Many writers on one audit database: worker threads and child processes appending at once (seeded
// waves), one process killed with SIGKILL in the middle; the chain must verify and every
// acknowledged event must be there, at the sequence number it was acknowledged with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { AuditLog, openAuditReadOnly } from '../../../main/services/audit/store.js';
import { listRuns, verifyChain } from '../../../main/services/audit/forensics.js';
import type { WriterJob, WriterMessage } from '../../../main/bench/audit-writer.js';

const WRITER = fileURLToPath(new URL('../../../main/bench/audit-writer.js', import.meta.url));
const dir = (): string => mkdtempSync(join(tmpdir(), 'witness-writers-'));

type Ack = Extract<WriterMessage, { kind: 'ack' }>;

interface Started {
  readonly done: Promise<WriterMessage>;
  readonly kill?: () => void;
}

/**
 * A writer as a child process: its acknowledgements as they arrive, its end (or its death) once its output is all read.
 */
function processWriter(job: WriterJob, onAck: (a: Ack) => void): Started & { child: ChildProcess } {
  const child = spawn(process.execPath, [WRITER, '--audit-writer', JSON.stringify(job)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buf = '';
  let last: WriterMessage | null = null;
  child.stdout.on('data', (b: Buffer) => {
    buf += b.toString();
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const l of lines) {
      const m = JSON.parse(l) as WriterMessage;
      if (m.kind === 'ack') onAck(m);
      else last = m;
    }
  });
  const done = new Promise<WriterMessage>((resolve) =>
    child.on('close', (code, signal) => {
      resolve(last ?? { kind: 'error', writer: job.writer, message: `exit ${code ?? signal}` });
    }),
  );
  return { child, done, kill: () => child.kill('SIGKILL') };
}

/** A writer as a worker thread of this process. */
function threadWriter(job: WriterJob, onAck: (a: Ack) => void): Started {
  const w = new Worker(WRITER, { workerData: { auditWriter: job } });
  const done = new Promise<WriterMessage>((resolve, reject) => {
    w.on('message', (m: WriterMessage) => {
      if (m.kind === 'ack') onAck(m);
      else resolve(m);
    });
    w.on('error', reject);
  });
  return { done };
}

/** Every acknowledged event is in the database at its sequence number, in its run, with its body. */
function checkAcked(file: string, acks: readonly Ack[]): { events: number; runs: number } {
  const db = openAuditReadOnly(file);
  try {
    const v = verifyChain(db);
    assert.equal(v.ok, true, `the chain verifies: ${JSON.stringify(v.firstBad)}`);
    const get = db.prepare('SELECT run_id, body FROM events WHERE seq = ?');
    const seqs = new Set<number>();
    for (const a of acks) {
      assert.ok(!seqs.has(a.seq), `sequence number ${a.seq} acknowledged twice`);
      seqs.add(a.seq);
      const row = get.get(a.seq) as { run_id: string; body: string } | undefined;
      assert.ok(row !== undefined, `acknowledged event ${a.seq} (writer ${a.writer}, #${a.i}) is missing`);
      const body = JSON.parse(row.body) as { writer: number; i: number };
      assert.deepEqual(
        [row.run_id, body.writer, body.i],
        [a.run, a.writer, a.i],
        `event ${a.seq} is the one acknowledged`,
      );
    }
    // No run row without its run_start: verify holds every row against one; and every run is listed intact.
    const runs = listRuns(db);
    assert.ok(
      runs.every((r) => r.tampered === undefined),
      JSON.stringify(runs.find((r) => r.tampered !== undefined)),
    );
    return { events: v.events, runs: v.runs };
  } finally {
    db.close();
  }
}

test('three worker threads and three processes append at once: one unbroken chain, every acknowledged event in place', async () => {
  // No database yet: the writers also race to create it.
  const file = join(dir(), 'shared.sqlite');
  const acks: Ack[] = [];
  const jobs = Array.from({ length: 6 }, (_, w): WriterJob => ({
    file,
    writer: w,
    runs: 2,
    events: 150,
    maxWave: 40,
    seed: 7,
    acks: true,
  }));
  const started = jobs.map((job) =>
    job.writer % 2 === 0 ? threadWriter(job, (a) => acks.push(a)) : processWriter(job, (a) => acks.push(a)),
  );
  const ends = await Promise.all(started.map((s) => s.done));
  for (const e of ends) assert.equal(e.kind, 'done', JSON.stringify(e));
  assert.equal(acks.length, 6 * 2 * 150, 'every append was acknowledged');
  const { events, runs } = checkAcked(file, acks);
  assert.equal(runs, 12);
  assert.equal(events, 6 * 2 * 150 + 12, 'the events and one run_start per run, nothing else');
  // The writers interleaved (otherwise this test proves nothing about concurrency): some batch of one
  // writer lies between two of another's.
  const order = acks
    .slice()
    .sort((a, b) => a.seq - b.seq)
    .map((a) => a.writer);
  const switches = order.filter((w, i) => i > 0 && w !== order[i - 1]).length;
  assert.ok(switches > 6, `the writers' events interleave (${switches} switches)`);
});

test('a writer process killed with SIGKILL mid-stream loses nothing it acknowledged; the others and a later writer continue the chain', async () => {
  const file = join(dir(), 'killed.sqlite');
  await AuditLog.open(file).close();
  const acks: Ack[] = [];
  let victimAcks = 0;
  let killVictim: () => void = () => undefined;
  let killed!: () => void;
  const victimKilled = new Promise<void>((r) => {
    killed = r;
  });
  const victim = processWriter({ file, writer: 0, runs: 1, events: null, maxWave: 30, seed: 11, acks: true }, (a) => {
    acks.push(a);
    if (++victimAcks === 400) {
      killVictim();
      killed();
    }
  });
  killVictim = victim.kill!;
  const others = [
    processWriter({ file, writer: 1, runs: 3, events: 200, maxWave: 25, seed: 11, acks: true }, (a) => acks.push(a)),
    threadWriter({ file, writer: 2, runs: 3, events: 200, maxWave: 25, seed: 11, acks: true }, (a) => acks.push(a)),
  ];
  await victimKilled;
  const victimEnd = await victim.done;
  assert.equal(victimEnd.kind, 'error', 'the victim never finished');
  assert.equal(victim.child.signalCode, 'SIGKILL');
  for (const e of await Promise.all(others.map((o) => o.done))) assert.equal(e.kind, 'done', JSON.stringify(e));
  assert.ok(victimAcks >= 400);
  assert.equal(acks.length - victimAcks, 2 * 3 * 200);
  // A writer opened after the kill continues the same chain.
  const later = AuditLog.open(file);
  const run = await later.startRun({ world: 'w', backend: 'b', operator: 'later', software: 's', models: {} });
  const seq = await later.append(run, 'evidence', { after: 'the kill' });
  await later.close();
  const { events } = checkAcked(file, acks);
  assert.equal(seq, events, 'the later writer appended at the end of the chain');
  assert.ok(events >= acks.length + 7 + 2, "every acknowledged event, the seven run_starts and the later writer's two");
});

test('a log opened before another wrote (the web server after a CLI run) continues the chain; a start that fails leaves no run row', async () => {
  const file = join(dir(), 'two.sqlite');
  const server = AuditLog.open(file);
  const cli = AuditLog.open(file);
  const a = await cli.startRun({ world: 'w', backend: 'b', operator: 'cli', software: 's', models: {}, spec: 'F a' });
  assert.equal(await cli.append(a, 'evidence', { from: 'cli' }), 2);
  await cli.close();
  // The server's connection was opened first; it appends after the CLI's events, not over them.
  const b = await server.startRun({
    world: 'w',
    backend: 'b',
    operator: 'server',
    software: 's',
    models: {},
    spec: 'F b',
  });
  assert.equal(await server.append(b, 'evidence', { from: 'server' }), 4);
  assert.deepEqual(server.head.seq, 4);
  // Another process holds the write lock past the busy timeout: the start fails whole.
  const locker = new Database(file);
  locker.exec('BEGIN IMMEDIATE');
  const impatient = AuditLog.open(file, { busyTimeout_ms: 60 });
  await assert.rejects(
    impatient.startRun({ world: 'w', backend: 'b', operator: 'late', software: 's', models: {}, spec: 'F c' }),
    /locked by another process/,
  );
  locker.exec('ROLLBACK');
  locker.close();
  await impatient.close();
  // Waiting writers do not fail: the lock held for a while (shorter than the timeout) only delays them.
  const holder = new Database(file);
  holder.exec('BEGIN IMMEDIATE');
  const patient = server.append(b, 'evidence', { waited: true });
  // The append has found the lock taken and waits (a bounded poll: it tries on the next tick).
  for (let i = 0; i < 1000 && !server.waitingForLock; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(server.waitingForLock, true, 'the append waits for the lock');
  holder.exec('COMMIT');
  holder.close();
  assert.equal(await patient, 5);
  await server.close();
  const db = openAuditReadOnly(file);
  try {
    const v = verifyChain(db);
    assert.deepEqual([v.ok, v.events, v.runs, v.blobs], [true, 5, 2, 2], JSON.stringify(v.firstBad));
    assert.deepEqual(
      listRuns(db).map((r) => r.operator),
      ['cli', 'server'],
      'no row of the failed start',
    );
    assert.equal(
      (db.prepare("SELECT count(*) AS n FROM blobs WHERE body = 'F c'").get() as { n: number }).n,
      0,
      'nor its blob',
    );
  } finally {
    db.close();
  }
});

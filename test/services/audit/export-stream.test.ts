// @slow: exports a log of a hundred megabytes in a small heap (not in npm run test:quick)
/**
 * The audit exports stream (services/audit/export.ts): the same bytes as the export that built the
 * file in memory did (a fixture database and the sha256 of what that code wrote for it), no file and
 * no temporary left behind by a failed export, and a JSON Lines export far larger than the heap it
 * runs in (a child process with --max-old-space-size=64).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { AuditLog, openAuditReadOnly } from '../../../main/services/audit/store.js';
import { exportAudit } from '../../../main/services/audit/export.js';
import { FileError, writeAtomicStream } from '../../../main/platform/files.js';

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../../../../test/fixtures/audit/${name}`, import.meta.url));
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

interface Golden {
  runs: { one: string };
  outputs: Record<string, { bytes: number; sha256: string }>;
}

test('streamed exports are byte-identical to what the in-memory export wrote for the same database (fixture)', async () => {
  // test/fixtures/audit/export-golden.sqlite: test/api/audit-fixture.ts writeFixture(file, 300) (two
  // runs: the small one with plans, failures, an escalation; one of 300 events); its .json holds the
  // size and sha256 of each export that the export before streaming (commit 930406e) wrote for it
  // (the MCAP files' since the failure record's schema gained 'overturned', moved_m and stalled:
  // only the embedded JSON schema differs, +328 bytes; and since the executor's events gained
  // 'recovery', moved_m and to: the checkpoint schema, 113 bytes longer, embedded twice, +226; and
  // since failure records gained the kind 'safety' and `at`, and run_end the outcome 'safety': the
  // failure record's, the escalation's and run_end's schemas, 174 bytes longer, embedded twice, +348; since
  // failure records gained the stage 'rule' and `rule`, and escalations the cause 'rule-violation': +1702; and
  // since the replay places a plan node the log does not place along the maze's corridors: one node's
  // position in the MCAP's scene, the same size).
  const golden = JSON.parse(readFileSync(fixture('export-golden.json'), 'utf8')) as Golden;
  const d = mkdtempSync(join(tmpdir(), 'witness-export-golden-'));
  try {
    copyFileSync(fixture('export-golden.sqlite'), join(d, 'a.sqlite'));
    const db = openAuditReadOnly(join(d, 'a.sqlite'));
    try {
      for (const format of ['jsonl', 'csv', 'mcap'] as const) await exportAudit(db, format, join(d, `all.${format}`));
      for (const format of ['jsonl', 'mcap'] as const)
        await exportAudit(db, format, join(d, `run1.${format}`), golden.runs.one);
    } finally {
      db.close();
    }
    for (const [name, want] of Object.entries(golden.outputs)) {
      assert.deepEqual({ bytes: readFileSync(join(d, name)).length, sha256: sha256(join(d, name)) }, want, name);
    }
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('an empty log: JSON Lines of one empty line and a CSV header, as before; the summary counts 0 events', async () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-export-empty-'));
  try {
    await AuditLog.open(join(d, 'a.sqlite')).close();
    const db = openAuditReadOnly(join(d, 'a.sqlite'));
    try {
      assert.equal(await exportAudit(db, 'jsonl', join(d, 'a.jsonl')), '0 events');
      assert.equal(await exportAudit(db, 'csv', join(d, 'a.csv')), '0 events');
    } finally {
      db.close();
    }
    assert.equal(readFileSync(join(d, 'a.jsonl'), 'utf8'), '\n');
    assert.equal(
      readFileSync(join(d, 'a.csv'), 'utf8'),
      'seq,run_id,t_ms,step,kind,tool,failure_label,prev_hash,hash,body\n',
    );
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a streamed write that fails midway leaves neither the file nor a temporary; an existing file stays as it was', async () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-stream-fail-'));
  try {
    const target = join(d, 'out.jsonl');
    await assert.rejects(
      writeAtomicStream(
        target,
        async (sink) => {
          for (let i = 0; i < 5000; i++) await sink.write(`${'x'.repeat(100)}\n`);
          throw new Error('cancelled');
        },
        { blockBytes: 4096 },
      ),
      (e: unknown) => e instanceof Error && e.message === 'cancelled' && !(e instanceof FileError),
      "the producer's own error, not a write error naming the target",
    );
    assert.deepEqual(readdirSync(d), []);
    await writeAtomicStream(target, async (sink) => {
      await sink.write('old\n');
    });
    await assert.rejects(
      writeAtomicStream(target, async (sink) => {
        await sink.write(new Uint8Array(100_000));
        throw new Error('cancelled');
      }),
      /cancelled/,
    );
    assert.deepEqual(readdirSync(d), ['out.jsonl']);
    assert.equal(readFileSync(target, 'utf8'), 'old\n');
    // Strings and bytes mixed in one block come out in order.
    await writeAtomicStream(target, async (sink) => {
      await sink.write('a');
      await sink.write(new TextEncoder().encode('é'));
      await sink.write('c');
      assert.equal(sink.bytes, 4);
    });
    assert.equal(readFileSync(target, 'utf8'), 'aéc');
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

/** Size of the JSON Lines export in the memory test, in MB (WITNESS_EXPORT_HEAP_TEST_MB; default 150). */
const EXPORT_MB = Number(process.env['WITNESS_EXPORT_HEAP_TEST_MB'] ?? 150);

test(`a JSON Lines export of ~${EXPORT_MB} MB (and its MCAP) runs in a 64 MB heap, and the heap grows by far less than the file`, async (t) => {
  const d = mkdtempSync(join(tmpdir(), 'witness-export-heap-'));
  try {
    const file = join(d, 'a.sqlite');
    const log = AuditLog.open(file);
    const run = await log.startRun({
      world: 'pointmaze-medium',
      backend: 'mujoco',
      operator: 'ada',
      software: 'test',
      models: {},
      spec: 'G F e1',
    });
    await log.close();
    // Events straight into the table (the export reads rows; it does not check the chain): ~1.2 kB a line.
    const pad = 'p'.repeat(1000);
    const n = Math.ceil((EXPORT_MB * 1e6) / 1250);
    const w = new Database(file);
    const insert = w.prepare(
      'INSERT INTO events (seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?)',
    );
    const h = 'a'.repeat(64);
    w.transaction(() => {
      for (let i = 0; i < n; i++)
        insert.run(i + 2, run, 1_700_000_000_000 + i, i, 'monitor_event', JSON.stringify({ i, pad }), h, h);
    })();
    w.close();
    const child = fileURLToPath(new URL('./export-heap-child.js', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--max-old-space-size=64', child, file, join(d, 'a.jsonl')],
      { timeout: 120_000 },
    );
    const r = JSON.parse(stdout) as { summary: string; bytes: number; heapBefore: number; heapPeak: number };
    t.diagnostic(
      `${r.bytes} bytes of JSON Lines; heap ${(r.heapBefore / 2 ** 20).toFixed(1)} MiB before, peak ${(r.heapPeak / 2 ** 20).toFixed(1)} MiB`,
    );
    assert.equal(r.summary, `${n + 1} events`);
    assert.ok(r.bytes > EXPORT_MB * 1e6 * 0.95, `the export is ${r.bytes} bytes`);
    // A quarter of the file: growth measured 11–17 MB for ~160 MB outputs (GC timing varies by machine);
    // an export that held its output would need at least the whole file, and could not run in this heap.
    assert.ok(
      r.heapPeak - r.heapBefore < r.bytes / 4,
      `heap grew by ${r.heapPeak - r.heapBefore} bytes for a ${r.bytes}-byte file`,
    );
    // MCAP of the same log in the same heap: the writer's chunks go out as they fill, and the replay
    // that places the plans' scenes keeps no monitor events (replay.ts placementOnly).
    const m = JSON.parse(
      (
        await promisify(execFile)(
          process.execPath,
          ['--max-old-space-size=64', child, file, join(d, 'a.mcap'), 'mcap'],
          { timeout: 120_000 },
        )
      ).stdout,
    ) as typeof r;
    t.diagnostic(
      `${m.bytes} bytes of MCAP; heap ${(m.heapBefore / 2 ** 20).toFixed(1)} MiB before, peak ${(m.heapPeak / 2 ** 20).toFixed(1)} MiB`,
    );
    assert.match(m.summary, new RegExp(`^${n + 1} messages`));
    assert.ok(
      m.heapPeak - m.heapBefore < m.bytes / 4,
      `heap grew by ${m.heapPeak - m.heapBefore} bytes for a ${m.bytes}-byte MCAP`,
    );
    assert.deepEqual(
      readdirSync(d).filter((f) => f.includes('.tmp-')),
      [],
      'no temporary left',
    );
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

/**
 * Ctrl-C and SIGTERM end every long or blocking command within 2 s, including while a synchronous
 * read, decode or computation runs (a translation, a hash-chain verification over SQLite, a big map
 * image decoded and turned into a graph), with the documented end (exit 130 / 143, or by the signal
 * itself, which a shell reports as 130 / 143), and no temporary file is left in the output folder —
 * also when the signal lands while the output is being written (an export streaming to its
 * temporary sibling, a bag import).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../../main/services/audit/store.js';
import { writeBag } from '../../main/bench/rosbag-bench.js';
import { heldOpen } from '../platform/held-open.js';
import { type Sig, type Spawned, endedBy, temporaries, witness } from './signal-end.js';
import { asset } from './harness.js';

/** The bound the issue sets: the process has ended 2 s after the signal. */
const BOUND_MS = 2000;
const SIGNALS: readonly Sig[] = ['SIGTERM', 'SIGINT'];

const scratch = (name: string): string => mkdtempSync(join(tmpdir(), `witness-signal-${name}-`));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Signals `w` once `ready` resolves (the work under way), and checks the end: within the bound, as documented, nothing
 * temporary left in `out`.
 */
async function endsWithin(
  w: Spawned,
  sig: Sig,
  ready: Promise<unknown>,
  out: string | null,
  what: string,
): Promise<void> {
  try {
    await Promise.race([ready, w.exited]);
    assert.equal(
      w.child.exitCode,
      null,
      `${what}: finished before the signal (the input is too small to test this): ${w.err()}`,
    );
    const r = await w.signal(sig, 30_000);
    assert.ok(
      r.ms <= BOUND_MS,
      `${what}: ended ${r.ms === Infinity ? 'never (killed after 30 s)' : `${Math.round(r.ms)} ms`} after ${sig}, over ${BOUND_MS} ms: ${r.err.slice(-300)}`,
    );
    assert.ok(endedBy(sig, r), `${what}: exit ${r.code}, signal ${r.signal} after ${sig}: ${r.err.slice(-300)}`);
    if (out !== null) assert.deepEqual(temporaries(out), [], `${what}: temporary files left in ${out}`);
  } finally {
    w.child.kill('SIGKILL');
  }
}

/** A formula whose translation takes many seconds of synchronous work (11 untils and a recurrence). */
const SLOW_LTL = `${Array.from({ length: 11 }, (_, i) => `(a${i} U b${i})`).join(' & ')} & G F c`;

test(
  '`witness ltl translate` ends within 2 s of Ctrl-C or SIGTERM in the middle of a long synchronous translation',
  { timeout: 120_000 },
  async () => {
    for (const sig of SIGNALS) {
      const w = witness(['ltl', 'translate', SLOW_LTL, '--time-limit-ms', '120000', '--max-states', '1000000']);
      await endsWithin(w, sig, sleep(1500), null, `ltl translate (${sig})`);
    }
  },
);

test(
  '`witness audit verify` ends within 2 s of a signal while it verifies a big log; `audit export` ends within 2 s while it streams, its temporary file removed',
  { timeout: 300_000 },
  async () => {
    const dir = scratch('audit');
    try {
      const db = join(dir, 'audit.sqlite');
      const log = AuditLog.open(db);
      const run = await log.startRun({
        world: 'tabletop',
        backend: 'mujoco',
        operator: 'ada',
        software: 'witness test',
        models: {},
        spec: 'x',
      });
      for (let i = 0; i < 300_000; i += 5000)
        await Promise.all(
          Array.from({ length: 5000 }, (_, k) =>
            log.append(run, 'evidence', { i: i + k, note: 'x'.repeat(100) }, { step: i + k }),
          ),
        );
      await log.close();
      for (const sig of SIGNALS) {
        const w = witness(['audit', 'verify', db]);
        await endsWithin(w, sig, heldOpen(db, { pid: w.child.pid! }), null, `audit verify (${sig})`);
      }
      const out = join(dir, 'out');
      mkdirSync(out);
      for (const [sig, format] of [
        ['SIGTERM', 'mcap'],
        ['SIGINT', 'jsonl'],
      ] as const) {
        const w = witness(['audit', 'export', db, '--format', format, '--out', join(out, `a.${format}`)]);
        await endsWithin(w, sig, appears(out, w), out, `audit export --format ${format} (${sig})`);
        assert.deepEqual(readdirSync(out), [], 'no export, whole or partial');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/** Resolves once a temporary file of an atomic write is in `dir` (the signal then lands while it is written). */
async function appears(dir: string, w: Spawned): Promise<void> {
  while (w.child.exitCode === null && w.child.signalCode === null) {
    if (temporaries(dir).length > 0) return;
    await sleep(5);
  }
}

test(
  '`witness graph from-map` of a big map image ends within 2 s of a signal while it decodes and builds, leaving no graph and no temporary',
  { timeout: 300_000 },
  async () => {
    const dir = scratch('map');
    try {
      // 6000 × 6000 free pixels at 5 cm: a 300 m square floor, the shipped lab's regions in its corner.
      const side = 6000;
      writeFileSync(
        join(dir, 'lab.pgm'),
        Buffer.concat([Buffer.from(`P5\n${side} ${side}\n255\n`), Buffer.alloc(side * side, 254)]),
      );
      writeFileSync(
        join(dir, 'lab.yaml'),
        'image: lab.pgm\nmode: trinary\nresolution: 0.05\norigin: [-2.0, -2.0, 0.0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n',
      );
      copyFileSync(asset('maps/lab-regions.json'), join(dir, 'lab-regions.json'));
      const out = join(dir, 'out');
      mkdirSync(out);
      for (const sig of SIGNALS) {
        const w = witness([
          'graph',
          'from-map',
          join(dir, 'lab.yaml'),
          '--regions',
          join(dir, 'lab-regions.json'),
          '--out',
          join(out, 'g.json'),
        ]);
        await endsWithin(w, sig, sleep(2000), out, `graph from-map (${sig})`);
        assert.deepEqual(readdirSync(out), [], 'no graph, whole or partial');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  '`witness data import` of a big bag (MCAP, .db3) ends within 2 s of a signal while it reads and decodes, leaving no dataset and no temporary',
  { timeout: 300_000 },
  async () => {
    const dir = scratch('bag');
    try {
      const bags = { mcap: join(dir, 'big.mcap'), db3: join(dir, 'big.db3') };
      await writeBag(bags.mcap, 120 * 1024 * 1024, 'mcap');
      await writeBag(bags.db3, 120 * 1024 * 1024, 'sqlite3');
      const out = join(dir, 'out');
      mkdirSync(out);
      for (const [sig, bag] of [
        ['SIGTERM', bags.mcap],
        ['SIGINT', bags.db3],
        ['SIGINT', bags.mcap],
        ['SIGTERM', bags.db3],
      ] as const) {
        const w = witness([
          'data',
          'import',
          bag,
          '--world',
          'pointmaze-medium',
          '--pose-topic',
          '/odom',
          '--action-topic',
          '/cmd_vel',
          '--out',
          join(out, 'd.wds'),
        ]);
        await endsWithin(w, sig, heldOpen(bag, { pid: w.child.pid! }), out, `data import ${bag} (${sig})`);
        assert.deepEqual(readdirSync(out), [], 'no dataset, whole or partial');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

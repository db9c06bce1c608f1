/**
 * Inputs that never end or are not files: a folder, /dev/zero and a FIFO given
 * where a file is expected, across the commands that read files. Each ends with exit 2 and a message
 * naming the file (never 70, never unbounded memory), and Ctrl-C / SIGTERM end a process that waits
 * on a FIFO nobody writes to.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { run } from '../../main/cli/main.js';
import { heldOpen } from '../platform/held-open.js';
import { cdr, craftMcap, heldChunk, looseDb3, schemaMcap, u32 } from '../services/datasets/hostile-bags.js';
import { pgmHeader, pngFile } from '../services/maps/hostile-images.js';
import { type Ended, type Sig, endedBy, witness } from './signal-end.js';

const asset = (rel: string): string => fileURLToPath(new URL(`../../../assets/${rel}`, import.meta.url));
const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '',
    err = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await run(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    stdin,
  });
  return { code, out, err };
}

function fifo(dir: string, name: string): string {
  const file = join(dir, name);
  assert.equal(spawnSync('mkfifo', [file]).status, 0, 'mkfifo');
  return file;
}

/**
 * A scratch folder with a folder, a FIFO nobody writes to, /dev/zero under an .npz name, the
 * tabletop's tool folder, and a tool folder whose place.json is a FIFO.
 */
function scene(): { dir: string; folder: string; fifo: string; zeroNpz: string; tools: string; fifoTools: string } {
  const dir = mkdtempSync(join(tmpdir(), 'witness-hostile-'));
  const folder = join(dir, 'folder.json');
  mkdirSync(folder);
  const tools = join(dir, 'tools'),
    fifoTools = join(dir, 'fifo-tools');
  mkdirSync(tools);
  mkdirSync(fifoTools);
  for (const f of ['pick.json', 'place.json']) copyFileSync(asset(`tools/${f}`), join(tools, f));
  copyFileSync(asset('tools/pick.json'), join(fifoTools, 'pick.json'));
  fifo(fifoTools, 'place.json');
  const zeroNpz = join(dir, 'zero.npz');
  symlinkSync('/dev/zero', zeroNpz);
  return { dir, folder, fifo: fifo(dir, 'never.json'), zeroNpz, tools, fifoTools };
}

const FOLDER = /^error: \S+: is a folder, not a file\n$/;
const SPEC = ['--spec', 'F dock'];
const ACT = ['--world', 'tabletop', '--goal', 'objects.red_mug.on == "tray"', '--no-audit'];

test('a folder where a file is expected: exit 2 naming it, in every command that reads files', async () => {
  const s = scene();
  const lab = asset('maps/lab.yaml'),
    labRegions = asset('maps/lab-regions.json');
  const cases: string[][] = [
    ['plan', '--graph', s.folder, ...SPEC],
    ['graph', 'info', s.folder],
    ['graph', 'from-map', s.folder, '--regions', labRegions, '--out', join(s.dir, 'g.json')],
    ['graph', 'from-map', lab, '--regions', s.folder, '--out', join(s.dir, 'g.json')],
    ['ltl', 'check', '--file', s.folder, '--cycle', 'a'],
    ['act', ...ACT, '--tools', s.tools, '--plan', s.folder],
    ['data', 'info', s.folder],
    ['data', 'import', s.folder, '--world', 'pointmaze-medium', '--out', join(s.dir, 'x.wds')],
    ['world', 'check', s.folder],
  ];
  for (const argv of cases) {
    const r = await cli(...argv);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.err}`);
    assert.match(r.err, FOLDER, argv.join(' '));
    assert.ok(r.err.includes(s.folder), argv.join(' '));
  }
});

test('/dev/zero where a file is expected: cut at the limit of what it is, exit 2', async () => {
  const s = scene();
  const cases: [string[], RegExp][] = [
    [['plan', '--graph', '/dev/zero', ...SPEC], /larger than 64 MB \(the limit for a graph\)/],
    [['graph', 'info', '/dev/zero'], /larger than 64 MB \(the limit for a graph\)/],
    [
      ['graph', 'from-map', asset('maps/lab.yaml'), '--regions', '/dev/zero', '--out', join(s.dir, 'g.json')],
      /larger than 16 MB \(the limit for a regions file\)/,
    ],
    [['ltl', 'parse', '--file', '/dev/zero'], /larger than 1 MB \(the limit for a formula file\)/],
    [['act', ...ACT, '--tools', s.tools, '--plan', '/dev/zero'], /larger than 16 MB \(the limit for a scripted plan\)/],
    [['world', 'check', '/dev/zero'], /larger than 16 MB \(the limit for a maze layout\)/],
  ];
  for (const [argv, why] of cases) {
    const r = await cli(...argv);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.err}`);
    assert.match(r.err, new RegExp(`^error: /dev/zero: ${why.source}`), argv.join(' '));
  }
  const before = process.env['WITNESS_MAX_DATASET_MB'];
  process.env['WITNESS_MAX_DATASET_MB'] = '4';
  try {
    for (const [argv, file] of [
      [['data', 'info', '/dev/zero'], '/dev/zero'],
      [['data', 'import', s.zeroNpz, '--world', 'pointmaze-medium', '--out', join(s.dir, 'x.wds')], s.zeroNpz],
    ] as const) {
      const r = await cli(...argv);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.err}`);
      assert.equal(
        r.err,
        `error: ${file}: larger than 4 MB (the limit for a dataset; set WITNESS_MAX_DATASET_MB to raise it)\n`,
      );
    }
  } finally {
    if (before === undefined) delete process.env['WITNESS_MAX_DATASET_MB'];
    else process.env['WITNESS_MAX_DATASET_MB'] = before;
  }
});

test('a tool file that is a FIFO is refused at once (tool files are read while the tools are checked)', async () => {
  const s = scene();
  const r = await cli('act', ...ACT, '--tools', s.fifoTools, '--plan', join(s.dir, 'nope.json'));
  assert.equal(r.code, 2, r.err);
  assert.match(
    r.err,
    /place\.json: is not a regular file \(a pipe or a device\): a tool file is read at once; give a regular file/,
  );
});

test('a FIFO with a writer reads like a file (process substitution keeps working)', async () => {
  const s = scene();
  const p = fifo(s.dir, 'graph.json');
  const planning = cli('plan', '--graph', p, ...SPEC);
  await heldOpen(p); // the command has opened the FIFO and waits for its writer
  await writeFile(p, await import('node:fs/promises').then((f) => f.readFile(asset('graphs/warehouse.json'))));
  const r = await planning;
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /prefix {3}dock/);
});

/** Resolves once the child holds `file` open, so the signal lands while it waits on it. */
const opened = (child: ChildProcess, file: string): Promise<void> =>
  heldOpen(file, {
    pid: child.pid!,
    gone: () => (child.exitCode !== null ? `exited early with ${child.exitCode}` : null),
  });

async function interrupted(argv: string[], file: string, signal: Sig): Promise<Ended> {
  const w = witness(argv);
  try {
    await opened(w.child, file);
    // Generous: it ends at once; a process held by a blocked read would never end.
    const r = await w.signal(signal, 20_000);
    assert.notEqual(r.ms, Infinity, `still running 20 s after ${signal}: ${r.err}`);
    return r;
  } finally {
    w.child.kill('SIGKILL');
  }
}

test('Ctrl-C ends `witness plan --graph FIFO` while it waits for a writer: at once, by the signal (a shell shows 130)', async () => {
  const s = scene();
  const r = await interrupted(['plan', '--graph', s.fifo, ...SPEC], s.fifo, 'SIGINT');
  assert.ok(endedBy('SIGINT', r), `exit ${r.code}, signal ${r.signal}: ${r.err}`);
});

test('SIGTERM ends `witness plan --graph FIFO` while it waits for a writer: at once, by the signal (a shell shows 143)', async () => {
  const s = scene();
  const r = await interrupted(['plan', '--graph', s.fifo, ...SPEC], s.fifo, 'SIGTERM');
  assert.ok(endedBy('SIGTERM', r), `exit ${r.code}, signal ${r.signal}: ${r.err}`);
});

test('signals end other commands waiting on a FIFO too: ltl --file (SIGTERM), data import (Ctrl-C)', async () => {
  const s = scene();
  const ltl = await interrupted(['ltl', 'check', '--file', s.fifo, '--cycle', 'a'], s.fifo, 'SIGTERM');
  assert.ok(endedBy('SIGTERM', ltl), `exit ${ltl.code}, signal ${ltl.signal}: ${ltl.err}`);
  const npz = fifo(s.dir, 'never.npz');
  const data = await interrupted(
    ['data', 'import', npz, '--world', 'pointmaze-medium', '--out', join(s.dir, 'x.wds')],
    npz,
    'SIGINT',
  );
  assert.ok(endedBy('SIGINT', data), `exit ${data.code}, signal ${data.signal}: ${data.err}`);
  assert.deepEqual(
    readdirSync(s.dir).filter((f) => f.endsWith('.wds') || f.includes('.tmp-')),
    [],
    'nothing written',
  );
});

test('`witness plan --graph /dev/zero` as a process: exit 2, and it ends', () => {
  const r = spawnSync(process.execPath, [BIN, 'plan', '--graph', '/dev/zero', ...SPEC], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, 'error: /dev/zero: larger than 64 MB (the limit for a graph)\n');
});

/**
 * Starts `witness ARGV`, sends SIGTERM once stderr shows `ready`, and expects it ended by the signal within 20 s with
 * nothing left in `dir`.
 */
async function terminatedWhileWorking(argv: string[], ready: RegExp, dir: string): Promise<void> {
  const w = witness(argv);
  const started = new Promise<void>((r) =>
    w.child.stderr!.on('data', () => {
      if (ready.test(w.err())) r();
    }),
  );
  try {
    await Promise.race([started, w.exited]);
    assert.equal(w.child.exitCode, null, `exited before the work began: ${w.err()}`);
    const r = await w.signal('SIGTERM', 20_000);
    assert.notEqual(r.ms, Infinity, `still working 20 s after SIGTERM: ${r.err}`);
    assert.ok(endedBy('SIGTERM', r), `exit ${r.code}, signal ${r.signal}: ${r.err}`);
    assert.deepEqual(readdirSync(dir), [], 'nothing, whole or partial, is left behind');
  } finally {
    w.child.kill('SIGKILL');
  }
}

test('SIGTERM ends `witness data gen` of a million Ant transitions while it simulates (about 12 minutes of work): ended by the signal within seconds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-gen-term-'));
  await terminatedWhileWorking(
    ['data', 'gen', 'antmaze-medium', '--kind', 'navigate', '--steps', '1000000', '--out', join(dir, 'ant.wds')],
    /\d+%/,
    dir,
  );
});

test('SIGTERM ends `witness backbone train` while it trains ψ: ended by the signal within seconds, no bundle', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-train-term-'));
  await terminatedWhileWorking(
    ['backbone', 'train', '--world', 'pointmaze-medium', '--dataset-steps', '3000', '--out', join(dir, 'models')],
    /train embed: /,
    dir,
  );
});

// Files that declare more than they hold (issue: every reader bounded): a rosbag2 bag or a map image
// whose headers claim sizes, counts or lengths that would make the reader allocate or inflate without
// end. Each is refused at once — exit 2, naming the file and the limit — by the real command, in a
// process of its own whose peak memory is measured (the fuzz suite's child reports it).

const FUZZ_CHILD = fileURLToPath(new URL('../fuzz/child.js', import.meta.url));
const MiB = 2 ** 20;

/** Runs `witness ARGV` in a process of its own: exit code, stderr, wall time and peak resident set. */
function measured(argv: string[]): {
  code: number | null;
  signal: string | null;
  err: string;
  ms: number;
  rssMb: number | null;
} {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [FUZZ_CHILD, ...argv], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const m = /fuzz-peak-rss-kib (\d+)/.exec(r.stderr);
  return {
    code: r.status,
    signal: r.signal,
    err: r.stderr.replace(/\n?fuzz-peak-rss-kib \d+\n?/, ''),
    ms: performance.now() - t0,
    rssMb: m ? Number(m[1]) / 1024 : null,
  };
}

/** `witness ARGV` refuses `file` with exit 2, its message naming the file and matching `why`, within 60 s and 1 GiB. */
function refusedWithin(argv: string[], file: string, why: RegExp): void {
  const r = measured(argv);
  const what = `${argv.slice(0, 2).join(' ')} ${file}`;
  assert.equal(r.signal, null, `${what}: ended by ${r.signal} after ${r.ms.toFixed(0)} ms: ${r.err.slice(-300)}`);
  assert.ok(r.rssMb !== null && r.rssMb < 1024, `${what}: peak ${r.rssMb?.toFixed(0)} MiB`);
  assert.equal(r.code, 2, `${what}: ${r.err.slice(-500)}`);
  assert.ok(r.err.startsWith('error: ') && r.err.includes(file), `${what}: ${r.err}`);
  assert.match(r.err, why, what);
}

const importArgs = (bag: string, dir: string): string[] => [
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
  join(dir, 'x.wds'),
];

test('rosbag2 bags that declare more than they hold: exit 2 naming the file and the limit, in bounded time and memory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-hostile-bags-'));
  // Twelve chunks of 100 MiB each (a few kilobytes of zstd apiece) whose time ranges overlap: a reader merging them in
  // time order holds them all.
  const held = join(dir, 'held.mcap');
  writeFileSync(held, craftMcap(Array.from({ length: 12 }, () => heldChunk(100 * MiB))));
  refusedWithin(importArgs(held, dir), held, /over 256 MB \(the limit for the chunks held at once\)/);
  refusedWithin(['data', 'info', held], held, /the limit for the chunks held at once/);
  const big = join(dir, 'big.mcap');
  writeFileSync(big, craftMcap([heldChunk(600 * MiB)]));
  refusedWithin(importArgs(big, dir), big, /declares 600 MB inflated, over 128 MB \(the limit for one chunk\)/);
  // A sequence of 2^32 − 1 elements that take no bytes.
  const zero = join(dir, 'zero.mcap');
  schemaMcap(zero, 'nav_msgs/msg/Odometry', `Z[] items\n${'='.repeat(80)}\nMSG: p/Z\nuint8[0] nothing\n`, [
    cdr(...u32(0xffffffff)),
  ]);
  refusedWithin(
    importArgs(zero, dir),
    zero,
    /field items: 4294967295 elements of zero size are more than the 1048576 values one message may decode \(the limit for a decoded message\)/,
  );
  // A .db3 whose every message body is computed by the file's own SQL: 100 MB of zeros a row.
  const gen = join(dir, 'gen.db3');
  looseDb3(gen, [], {
    messagesTable:
      'CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL);',
    generatedData: true,
  });
  refusedWithin(importArgs(gen, dir), gen, /the messages table has generated columns \(data\)/);
  const nullTs = join(dir, 'null-ts.db3');
  looseDb3(nullTs, [{ topic: '/cmd_vel', timestamp: null, data: Buffer.from(cdr(0)) }]);
  refusedWithin(
    importArgs(nullTs, dir),
    nullTs,
    /topic \/cmd_vel: the message with id 20 has a timestamp that is NULL, not an integer number of nanoseconds/,
  );
  // A bag folder whose storage file is a link out of it.
  const bag = join(dir, 'linked');
  mkdirSync(bag);
  writeFileSync(join(dir, 'outside.db3'), '');
  looseDb3(join(dir, 'outside.db3'));
  symlinkSync(join(dir, 'outside.db3'), join(bag, 'linked_0.db3'));
  writeFileSync(
    join(bag, 'metadata.yaml'),
    'rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n  relative_file_paths:\n    - linked_0.db3\n',
  );
  refusedWithin(importArgs(bag, dir), bag, /linked_0\.db3 leads to .*outside\.db3, outside the bag folder/);
});

test('map images that declare more than they hold: `graph from-map` exits 2 naming the map, the image and the limit, in bounded time and memory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-hostile-maps-'));
  const cases: [string, Uint8Array, RegExp][] = [
    [
      'huge.pgm',
      pgmHeader(100_000, 100_000),
      /P5: 100000×100000 is 10000000000 pixels, over 67108864 \(the limit for a map image/,
    ],
    [
      'huge.png',
      pngFile({ width: 100_000, height: 100_000 }),
      /PNG: 100000×100000 is 10000000000 pixels, over 67108864/,
    ],
    [
      'bomb.png',
      pngFile({ width: 1, height: 1, interlaced: true }, new Uint8Array(64 * MiB)),
      /PNG: its interlaced image data inflates past the 2 bytes its 1×1 header allows/,
    ],
  ];
  for (const [name, bytes, why] of cases) {
    const sub = join(dir, name.replace('.', '-'));
    mkdirSync(sub);
    writeFileSync(join(sub, name), bytes);
    const yaml = join(sub, 'lab.yaml');
    writeFileSync(
      yaml,
      `image: ${name}\nresolution: 0.05\norigin: [-2.0, -2.0, 0.0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n`,
    );
    refusedWithin(
      ['graph', 'from-map', yaml, '--regions', asset('maps/lab-regions.json'), '--out', join(sub, 'g.json')],
      join(sub, name),
      why,
    );
  }
});

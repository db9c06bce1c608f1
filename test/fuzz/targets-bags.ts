/**
 * Fuzzing targets for the sizes foreign files declare (rosbag2 bags and map images), in both tiers:
 * - mcap-chunks: MCAP files whose chunks and chunk indexes are generated with mutated headers —
 *   declared inflated sizes that lie (in the index, the record or both), compressions MCAP does not
 *   define or that do not match the data, chunks indexed several times, overlapping in time or in
 *   bytes, zstd frames that inflate to hundreds of megabytes, one index field set to an extreme;
 * - cdr-zero-size: ROS 2 schemas with elements that take no bytes (`uint8[0]` inside), in sequences
 *   and fixed arrays, decoded from CDR whose sequence lengths are extreme (up to 2^32 − 1);
 * - image-headers: PGM, PNG and BMP headers with extreme sizes, depths, colour types and interlacing,
 *   over data that is missing, a little, or a deflate bomb;
 * - db3-schema: rosbag2 .db3 files that carry their own SQL — generated columns (computing hundreds
 *   of megabytes a row), a view or a virtual table in place of a table, triggers — and rows of any
 *   type (a NULL, text or real timestamp, a NULL, text or oversized body).
 * The in-process targets also hold each case to the spawned tier's bounds (60 s, and the process
 * growing by no more than RSS_GROWTH_MB): a reader that inflates or loops without end is a bug here
 * even when it ends with a refusal.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import * as zstd from '@foxglove/wasm-zstd';
import { importBag } from '../../main/app/bag-import.js';
import { readMap } from '../../main/services/maps/read.js';
import { T0_NS, driveMessages } from '../services/datasets/rosbag2-fixtures.js';
import {
  type CraftChunk,
  craftMcap,
  driveChunk,
  heldChunk,
  schemaMcap,
  zstdFrame,
} from '../services/datasets/hostile-bags.js';
import { bmp1, pgmHeader, pngFile } from '../services/maps/hostile-images.js';
import type { CliTarget } from './cli-targets.js';
import type { Target } from './targets.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const MiB = 2 ** 20;
/**
 * The spawned tier's bounds, held in process: a case's time, and how far it may grow the process's peak resident set.
 */
const CASE_MS = 60_000;
const RSS_GROWTH_MB = 768;

/**
 * Runs a case and fails it (an Error, which the harness counts as a bug) when it ran past the bounds, however it ended.
 */
async function bounded<T>(what: string, run: () => Promise<T>): Promise<T> {
  const before = process.memoryUsage().rss / MiB,
    t0 = performance.now();
  let outcome: { value: T } | { error: unknown };
  try {
    outcome = { value: await run() };
  } catch (e) {
    outcome = { error: e };
  }
  const ms = performance.now() - t0,
    peak = process.resourceUsage().maxRSS / 1024;
  if (ms > CASE_MS) throw new Error(`${what}: took ${ms.toFixed(0)} ms, over ${CASE_MS} ms`);
  if (peak - before > RSS_GROWTH_MB)
    throw new Error(
      `${what}: grew the process from ${before.toFixed(0)} to ${peak.toFixed(0)} MiB, more than ${RSS_GROWTH_MB} MiB`,
    );
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
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
  path.join(dir, 'd.wds'),
];
const importIn = (bag: string, dir: string): Promise<unknown> =>
  importBag(bag, {
    world: 'pointmaze-medium',
    poseTopic: '/odom',
    actionTopic: '/cmd_vel',
    out: path.join(dir, 'd.wds'),
  });

// ---- MCAP chunk headers and compression ----

/** One generated chunk; numbers only (the harness prints an input as JSON). */
interface ChunkSpec {
  readonly body: 'drive' | 'zeros' | 'held';
  /** Inflated size of zeros or a held chunk. */
  readonly size: number;
  readonly compression: string;
  /** What the chunk declares it inflates to, against what it does. */
  readonly declare: 'true' | 'zero' | 'half' | 'double' | 'u32' | 'huge';
  /** Where the declared size stands: the index, the chunk's record, or both. */
  readonly lie: 'index' | 'record' | 'both';
  readonly indexed: number;
  /** Start (s after T0) and length (s) of its time range. */
  readonly start: number;
  readonly span: number;
}

interface McapSpec {
  readonly chunks: readonly ChunkSpec[];
  /** One chunk index field set to an extreme value. */
  readonly field: {
    readonly chunk: number;
    readonly name:
      | 'chunkStartOffset'
      | 'chunkLength'
      | 'compressedSize'
      | 'messageIndexLength'
      | 'messageStartTime'
      | 'messageEndTime';
    readonly value: number;
  } | null;
}

const EXTREMES = [0, 1, 0x7fffffff, 0xffffffff, 2 ** 40, Number.MAX_SAFE_INTEGER];

const chunkSpec = (sizes: readonly number[]): fc.Arbitrary<ChunkSpec> =>
  fc.record({
    body: fc.constantFrom('drive' as const, 'zeros' as const, 'held' as const),
    size: fc.constantFrom(...sizes),
    compression: fc.oneof(
      { weight: 4, arbitrary: fc.constant('zstd') },
      fc.constantFrom('', 'lz4', 'bz2', 'xz', 'ZSTD'),
    ),
    declare: fc.oneof(
      { weight: 4, arbitrary: fc.constant('true' as const) },
      fc.constantFrom('zero' as const, 'half' as const, 'double' as const, 'u32' as const, 'huge' as const),
    ),
    lie: fc.constantFrom('index' as const, 'record' as const, 'both' as const),
    indexed: fc.oneof({ weight: 5, arbitrary: fc.constant(1) }, fc.constantFrom(2, 8, 64)),
    start: fc.integer({ min: 0, max: 3 }),
    span: fc.integer({ min: 0, max: 3 }),
  });

const mcapSpec = (sizes: readonly number[], most: number): fc.Arbitrary<McapSpec> =>
  fc.record({
    chunks: fc.array(chunkSpec(sizes), { minLength: 1, maxLength: most }),
    field: fc.option(
      fc.record({
        chunk: fc.nat(),
        name: fc.constantFrom(
          'chunkStartOffset' as const,
          'chunkLength' as const,
          'compressedSize' as const,
          'messageIndexLength' as const,
          'messageStartTime' as const,
          'messageEndTime' as const,
        ),
        value: fc.constantFrom(...EXTREMES),
      }),
      { nil: null },
    ),
  });

/**
 * For the spawned tier, whose few cases must each count: chunks of hundreds of megabytes that
 * declare their true size (one, or six to twelve held together), or any generated file.
 */
const hostileMcapSpec = (): fc.Arbitrary<McapSpec> => {
  const held = (size: number): ChunkSpec => ({
    body: 'held',
    size,
    compression: 'zstd',
    declare: 'true',
    lie: 'both',
    indexed: 1,
    start: 0,
    span: 1,
  });
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant({ chunks: [held(600 * MiB)], field: null }) },
    {
      weight: 2,
      arbitrary: fc
        .integer({ min: 6, max: 12 })
        .map((n) => ({ chunks: Array.from({ length: n }, () => held(100 * MiB)), field: null })),
    },
    { weight: 1, arbitrary: mcapSpec([40 * MiB, 100 * MiB, 150 * MiB, 600 * MiB], 12) },
  );
};

function declared(actual: number, d: ChunkSpec['declare']): bigint {
  switch (d) {
    case 'true':
      return BigInt(actual);
    case 'zero':
      return 0n;
    case 'half':
      return BigInt(Math.floor(actual / 2));
    case 'double':
      return BigInt(actual * 2);
    case 'u32':
      return 0xffffffffn;
    default:
      return 2n ** 40n;
  }
}

/** A chunk of a spec (zstd must be loaded: `await zstd.isLoaded`). */
function craftChunk(c: ChunkSpec): CraftChunk {
  const t = T0_NS + BigInt(c.start) * 1_000_000_000n;
  let base: CraftChunk;
  if (c.body === 'drive') {
    base = driveChunk();
    if (c.compression !== '') base = { ...base, stored: new Uint8Array(zstd.compress(base.stored)) };
  } else if (c.body === 'held') {
    base = heldChunk(c.size, t);
  } else {
    const raw = c.compression === '';
    const size = raw ? Math.min(c.size, MiB) : c.size;
    base = {
      stored: raw ? new Uint8Array(size) : zstdFrame(size),
      compression: 'zstd',
      uncompressedSize: BigInt(size),
      start: t,
      end: t + BigInt(c.span) * 1_000_000_000n,
      entries: [[t, 0n]],
    };
  }
  const actual = Number(base.uncompressedSize),
    claim = declared(actual, c.declare);
  return {
    ...base,
    compression: c.compression,
    indexed: c.indexed,
    uncompressedSize: c.lie === 'index' ? BigInt(actual) : claim,
    index: { ...(c.lie === 'record' ? { uncompressedSize: BigInt(actual) } : { uncompressedSize: claim }) },
  };
}

function mcapFile(spec: McapSpec): Uint8Array {
  const chunks = spec.chunks.map(craftChunk);
  if (spec.field !== null) {
    const i = spec.field.chunk % chunks.length,
      c = chunks[i]!;
    chunks[i] = { ...c, index: { ...c.index, [spec.field.name]: BigInt(spec.field.value) } };
  }
  return craftMcap(chunks);
}

// ---- CDR schemas with zero-size elements ----

/** Types that take no bytes, and one that takes one (an empty message), for the generated schemas. */
const ZERO_TYPES = `${'='.repeat(80)}\nMSG: p/Z0\nuint8[0] nothing\n${'='.repeat(80)}\nMSG: p/Z1\np/Z0 inner\np/Z0[3] more\nfloat64[0] none\n${'='.repeat(80)}\nMSG: p/E\n`;
const FIELDS = [
  'p/Z0[] zs',
  'p/Z1[] zs1',
  'p/Z0[4294967295] fixed',
  'p/Z1[1000000] fixed1',
  'p/Z0 z',
  'uint8[0] nothing',
  'p/E[] es',
  'float64[] xs',
  'string[] names',
  'bool[] flags',
  'builtin_interfaces/Time[] times',
  'int32[7] sevens',
  'string label',
];

interface CdrSpec {
  readonly fields: readonly number[];
  readonly counts: readonly number[];
  readonly bigEndian: boolean;
  readonly tail: readonly number[];
}

const cdrSpec: fc.Arbitrary<CdrSpec> = fc.record({
  fields: fc.array(fc.nat({ max: FIELDS.length - 1 }), { minLength: 1, maxLength: 4 }),
  counts: fc.array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(0xffffffff, 0x80000000, 1_048_577, 1 << 20, 65_536) },
      fc.nat({ max: 16 }),
    ),
    { minLength: 1, maxLength: 4 },
  ),
  bigEndian: fc.boolean(),
  tail: fc.array(fc.nat({ max: 255 }), { maxLength: 24 }),
});

function cdrCase(spec: CdrSpec): { schema: string; data: Uint8Array } {
  const schema = `${[...new Set(spec.fields)].map((i) => FIELDS[i]!).join('\n')}\n${ZERO_TYPES}`;
  const bytes = [0, spec.bigEndian ? 0 : 1, 0, 0];
  for (const n of spec.counts)
    bytes.push(
      ...(spec.bigEndian
        ? [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
        : [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24]),
    );
  return { schema, data: Uint8Array.from([...bytes, ...spec.tail]) };
}

// ---- image headers ----

interface ImageSpec {
  readonly format: 'P5' | 'P2' | 'P6' | 'png' | 'bmp';
  readonly width: number;
  readonly height: number;
  /** PGM maxval or PNG bit depth. */
  readonly depth: number;
  readonly colour: number;
  readonly interlace: number;
  readonly body: 'none' | 'some' | 'bomb';
}

const DIMS = [0, 1, 3, 255, 4096, 8193, 65_535, 100_000, 0x7fffffff, 0xffffffff];
const imageSpec = (dims: readonly number[]): fc.Arbitrary<ImageSpec> =>
  fc.record({
    format: fc.constantFrom('P5' as const, 'P2' as const, 'P6' as const, 'png' as const, 'bmp' as const),
    width: fc.oneof(fc.constantFrom(...dims), fc.nat({ max: 64 })),
    height: fc.oneof(fc.constantFrom(...dims), fc.nat({ max: 64 })),
    depth: fc.constantFrom(1, 2, 4, 8, 16, 255, 65_535, 3),
    colour: fc.constantFrom(0, 2, 3, 4, 6, 5),
    interlace: fc.constantFrom(0, 1, 2),
    body: fc.constantFrom('none' as const, 'some' as const, 'bomb' as const),
  });

function imageBytes(s: ImageSpec): Uint8Array {
  const some = new Uint8Array(s.body === 'bomb' ? 16 * MiB : s.body === 'some' ? 64 : 0);
  if (s.format === 'png')
    return pngFile(
      { width: s.width, height: s.height, depth: s.depth, colour: s.colour, interlaced: s.interlace === 1 },
      some.length > 0 ? some : new Uint8Array(1),
    );
  if (s.format === 'bmp') {
    const whole = Math.floor((s.width + 31) / 32) * 4 * s.height <= 16 * MiB && s.width > 0 && s.height > 0;
    if (whole && s.body !== 'none') return bmp1(s.width, s.height);
    const header = bmp1(Math.max(1, Math.min(s.width, 64)), Math.max(1, Math.min(s.height, 64))).slice(0, 62);
    const dv = new DataView(header.buffer);
    dv.setInt32(18, s.width | 0, true);
    dv.setInt32(22, s.height | 0, true);
    return header;
  }
  const header = pgmHeader(s.width, s.height, s.depth).slice(2);
  return Uint8Array.from([
    ...new TextEncoder().encode(s.format),
    ...header,
    ...some.subarray(0, Math.min(some.length, 4096)),
  ]);
}

// ---- .db3 files with SQL of their own ----

/** The messages table as a forger defines it (its columns as the recorder's, in that order). */
const DB3_MESSAGES = [
  'CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp, data)',
  'CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB GENERATED ALWAYS AS (zeroblob(300000000)) VIRTUAL)',
  'CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER GENERATED ALWAYS AS (id * 1000) VIRTUAL, data BLOB)',
  'CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER GENERATED ALWAYS AS (1) STORED, timestamp INTEGER, data BLOB)',
  'CREATE TABLE m(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB); CREATE VIEW messages AS SELECT id, topic_id, timestamp, zeroblob(300000000) AS data FROM m',
  'CREATE VIRTUAL TABLE messages USING fts5(id, topic_id, timestamp, data)',
] as const;
/** And the topics table. */
const DB3_TOPICS = [
  'CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, serialization_format TEXT, offered_qos_profiles TEXT)',
  'CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, serialization_format TEXT, offered_qos_profiles TEXT GENERATED ALWAYS AS (hex(zeroblob(100000000))) VIRTUAL)',
  'CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, type TEXT, serialization_format TEXT, offered_qos_profiles TEXT); CREATE VIEW topics AS SELECT id, name || hex(zeroblob(100000000)) AS name, type, serialization_format, offered_qos_profiles FROM t',
] as const;
/** Triggers, which a reader that only reads never fires. */
const DB3_TRIGGERS = [
  'CREATE TRIGGER forged AFTER INSERT ON schema BEGIN SELECT RAISE(IGNORE); END',
  'CREATE TRIGGER forged2 BEFORE DELETE ON schema BEGIN SELECT length(zeroblob(100000000)); END',
  'CREATE TRIGGER forged3 AFTER UPDATE ON schema BEGIN DELETE FROM schema; END',
];
/** Values a loose messages table may hold where the recorder writes integers and CDR blobs. */
const DB3_STAMPS = [null, 'soon', 1.7e18 + 0.5, -1, 9_223_372_036_854_775_807n, T0_NS + 5n, 0];
/** A body: NULL, text, bytes that are not CDR, none, over the limit for one message, an empty CDR message. */
const DB3_BODIES = [null, 'hello', 'bytes', 'empty', 'over', 'cdr'] as const;

interface Db3Spec {
  readonly messages: number;
  readonly topics: number;
  readonly triggers: readonly number[];
  /** Extra rows: topic (1 /odom, 2 /cmd_vel, 9 none), stamp and body by index. */
  readonly rows: readonly { readonly topic: number; readonly stamp: number; readonly body: number }[];
}

const db3Spec: fc.Arbitrary<Db3Spec> = fc.record({
  messages: fc.nat({ max: DB3_MESSAGES.length - 1 }),
  topics: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.nat({ max: DB3_TOPICS.length - 1 })),
  triggers: fc.array(fc.nat({ max: DB3_TRIGGERS.length - 1 }), { maxLength: 2 }),
  rows: fc.array(
    fc.record({
      topic: fc.constantFrom(1, 2, 9),
      stamp: fc.nat({ max: DB3_STAMPS.length - 1 }),
      // The body over the limit for one message is rare: it writes that much.
      body: fc.oneof(
        { weight: 12, arbitrary: fc.constantFrom(0, 1, 2, 3, 5) },
        { weight: 1, arbitrary: fc.constant(4) },
      ),
    }),
    { maxLength: 3 },
  ),
});

/** A Humble .db3 of the fixture drive as a spec defines its tables, triggers and extra rows. */
function writeDb3Spec(file: string, spec: Db3Spec): void {
  writeFileSync(file, '');
  const db = new Database(file);
  try {
    const messages = DB3_MESSAGES[spec.messages]!,
      topics = DB3_TOPICS[spec.topics]!;
    db.exec(`CREATE TABLE schema(schema_version INTEGER, ros_distro TEXT); ${topics}; ${messages};`);
    db.prepare('INSERT INTO schema VALUES (3, ?)').run('humble');
    const topicsInto = /CREATE VIEW topics/.test(topics) ? 't' : 'topics',
      messagesInto = /CREATE VIEW messages/.test(messages) ? 'm' : 'messages';
    const topicCols = /offered_qos_profiles TEXT GENERATED/.test(topics)
      ? '(id, name, type, serialization_format)'
      : '';
    const topic = db.prepare(
      `INSERT INTO ${topicsInto}${topicCols} VALUES (?, ?, ?, ?${topicCols === '' ? ", ''" : ''})`,
    );
    topic.run(1, '/odom', 'nav_msgs/msg/Odometry', 'cdr');
    topic.run(2, '/cmd_vel', 'geometry_msgs/msg/Twist', 'cdr');
    // The columns a row can be given: a generated one is left out.
    const cols = ['id', 'topic_id', 'timestamp', 'data'].filter(
      (c) => !new RegExp(`\\b${c} \\w+ GENERATED`).test(messages),
    );
    const insert = db.prepare(
      `INSERT INTO ${messagesInto} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    );
    const row = (values: Record<string, unknown>): void => {
      insert.run(...cols.map((c) => values[c] ?? null));
    };
    let id = 1;
    for (const m of driveMessages({ distro: 'humble', pose: 'odometry', action: 'twist' }))
      row({ id: id++, topic_id: m.topic === '/odom' ? 1 : 2, timestamp: m.logTime, data: Buffer.from(m.data) });
    for (const r of spec.rows) {
      const body = DB3_BODIES[r.body]!;
      const data =
        body === null
          ? null
          : body === 'hello'
            ? 'hello'
            : body === 'bytes'
              ? Buffer.alloc(40, 7)
              : body === 'empty'
                ? Buffer.alloc(0)
                : body === 'over'
                  ? Buffer.alloc(129 * MiB)
                  : Buffer.from([0, 1, 0, 0, 0, 0, 0, 0]);
      row({ id: id++, topic_id: r.topic, timestamp: DB3_STAMPS[r.stamp], data });
    }
    for (const t of new Set(spec.triggers)) db.exec(DB3_TRIGGERS[t]!);
  } finally {
    db.close();
  }
}

const MAP_YAML = (image: string): string =>
  `image: ${image}\nresolution: 0.05\norigin: [-2.0, -2.0, 0.0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n`;

/** The in-process targets of this file. */
export function bagTargets(): Target[] {
  return [
    {
      name: 'mcap-chunks',
      reads: 'MCAP chunk headers and indexes (sizes, compression, overlaps) through data import',
      weight: 0.5,
      input: () => mcapSpec([4096, MiB, 40 * MiB, 150 * MiB, 600 * MiB], 6),
      run: (spec, scratch) =>
        bounded('mcap-chunks', async () => {
          const f = path.join(scratch, 'c.mcap');
          await zstd.isLoaded;
          writeFileSync(f, mcapFile(spec as McapSpec));
          return importIn(f, scratch);
        }),
    },
    {
      name: 'cdr-zero-size',
      reads: 'CDR of schemas with zero-size elements (sequence lengths up to 2^32 − 1) through data import',
      weight: 0.5,
      input: () => cdrSpec,
      run: (spec, scratch) =>
        bounded('cdr-zero-size', async () => {
          const { schema, data } = cdrCase(spec as CdrSpec);
          const f = path.join(scratch, 'z.mcap');
          schemaMcap(f, 'nav_msgs/msg/Odometry', schema, [data]);
          return importIn(f, scratch);
        }),
    },
    {
      name: 'db3-schema',
      reads: 'rosbag2 .db3 files with generated columns, views, virtual tables, triggers and loose rows',
      weight: 0.3,
      input: () => db3Spec,
      run: (spec, scratch) =>
        bounded('db3-schema', async () => {
          const f = path.join(scratch, 'b.db3');
          writeDb3Spec(f, spec as Db3Spec);
          return importIn(f, scratch);
        }),
    },
    {
      name: 'image-headers',
      reads: 'map image headers (PGM, PNG, BMP: sizes, depths, colour types, interlacing) through readMap',
      weight: 0.5,
      input: () => imageSpec(DIMS),
      run: (spec, scratch) =>
        bounded('image-headers', async () => {
          writeFileSync(path.join(scratch, 'm.yaml'), MAP_YAML('m.img'));
          writeFileSync(path.join(scratch, 'm.img'), imageBytes(spec as ImageSpec));
          return readMap(path.join(scratch, 'm.yaml'));
        }),
    },
  ] as Target[];
}

/** The spawned targets of this file: the same classes given to the real commands, the hostile sizes more often. */
export function bagCliTargets(): CliTarget[] {
  return [
    {
      name: 'mcap-chunks',
      command: 'witness data import FILE (an MCAP of generated chunk headers) --world pointmaze-medium …',
      exits: [0, 2],
      cases: async () => {
        await zstd.isLoaded;
        return hostileMcapSpec().map((spec) => (dir: string) => {
          const f = path.join(dir, 'c.mcap');
          writeFileSync(f, mcapFile(spec));
          return importArgs(f, dir);
        });
      },
    },
    {
      name: 'cdr-zero-size',
      command:
        'witness data import FILE (an MCAP whose /odom schema has zero-size elements) --world pointmaze-medium …',
      exits: [2],
      cases: () =>
        cdrSpec.map((spec) => (dir: string) => {
          const f = path.join(dir, 'z.mcap');
          const { schema, data } = cdrCase(spec);
          schemaMcap(f, 'nav_msgs/msg/Odometry', schema, [data]);
          return importArgs(f, dir);
        }),
    },
    {
      name: 'db3-schema',
      command:
        'witness data import FILE (a .db3 with generated columns, views, virtual tables, triggers, loose rows) --world pointmaze-medium …',
      exits: [0, 2],
      cases: () =>
        db3Spec.map((spec) => (dir: string) => {
          const f = path.join(dir, 'b.db3');
          writeDb3Spec(f, spec);
          return importArgs(f, dir);
        }),
    },
    {
      name: 'image-headers',
      command: 'witness graph from-map lab.yaml (image: FILE with a generated header) --regions R --out G',
      exits: [0, 2],
      cases: () =>
        imageSpec([8193, 65_535, 100_000, 0x7fffffff, 0xffffffff]).map((spec) => (dir: string) => {
          const name = spec.format === 'png' ? 'lab.png' : spec.format === 'bmp' ? 'lab.bmp' : 'lab.pgm';
          writeFileSync(path.join(dir, name), imageBytes(spec));
          writeFileSync(path.join(dir, 'lab.yaml'), MAP_YAML(name));
          return [
            'graph',
            'from-map',
            path.join(dir, 'lab.yaml'),
            '--regions',
            path.join(ROOT, 'assets/maps/lab-regions.json'),
            '--out',
            path.join(dir, 'g.json'),
          ];
        }),
    },
  ];
}

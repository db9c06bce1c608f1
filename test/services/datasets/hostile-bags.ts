/**
 * Hostile rosbag2 files, written byte by byte where a writer would refuse to: MCAP files whose chunk
 * indexes and chunk headers lie about sizes, offsets and times (through @mcap/core's record builder),
 * zstd frames that inflate to a size of their choosing from a few bytes (RLE blocks), MCAP files whose
 * schema for a topic is any ros2msg text, and .db3 files whose tables have no constraints, generated
 * columns or rows of any type. Used by the reader tests, the CLI tests and the fuzz targets.
 */
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { McapRecordBuilder, type ChunkIndex } from '@mcap/core';
import { T0_NS, driveMessages, ros2msgText } from './rosbag2-fixtures.js';

const ODOM = 'nav_msgs/msg/Odometry',
  TWIST = 'geometry_msgs/msg/Twist';

/**
 * A zstd frame of `size` bytes: `prefix` (a raw block, under 128 KiB), then zero bytes in RLE blocks
 * of 128 KiB, 4 bytes a block: a few kilobytes that inflate to hundreds of megabytes.
 */
export function zstdFrame(size: number, prefix: Uint8Array = new Uint8Array(0)): Uint8Array {
  const BLOCK = 128 * 1024;
  const zeros = size - prefix.length;
  const blocks = Math.ceil(zeros / BLOCK);
  const out = new Uint8Array(13 + (prefix.length > 0 ? 3 + prefix.length : 0) + 4 * blocks);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0xfd2fb528, true);
  out[4] = 0xe0; // an 8-byte content size, single segment
  dv.setBigUint64(5, BigInt(size), true);
  let at = 13;
  const header = (n: number, type: number, last: boolean): void => {
    const h = (n << 3) | (type << 1) | (last ? 1 : 0);
    out[at] = h & 0xff;
    out[at + 1] = (h >> 8) & 0xff;
    out[at + 2] = (h >> 16) & 0xff;
    at += 3;
  };
  if (prefix.length > 0) {
    header(prefix.length, 0, blocks === 0);
    out.set(prefix, at);
    at += prefix.length;
  }
  for (let b = 0; b < blocks; b++) {
    header(Math.min(BLOCK, zeros - b * BLOCK), 1, b === blocks - 1);
    out[at++] = 0;
  }
  return out;
}

/** A zstd frame of `size` zero bytes. */
export const zstdZeros = (size: number): Uint8Array => zstdFrame(size);

/** One chunk of a crafted MCAP file. */
export interface CraftChunk {
  /** The records as stored (compressed as `compression` says). */
  readonly stored: Uint8Array;
  readonly compression: string;
  readonly uncompressedSize: bigint;
  /** The chunk's time range (ns). */
  readonly start: bigint;
  readonly end: bigint;
  /** Message index entries on /odom: [log time, offset in the inflated records]. */
  readonly entries: readonly [bigint, bigint][];
  /** And on /cmd_vel. */
  readonly commands?: readonly [bigint, bigint][];
  /** How many times its chunk index is written (several: the same bytes indexed again). */
  readonly indexed?: number;
  /** Fields of its chunk index that say otherwise than the chunk. */
  readonly index?: Partial<ChunkIndex>;
}

/** A chunk of these messages (in this order), not compressed, with its message indexes. */
function messagesChunk(msgs: readonly { topic: string; logTime: bigint; data: Uint8Array }[]): CraftChunk {
  const b = new McapRecordBuilder();
  const entries: [bigint, bigint][] = [],
    commands: [bigint, bigint][] = [];
  let seq = 0;
  for (const m of msgs) {
    (m.topic === '/odom' ? entries : commands).push([m.logTime, BigInt(b.length)]);
    b.writeMessage({
      channelId: m.topic === '/odom' ? 1 : 2,
      sequence: seq++,
      logTime: m.logTime,
      publishTime: m.logTime,
      data: m.data,
    });
  }
  const stored = b.buffer.slice();
  const times = msgs.map((m) => m.logTime);
  return {
    stored,
    compression: '',
    uncompressedSize: BigInt(stored.length),
    start: times.reduce((a, t) => (t < a ? t : a)),
    end: times.reduce((a, t) => (t > a ? t : a)),
    entries,
    commands,
  };
}

/** A chunk of real messages (the fixture drive's /odom and /cmd_vel), not compressed. */
export const driveChunk = (): CraftChunk =>
  messagesChunk(driveMessages({ distro: 'humble', pose: 'odometry', action: 'twist' }));

/** A zstd chunk that inflates to `size` zero bytes, with one /odom entry at `t`. */
export const zeroChunk = (size: number, t: bigint = T0_NS, o: Partial<CraftChunk> = {}): CraftChunk => ({
  stored: zstdZeros(size),
  compression: 'zstd',
  uncompressedSize: BigInt(size),
  start: t,
  end: t + 1_000_000_000n,
  entries: [[t, 0n]],
  ...o,
});

/**
 * A zstd chunk of `size` bytes whose first records are two real /odom messages, at `t` and 1 s later
 * (the rest zeros): a reader merging chunks in time order holds every such chunk whose range
 * overlaps the others' until its second message is read.
 */
export function heldChunk(size: number, t: bigint = T0_NS): CraftChunk {
  const odom = driveMessages({ distro: 'humble', pose: 'odometry', action: 'twist' }).find((m) => m.topic === '/odom')!;
  const b = new McapRecordBuilder();
  b.writeMessage({ channelId: 1, sequence: 0, logTime: t, publishTime: t, data: odom.data });
  const second = BigInt(b.length);
  b.writeMessage({ channelId: 1, sequence: 1, logTime: t + 1_000_000_000n, publishTime: t, data: odom.data });
  return {
    stored: zstdFrame(size, b.buffer.slice()),
    compression: 'zstd',
    uncompressedSize: BigInt(size),
    start: t,
    end: t + 1_000_000_000n,
    entries: [
      [t, 0n],
      [t + 1_000_000_000n, second],
    ],
  };
}

/**
 * An MCAP file (profile ros2; /odom on channel 1, an Odometry unless `odom` gives another type and
 * its ros2msg text; /cmd_vel Twist on channel 2) of these chunks, with a summary of their indexes as given.
 */
export function craftMcap(
  chunks: readonly CraftChunk[],
  odom: { type: string; schema: string } = { type: ODOM, schema: ros2msgText(ODOM) },
): Uint8Array {
  const b = new McapRecordBuilder();
  b.writeMagic();
  b.writeHeader({ profile: 'ros2', library: 'witness tests (crafted)' });
  const indexes: ChunkIndex[] = [];
  for (const c of chunks) {
    const chunkStartOffset = BigInt(b.length);
    b.writeChunk({
      messageStartTime: c.start,
      messageEndTime: c.end,
      uncompressedSize: c.uncompressedSize,
      uncompressedCrc: 0,
      compression: c.compression,
      records: c.stored,
    });
    const chunkLength = BigInt(b.length) - chunkStartOffset;
    const at = BigInt(b.length);
    b.writeMessageIndex({ channelId: 1, records: [...c.entries] });
    const at2 = BigInt(b.length);
    if (c.commands !== undefined) b.writeMessageIndex({ channelId: 2, records: [...c.commands] });
    const ci: ChunkIndex = {
      messageStartTime: c.start,
      messageEndTime: c.end,
      chunkStartOffset,
      chunkLength,
      messageIndexOffsets: new Map([[1, at], ...(c.commands !== undefined ? [[2, at2] as [number, bigint]] : [])]),
      messageIndexLength: BigInt(b.length) - at,
      compression: c.compression,
      compressedSize: BigInt(c.stored.length),
      uncompressedSize: c.uncompressedSize,
      ...c.index,
    };
    for (let i = 0; i < (c.indexed ?? 1); i++) indexes.push(ci);
  }
  b.writeDataEnd({ dataSectionCrc: 0 });
  const summaryStart = BigInt(b.length);
  b.writeSchema({ id: 1, name: odom.type, encoding: 'ros2msg', data: new TextEncoder().encode(odom.schema) });
  b.writeSchema({ id: 2, name: TWIST, encoding: 'ros2msg', data: new TextEncoder().encode(ros2msgText(TWIST)) });
  b.writeChannel({ id: 1, schemaId: 1, topic: '/odom', messageEncoding: 'cdr', metadata: new Map() });
  b.writeChannel({ id: 2, schemaId: 2, topic: '/cmd_vel', messageEncoding: 'cdr', metadata: new Map() });
  for (const ci of indexes) b.writeChunkIndex(ci);
  b.writeFooter({ summaryStart, summaryOffsetStart: 0n, summaryCrc: 0 });
  b.writeMagic();
  return b.buffer.slice();
}

/**
 * An MCAP file of no chunks whose summary holds `n` chunk indexes naming eight channels each (about 150 bytes apiece):
 * a summary of any size, which a reader parses whole.
 */
export function summaryMcap(n: number): Uint8Array {
  const b = new McapRecordBuilder();
  b.writeMagic();
  b.writeHeader({ profile: 'ros2', library: 'witness tests (crafted)' });
  b.writeDataEnd({ dataSectionCrc: 0 });
  const summaryStart = BigInt(b.length);
  b.writeSchema({ id: 1, name: ODOM, encoding: 'ros2msg', data: new TextEncoder().encode(ros2msgText(ODOM)) });
  b.writeChannel({ id: 1, schemaId: 1, topic: '/odom', messageEncoding: 'cdr', metadata: new Map() });
  const offsets = new Map(Array.from({ length: 8 }, (_, k) => [k, 100n] as [number, bigint]));
  for (let i = 0; i < n; i++)
    b.writeChunkIndex({
      messageStartTime: 0n,
      messageEndTime: 0n,
      chunkStartOffset: 8n,
      chunkLength: 0n,
      messageIndexOffsets: offsets,
      messageIndexLength: 0n,
      compression: '',
      compressedSize: 0n,
      uncompressedSize: 0n,
    });
  b.writeFooter({ summaryStart, summaryOffsetStart: 0n, summaryCrc: 0 });
  b.writeMagic();
  return b.buffer.slice();
}

/**
 * An MCAP file whose /odom is `type` defined by `schema` (ros2msg text, any), carrying `odom`
 * (CDR bytes, one message each, 0.1 s apart), beside the fixture drive's /cmd_vel Twists.
 */
export function schemaMcap(file: string, type: string, schema: string, odom: readonly Uint8Array[]): void {
  const msgs = [
    ...odom.map((data, i) => ({ topic: '/odom', logTime: T0_NS + BigInt(i) * 100_000_000n, data })),
    ...driveMessages({ distro: 'jazzy', pose: 'odometry', action: 'twist' }).filter((m) => m.topic === '/cmd_vel'),
  ].sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0));
  writeFileSync(file, craftMcap([messagesChunk(msgs)], { type, schema }));
}

/** CDR, little-endian: the 4-byte encapsulation header, then these bytes. */
export const cdr = (...body: number[]): Uint8Array => Uint8Array.from([0, 1, 0, 0, ...body]);
/** A little-endian uint32 as bytes. */
export const u32 = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];

/** A row of a loose .db3: any values. */
export interface LooseRow {
  readonly topic: '/odom' | '/cmd_vel';
  readonly timestamp: unknown;
  readonly data: unknown;
}

/**
 * A Humble .db3 whose tables have no constraints (so a row may hold NULL, text or a real where the
 * recorder writes integers and blobs): the fixture drive's rows, then `extra` rows. `messagesTable`
 * replaces the messages table's definition: generated columns (`generatedData`: its data column is
 * one, so rows are inserted without it), or a view.
 */
export function looseDb3(
  file: string,
  extra: readonly LooseRow[] = [],
  o: { messagesTable?: string; generatedData?: boolean } = {},
): void {
  const messagesTable = o.messagesTable;
  writeFileSync(file, '');
  const db = new Database(file);
  try {
    db.exec(`CREATE TABLE schema(schema_version INTEGER, ros_distro TEXT);
      CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, serialization_format TEXT, offered_qos_profiles TEXT);
      ${messagesTable ?? 'CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp, data);'}`);
    db.prepare('INSERT INTO schema VALUES (3, ?)').run('humble');
    db.prepare('INSERT INTO topics VALUES (1, ?, ?, ?, ?)').run('/odom', ODOM, 'cdr', '');
    db.prepare('INSERT INTO topics VALUES (2, ?, ?, ?, ?)').run('/cmd_vel', TWIST, 'cdr', '');
    if (messagesTable !== undefined && /CREATE\s+(VIEW|VIRTUAL)/i.test(messagesTable)) return;
    const ins =
      o.generatedData === true
        ? db.prepare('INSERT INTO messages (topic_id, timestamp) VALUES (?, ?)')
        : db.prepare('INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)');
    const topicId = (t: string): number => (t === '/odom' ? 1 : 2);
    const rows: LooseRow[] = [
      ...driveMessages({ distro: 'humble', pose: 'odometry', action: 'twist' }).map((m) => ({
        topic: m.topic as LooseRow['topic'],
        timestamp: m.logTime,
        data: Buffer.from(m.data),
      })),
      ...extra,
    ];
    db.transaction(() => {
      for (const r of rows) {
        if (o.generatedData === true) ins.run(topicId(r.topic), r.timestamp);
        else ins.run(topicId(r.topic), r.timestamp, r.data);
      }
    })();
  } finally {
    db.close();
  }
}

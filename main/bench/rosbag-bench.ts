/**
 * `witness bench rosbag`: the import rate of a large rosbag2 recording. A synthetic bag of about
 * `bytes` bytes is written to a temporary folder as rosbag2 writes one: /odom (nav_msgs/msg/Odometry,
 * 50 Hz), /cmd_vel (geometry_msgs/msg/Twist, 20 Hz) and /imu (sensor_msgs/msg/Imu, 200 Hz, not read
 * by the import), CDR. `storage` mcap (the default): profile ros2, ros2msg schemas, chunks of 1 MiB,
 * uncompressed. `storage` sqlite3: a .db3 with Jazzy's tables as the tests' fixtures write them
 * (schema 4, topics, message_definitions, messages with timestamp_idx). Then timed in this process:
 * `witness data import`'s workflow on it (pointmaze-medium), and the baseline reading the same two
 * topics' messages without decoding them: @mcap/core's indexed reader for MCAP; for .db3,
 * better-sqlite3 iterating the rows of the query the reader runs. Ratios are the point; absolute
 * times depend on the machine and its disk.
 */
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { McapIndexedReader, McapWriter, type IReadable } from '@mcap/core';
import { loadDecompressHandlers } from '@mcap/support';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import type { MessageDefinition } from '@foxglove/message-definition';
import { ros2jazzy } from '@foxglove/rosmsg-msgs-common';
import { db3BagWriter, scanDb3Rows } from '../services/datasets/rosbag2/db3-raw.js';
import { importBag } from '../app/bag-import.js';
import { SinkWritable } from '../services/datasets/rosbag2/mcap-file.js';
import { type ByteSink, writeAtomicStream } from '../platform/files.js';
import { scratchFolder } from '../platform/scratch.js';

export type BenchStorage = 'mcap' | 'sqlite3';

export interface RosbagBenchOptions {
  readonly bytes: number;
  /** The bag's storage (default mcap). */
  readonly storage?: BenchStorage;
  readonly log?: (line: string) => void;
}

export interface RosbagBenchResult {
  readonly storage: BenchStorage;
  readonly bytes: number;
  readonly messages: number;
  readonly readMessages: number;
  readonly write_s: number;
  readonly import_s: number;
  readonly raw_s: number;
  readonly transitions: number;
  readonly episodes: number;
}

type Table = Readonly<Record<string, MessageDefinition>>;
const TABLE = ros2jazzy as Table;

function definitions(type: string): MessageDefinition[] {
  const root = TABLE[type]!;
  const out: MessageDefinition[] = [{ definitions: root.definitions }];
  const seen = new Set<string>();
  const visit = (d: MessageDefinition): void => {
    for (const f of d.definitions) {
      if (!f.isComplex || seen.has(f.type)) continue;
      seen.add(f.type);
      out.push({ name: f.type, definitions: TABLE[f.type]!.definitions });
      visit(TABLE[f.type]!);
    }
  };
  visit(root);
  return out;
}

/** ros2msg text as rosbag2 stores it: the root's fields, then each dependency after a `MSG:` line. */
function ros2msg(type: string): string {
  return definitions(type)
    .map((d, i) => {
      const body = d.definitions
        .map(
          (f) =>
            `${f.type === 'time' ? 'builtin_interfaces/Time' : f.type}${f.isArray === true ? `[${f.arrayLength ?? ''}]` : ''} ${f.name}`,
        )
        .join('\n');
      return i === 0 ? body : `${'='.repeat(80)}\nMSG: ${d.name!.replace('/', '/msg/')}\n${body}`;
    })
    .join('\n');
}

const T0 = 1_700_000_000_000_000_000n;

const TOPICS = [
  { topic: '/odom', type: 'nav_msgs/Odometry', hz: 50 },
  { topic: '/cmd_vel', type: 'geometry_msgs/Twist', hz: 20 },
  { topic: '/imu', type: 'sensor_msgs/Imu', hz: 200 },
] as const;

/** Where the synthetic messages go: MCAP or .db3. */
interface BagSink {
  /** Bytes written so far (the file's size, near enough). */
  size(): bigint;
  add(topic: number, ns: bigint, data: Uint8Array): Promise<void>;
  end(): Promise<void>;
}

async function mcapSink(file: string): Promise<BagSink & { close(): Promise<void> }> {
  const { sink, written, complete } = await openStream(file);
  const w = new McapWriter({ writable: new SinkWritable(sink), chunkSize: 1 << 20 });
  await w.start({ profile: 'ros2', library: 'witness bench rosbag' });
  const ch: number[] = [];
  for (const t of TOPICS) {
    const full = t.type.replace('/', '/msg/');
    const schemaId = await w.registerSchema({
      name: full,
      encoding: 'ros2msg',
      data: new TextEncoder().encode(ros2msg(t.type)),
    });
    ch.push(await w.registerChannel({ topic: t.topic, schemaId, messageEncoding: 'cdr', metadata: new Map() }));
  }
  let seq = 0;
  let ended = false;
  return {
    size: () => BigInt(sink.bytes),
    add: (topic, ns, data) =>
      w.addMessage({ channelId: ch[topic]!, sequence: seq++, logTime: ns, publishTime: ns, data }),
    end: async () => {
      await w.end();
      ended = true;
      complete(null);
      await written;
    },
    // A bag not ended is not kept: its temporary is removed.
    close: async () => {
      if (!ended) complete(new Error(`${file}: the bag was not completed`));
      await written.catch(() => undefined);
    },
  };
}

/**
 * A file written through platform/files's streaming writer by calls from outside its fill: the
 * sink once the temporary is open, the write's promise (it settles after `complete`: renamed into
 * place on null, removed on an error).
 */
async function openStream(
  file: string,
): Promise<{ sink: ByteSink; written: Promise<void>; complete: (e: Error | null) => void }> {
  let complete: (e: Error | null) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    complete = (e) => (e === null ? resolve() : reject(e));
  });
  let opened: (s: ByteSink) => void = () => undefined;
  const ready = new Promise<ByteSink>((resolve) => (opened = resolve));
  const written = writeAtomicStream(file, async (s) => {
    opened(s);
    await done;
  });
  const sink = await Promise.race([ready, written.then(() => ready)]);
  return { sink, written, complete };
}

/** A .db3 with Jazzy's rosbag2 tables (schema 4), rows inserted in transactions of 2,000. */
function db3Sink(file: string): BagSink & { close(): Promise<void> } {
  return db3BagWriter(
    file,
    TOPICS.map((t) => ({ topic: t.topic, type: t.type.replace('/', '/msg/'), definition: ros2msg(t.type) })),
  );
}

/**
 * Writes the synthetic bag of about `bytes` bytes (the benchmark's; the signal tests' big bag); returns the number of
 * messages.
 */
export async function writeBag(file: string, bytes: number, storage: BenchStorage): Promise<number> {
  const sink = storage === 'mcap' ? await mcapSink(file) : db3Sink(file);
  try {
    const writers = TOPICS.map((t) => new MessageWriter(definitions(t.type)));
    const zero36 = new Array<number>(36).fill(0),
      zero9 = new Array<number>(9).fill(0);
    let n = 0,
      tick = 0;
    // 1 ms ticks; each topic publishes on its period. A slow circle, 1 m radius.
    while (sink.size() < BigInt(bytes) || n === 0) {
      for (let k = 0; k < 1000; k++, tick++) {
        const ns = T0 + BigInt(tick) * 1_000_000n;
        const s = tick / 1000,
          stamp = { sec: Number(ns / 1_000_000_000n), nanosec: Number(ns % 1_000_000_000n) };
        const header = { stamp, frame_id: 'odom' };
        for (let i = 0; i < TOPICS.length; i++) {
          if (tick % (1000 / TOPICS[i]!.hz) !== 0) continue;
          const yaw = s * 0.2;
          const msg =
            i === 0
              ? {
                  header,
                  child_frame_id: 'base_link',
                  pose: {
                    pose: {
                      position: { x: Math.cos(yaw), y: Math.sin(yaw), z: 0 },
                      orientation: {
                        x: 0,
                        y: 0,
                        z: Math.sin(yaw / 2 + Math.PI / 4),
                        w: Math.cos(yaw / 2 + Math.PI / 4),
                      },
                    },
                    covariance: zero36,
                  },
                  twist: {
                    twist: { linear: { x: 0.2, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.2 } },
                    covariance: zero36,
                  },
                }
              : i === 1
                ? { linear: { x: 0.2, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.2 } }
                : {
                    header,
                    orientation: { x: 0, y: 0, z: 0, w: 1 },
                    orientation_covariance: zero9,
                    angular_velocity: { x: 0, y: 0, z: 0.2 },
                    angular_velocity_covariance: zero9,
                    linear_acceleration: { x: 0, y: 0, z: 9.81 },
                    linear_acceleration_covariance: zero9,
                  };
          await sink.add(i, ns, writers[i]!.writeMessage(msg));
          n++;
        }
      }
    }
    await sink.end();
    return n;
  } finally {
    await sink.close();
  }
}

/** @mcap/core reading the two topics' messages, not decoding them. */
async function rawRead(file: string): Promise<number> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const readable: IReadable = {
      size: () => Promise.resolve(BigInt(size)),
      read: async (offset, length) => {
        const b = new Uint8Array(Number(length));
        await fh.read(b, 0, b.length, Number(offset));
        return b;
      },
    };
    const r = await McapIndexedReader.Initialize({ readable, decompressHandlers: await loadDecompressHandlers() });
    let n = 0;
    for await (const m of r.readMessages({ topics: ['/odom', '/cmd_vel'] })) n += m.data.length > 0 ? 1 : 0;
    return n;
  } finally {
    await fh.close();
  }
}

/**
 * better-sqlite3 iterating the two topics' rows with the query the .db3 reader runs (in timestamp
 * order, through timestamp_idx), not decoding them.
 */
function rawReadDb3(file: string): number {
  return scanDb3Rows(file, ['/odom', '/cmd_vel']);
}

export async function runRosbagBench(o: RosbagBenchOptions): Promise<RosbagBenchResult> {
  const storage = o.storage ?? 'mcap';
  // Removed however the process ends (platform/scratch.ts), also by a signal during synchronous work.
  const scratch = scratchFolder('witness-bench-rosbag-');
  const dir = scratch.dir;
  try {
    const bag = path.join(dir, storage === 'mcap' ? 'bench.mcap' : 'bench.db3');
    let t = performance.now();
    o.log?.(`writing a synthetic ${storage === 'mcap' ? 'MCAP' : '.db3'} bag of about ${o.bytes} bytes`);
    const messages = await writeBag(bag, o.bytes, storage);
    const write_s = (performance.now() - t) / 1000;
    const bytes = statSync(bag).size;
    o.log?.(`importing ${bytes} bytes, ${messages} messages`);
    t = performance.now();
    const r = await importBag(bag, {
      world: 'pointmaze-medium',
      poseTopic: '/odom',
      actionTopic: '/cmd_vel',
      out: path.join(dir, 'bench.wds'),
    });
    const import_s = (performance.now() - t) / 1000;
    o.log?.(`reading the same topics with ${storage === 'mcap' ? '@mcap/core' : 'better-sqlite3'}, no decoding`);
    t = performance.now();
    const readMessages = storage === 'mcap' ? await rawRead(bag) : rawReadDb3(bag);
    const raw_s = (performance.now() - t) / 1000;
    return {
      storage,
      bytes,
      messages,
      readMessages,
      write_s,
      import_s,
      raw_s,
      transitions: r.transitions,
      episodes: r.episodes,
    };
  } finally {
    scratch.remove();
  }
}

/** The figures as a Markdown table. */
export function rosbagBenchTable(r: RosbagBenchResult): string {
  const rate = (n: number, s: number): string => `${Math.round(n / s).toLocaleString('en-US')}`;
  return [
    '| measurement | seconds | bag messages/s | /odom + /cmd_vel messages/s | MB/s |',
    '|---|---:|---:|---:|---:|',
    `| import (read, decode, resample, write) | ${r.import_s.toFixed(1)} | ${rate(r.messages, r.import_s)} | ${rate(r.readMessages, r.import_s)} | ${(r.bytes / 2 ** 20 / r.import_s).toFixed(0)} |`,
    `| ${r.storage === 'mcap' ? '@mcap/core read' : "better-sqlite3 rows (the reader's query)"}, no decoding (baseline) | ${r.raw_s.toFixed(1)} | ${rate(r.messages, r.raw_s)} | ${rate(r.readMessages, r.raw_s)} | ${(r.bytes / 2 ** 20 / r.raw_s).toFixed(0)} |`,
    '',
    `Bag (${r.storage === 'mcap' ? 'MCAP' : '.db3'}): ${(r.bytes / 2 ** 20).toFixed(0)} MiB, ${r.messages.toLocaleString('en-US')} messages (${r.readMessages.toLocaleString('en-US')} on /odom and /cmd_vel), written in ${r.write_s.toFixed(1)} s. ` +
      `Import/raw: ${(r.import_s / r.raw_s).toFixed(2)}×. Result: ${r.transitions.toLocaleString('en-US')} transitions in ${r.episodes} episode(s).`,
  ].join('\n');
}

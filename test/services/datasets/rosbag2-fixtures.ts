/**
 * rosbag2 recordings written in the tests, as Humble and Jazzy write them: MCAP through @mcap/core
 * (ros2msg schemas, a `rosbag2` metadata record) and .db3 through better-sqlite3 (Humble: schema 3,
 * no definitions; Jazzy: schema 4, type_description_hash and message_definitions), with CDR
 * messages from @foxglove/rosmsg2-serialization, in a bag directory with its metadata.yaml.
 *
 * The driving (DRIVE): two stretches with a gap between them.
 *  A: poses at t = 0.0 … 0.5 s every 0.1 s, x = t, y = 1, yaw = 0; commands at t = 0.02 … 0.42
 *     every 0.1 s: linear (0.5, 0.25, 0), angular z 0.1.
 *  B: poses at t = 2.0 … 2.3 s every 0.1 s, x = 3, y = 1 + (t − 2), yaw = π/2; commands at
 *     t = 1.99 … 2.29 every 0.1 s: linear (2, 0, 0), angular z −0.3.
 * t is seconds after T0_NS. Header stamps are these times; the recorder receives each message 1 ms
 * later (so a reader that used receive times for stamped messages would be off by 1 ms). An
 * Odometry's twist.twist.linear.x is 10·x (a field a robot's configuration may map, as base.vx).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type IWritable, McapWriter } from '@mcap/core';
import type { FileHandle } from 'node:fs/promises';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import type { MessageDefinition } from '@foxglove/message-definition';
import { ros2humble } from '@foxglove/rosmsg-msgs-common';
import { parse as parseYaml, stringify } from 'yaml';
import * as zstd from '@foxglove/wasm-zstd';

export const T0_NS = 1_700_000_000_000_000_000n;
const RECEIVE_DELAY_NS = 1_000_000n;

export type Distro = 'humble' | 'jazzy';
type PoseKind = 'odometry' | 'pose' | 'tf';
type ActionKind = 'twist' | 'twist-stamped';

export interface Drive {
  readonly poses: { t: number; x: number; y: number; yaw: number }[];
  readonly commands: { t: number; linear: [number, number, number]; angularZ: number }[];
}

const range = (from: number, count: number): number[] =>
  Array.from({ length: count }, (_, i) => Math.round((from + i * 0.1) * 100) / 100);

export const DRIVE: Drive = {
  poses: [
    ...range(0, 6).map((t) => ({ t, x: t, y: 1, yaw: 0 })),
    ...range(2, 4).map((t) => ({ t, x: 3, y: 1 + Math.round((t - 2) * 100) / 100, yaw: Math.PI / 2 })),
  ],
  commands: [
    ...range(0.02, 5).map((t) => ({ t, linear: [0.5, 0.25, 0] as [number, number, number], angularZ: 0.1 })),
    ...range(1.99, 4).map((t) => ({ t, linear: [2, 0, 0] as [number, number, number], angularZ: -0.3 })),
  ],
};

const TYPES = {
  odometry: 'nav_msgs/msg/Odometry',
  pose: 'geometry_msgs/msg/PoseStamped',
  tf: 'tf2_msgs/msg/TFMessage',
  twist: 'geometry_msgs/msg/Twist',
  'twist-stamped': 'geometry_msgs/msg/TwistStamped',
} as const;

type Table = Readonly<Record<string, MessageDefinition>>;
const table = ros2humble as Table;

/** Root first, then every nested type (for MessageWriter). */
function definitions(type: string): MessageDefinition[] {
  const root = table[type.replace('/msg/', '/')]!;
  const out: MessageDefinition[] = [{ definitions: root.definitions }];
  const seen = new Set<string>();
  const visit = (d: MessageDefinition): void => {
    for (const f of d.definitions) {
      if (!f.isComplex || seen.has(f.type)) continue;
      seen.add(f.type);
      const sub = table[f.type]!;
      out.push({ name: f.type, definitions: sub.definitions });
      visit(sub);
    }
  };
  visit(root);
  return out;
}

/** The ros2msg text of a type as rosbag2 writes it: the root, then `MSG: pkg/msg/Type` blocks. */
export function ros2msgText(type: string): string {
  const defs = definitions(type);
  const field = (f: MessageDefinition['definitions'][number]): string => {
    const t =
      f.type === 'time' ? 'builtin_interfaces/Time' : f.type === 'duration' ? 'builtin_interfaces/Duration' : f.type;
    const arr = f.isArray === true ? `[${f.arrayLength ?? ''}]` : '';
    return `${t}${arr} ${f.name}`;
  };
  return defs
    .map((d, i) => {
      const body = d.definitions.map(field).join('\n');
      return i === 0 ? body : `${'='.repeat(80)}\nMSG: ${d.name!.replace('/', '/msg/')}\n${body}`;
    })
    .join('\n');
}

const stamp = (t: number): { sec: number; nanosec: number } => {
  const ns = T0_NS + BigInt(Math.round(t * 1e9));
  return { sec: Number(ns / 1_000_000_000n), nanosec: Number(ns % 1_000_000_000n) };
};
const quat = (yaw: number): { x: number; y: number; z: number; w: number } => ({
  x: 0,
  y: 0,
  z: Math.sin(yaw / 2),
  w: Math.cos(yaw / 2),
});

export interface BagSpec {
  readonly distro: Distro;
  readonly pose: PoseKind;
  readonly action: ActionKind;
  readonly poseTopic?: string;
  readonly actionTopic?: string;
  readonly drive?: Drive;
  /** Header stamps of these pose indices are swapped (out of order). */
  readonly swapPoses?: readonly [number, number];
  /** TF: the other transform in each message gives base_link a second parent (odom besides map). */
  readonly twoParents?: boolean;
  /** Pose header stamps all zero (a driver that does not stamp). */
  readonly unstamped?: boolean;
  /**
   * Header stamps in simulated time: this many seconds after 0 (a robot on use_sim_time), while the
   * recorder's receive times stay T0_NS + t (wall time), as Gazebo runs recorded by a plain
   * `ros2 bag record` have them.
   */
  readonly simTime?: number;
}

interface Msg {
  readonly topic: string;
  readonly type: string;
  readonly logTime: bigint;
  readonly data: Uint8Array;
}

/** The messages of a spec, in receive-time order. */
function messages(s: BagSpec): Msg[] {
  const drive = s.drive ?? DRIVE;
  const poseTopic = s.poseTopic ?? (s.pose === 'tf' ? '/tf' : s.pose === 'odometry' ? '/odom' : '/pose');
  const actionTopic = s.actionTopic ?? '/cmd_vel';
  const pw = new MessageWriter(definitions(TYPES[s.pose])),
    aw = new MessageWriter(definitions(TYPES[s.action]));
  const out: Msg[] = [];
  const stamps = drive.poses.map((p) => p.t);
  if (s.swapPoses)
    [stamps[s.swapPoses[0]], stamps[s.swapPoses[1]]] = [stamps[s.swapPoses[1]]!, stamps[s.swapPoses[0]]!];
  const sim = (t: number): { sec: number; nanosec: number } => {
    const ns = BigInt(Math.round((s.simTime! + t) * 1e9));
    return { sec: Number(ns / 1_000_000_000n), nanosec: Number(ns % 1_000_000_000n) };
  };
  const stampOf = (i: number): { sec: number; nanosec: number } =>
    s.unstamped === true ? { sec: 0, nanosec: 0 } : s.simTime !== undefined ? sim(stamps[i]!) : stamp(stamps[i]!);
  drive.poses.forEach((p, i) => {
    const header = { stamp: stampOf(i), frame_id: s.pose === 'odometry' ? 'odom' : 'map' };
    const pose = { position: { x: p.x, y: p.y, z: 0 }, orientation: quat(p.yaw) };
    const msg =
      s.pose === 'odometry'
        ? {
            header,
            child_frame_id: 'base_link',
            pose: { pose, covariance: new Array(36).fill(0) },
            twist: {
              twist: { linear: { x: 10 * p.x, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } },
              covariance: new Array(36).fill(0),
            },
          }
        : s.pose === 'pose'
          ? { header, pose }
          : {
              transforms: [
                // Another edge of the tree (or, with twoParents, base_link's second parent).
                s.twoParents === true
                  ? {
                      header: { stamp: stamp(stamps[i]!), frame_id: 'odom' },
                      child_frame_id: 'base_link',
                      transform: { translation: { x: 99, y: 99, z: 0 }, rotation: quat(1) },
                    }
                  : {
                      header: { stamp: stamp(stamps[i]!), frame_id: 'base_link' },
                      child_frame_id: 'laser',
                      transform: { translation: { x: 99, y: 99, z: 0 }, rotation: quat(1) },
                    },
                {
                  header,
                  child_frame_id: 'base_link',
                  transform: { translation: { x: p.x, y: p.y, z: 0 }, rotation: quat(p.yaw) },
                },
              ],
            };
    out.push({
      topic: poseTopic,
      type: TYPES[s.pose],
      logTime: T0_NS + BigInt(Math.round(p.t * 1e9)) + RECEIVE_DELAY_NS,
      data: pw.writeMessage(msg),
    });
  });
  for (const c of drive.commands) {
    const twist = {
      linear: { x: c.linear[0], y: c.linear[1], z: c.linear[2] },
      angular: { x: 0, y: 0, z: c.angularZ },
    };
    const msg =
      s.action === 'twist'
        ? twist
        : { header: { stamp: s.simTime !== undefined ? sim(c.t) : stamp(c.t), frame_id: 'base_link' }, twist };
    // A Twist has no header: its time is when it was received (t). A TwistStamped's header says t.
    const logTime = T0_NS + BigInt(Math.round(c.t * 1e9)) + (s.action === 'twist' ? 0n : RECEIVE_DELAY_NS);
    out.push({ topic: actionTopic, type: TYPES[s.action], logTime, data: aw.writeMessage(msg) });
  }
  return out.sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0));
}

function metadataYaml(
  s: BagSpec,
  storage: 'mcap' | 'sqlite3',
  file: string,
  msgs: readonly Msg[],
  compression: '' | 'MESSAGE' = '',
): string {
  const topics = [...new Map(msgs.map((m) => [m.topic, m.type])).entries()];
  // No messages (the record rosbag2_storage_mcap writes when a bag opens): starting_time INT64_MAX, as rosbag2 writes
  // it.
  const first = msgs[0]?.logTime ?? 9_223_372_036_854_775_807n,
    last = msgs[msgs.length - 1]?.logTime ?? first;
  const jazzy = s.distro === 'jazzy';
  const info: Record<string, unknown> = {
    version: jazzy ? 9 : 5,
    storage_identifier: storage,
    duration: { nanoseconds: Number(last - first) },
    starting_time: { nanoseconds_since_epoch: msgs.length === 0 ? first : Number(first) },
    message_count: msgs.length,
    topics_with_message_count: topics.map(([name, type]) => ({
      topic_metadata: {
        name,
        type,
        serialization_format: 'cdr',
        offered_qos_profiles: jazzy ? [] : '',
        ...(jazzy ? { type_description_hash: 'RIHS01_00' } : {}),
      },
      message_count: msgs.filter((m) => m.topic === name).length,
    })),
    compression_format: compression === '' ? '' : 'zstd',
    compression_mode: compression,
    relative_file_paths: [file],
    files: [
      {
        path: file,
        starting_time: { nanoseconds_since_epoch: msgs.length === 0 ? first : Number(first) },
        duration: { nanoseconds: Number(last - first) },
        message_count: msgs.length,
      },
    ],
    ...(jazzy ? { custom_data: {}, ros_distro: 'jazzy' } : {}),
  };
  return stringify({ rosbag2_bagfile_information: info });
}

/**
 * Writes an MCAP file as rosbag2_storage_mcap does (profile ros2, ros2msg schemas, cdr channels, a rosbag2 metadata
 * record).
 */
export async function writeMcap(
  file: string,
  s: BagSpec,
  msgs = messages(s),
  o: { chunkSize?: number; zstd?: boolean } = {},
): Promise<void> {
  if (o.zstd === true) await zstd.isLoaded;
  const fh = await open(file, 'w');
  try {
    const w = new McapWriter({
      writable: new McapFileWritable(fh),
      ...(o.chunkSize !== undefined ? { chunkSize: o.chunkSize } : {}),
      // rosbag2_storage_mcap's default: zstd chunks.
      ...(o.zstd === true
        ? {
            compressChunk: (data: Uint8Array) => ({
              compression: 'zstd',
              compressedData: new Uint8Array(zstd.compress(data)),
            }),
          }
        : {}),
    });
    await w.start({ profile: 'ros2', library: 'rosbag2 (test)' });
    const channels = new Map<string, number>();
    for (const m of msgs) {
      if (channels.has(m.topic)) continue;
      const schemaId = await w.registerSchema({
        name: m.type,
        encoding: 'ros2msg',
        data: new TextEncoder().encode(ros2msgText(m.type)),
      });
      channels.set(
        m.topic,
        await w.registerChannel({
          topic: m.topic,
          schemaId,
          messageEncoding: 'cdr',
          metadata: new Map([['offered_qos_profiles', '']]),
        }),
      );
    }
    let seq = 0;
    for (const m of msgs)
      await w.addMessage({
        channelId: channels.get(m.topic)!,
        sequence: seq++,
        logTime: m.logTime,
        publishTime: m.logTime,
        data: m.data,
      });
    // As rosbag2_storage_mcap writes it (Jazzy, Kilted): a `rosbag2` record when the bag opens (no
    // messages yet) and another when it closes, each `serialized_metadata` the bag's metadata itself,
    // not under rosbag2_bagfile_information; the distro is its ros_distro (Humble's has none).
    const serialized = (empty: boolean): string =>
      stringify(
        (
          parseYaml(metadataYaml(s, 'mcap', path.basename(file), empty ? [] : msgs)) as {
            rosbag2_bagfile_information: unknown;
          }
        ).rosbag2_bagfile_information,
      );
    await w.addMetadata({ name: 'rosbag2', metadata: new Map([['serialized_metadata', serialized(true)]]) });
    await w.addMetadata({ name: 'rosbag2', metadata: new Map([['serialized_metadata', serialized(false)]]) });
    await w.end();
  } finally {
    await fh.close();
  }
}

/** Writes a .db3 file with Humble's (schema 3) or Jazzy's (schema 4, message_definitions) tables. */
export function writeDb3(file: string, s: BagSpec, msgs = messages(s)): void {
  const db = new Database(file);
  try {
    const jazzy = s.distro === 'jazzy';
    db.exec(`
      CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, ros_distro TEXT NOT NULL);
      CREATE TABLE metadata(id INTEGER PRIMARY KEY, metadata_version INTEGER NOT NULL, metadata TEXT NOT NULL);
      CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL${jazzy ? ', type_description_hash TEXT NOT NULL' : ''});
      ${jazzy ? 'CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT NOT NULL, encoding TEXT NOT NULL, encoded_message_definition TEXT NOT NULL, type_description_hash TEXT NOT NULL);' : ''}
      CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, data BLOB NOT NULL);
      CREATE INDEX timestamp_idx ON messages (timestamp ASC);
    `);
    db.prepare('INSERT INTO schema VALUES (?, ?)').run(jazzy ? 4 : 3, s.distro);
    const ids = new Map<string, number>();
    for (const m of msgs) {
      if (ids.has(m.topic)) continue;
      const id = ids.size + 1;
      ids.set(m.topic, id);
      if (jazzy) {
        db.prepare('INSERT INTO topics VALUES (?, ?, ?, ?, ?, ?)').run(id, m.topic, m.type, 'cdr', '', 'RIHS01_00');
        db.prepare(
          'INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, type_description_hash) VALUES (?, ?, ?, ?)',
        ).run(m.type, 'ros2msg', ros2msgText(m.type), 'RIHS01_00');
      } else {
        db.prepare('INSERT INTO topics VALUES (?, ?, ?, ?, ?)').run(id, m.topic, m.type, 'cdr', '');
      }
    }
    const ins = db.prepare('INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)');
    db.transaction(() => {
      for (const m of msgs) ins.run(ids.get(m.topic)!, m.logTime, Buffer.from(m.data));
    })();
  } finally {
    db.close();
  }
}

/**
 * A TF chain as a robot publishes it (CHAIN): on /tf, map → odom at 2 Hz (localisation) and odom →
 * base_link at 20 Hz (odometry), each transform in its own message; on /tf_static, base_link →
 * laser once; Twists on /cmd_vel at 20 Hz. t is seconds after T0_NS; header stamps are t, the
 * recorder receives TF 1 ms later and a Twist at t.
 *  map → odom: t = 0, 0.5, 1.0, then none until 2.0, 2.5, 3.0 (a gap of 1 s): (1 + t, 2), yaw π/2 + 0.1 t.
 *  odom → base_link: t = 0, 0.05, …, 2.9: (t, 0.5), yaw 0.2 t.
 *  base_link → laser: (0.1, 0), yaw 0.
 *  commands: t = 0.01, 0.06, …, 2.96: linear (0.5, 0, 0), angular z 0.3.
 * `extra` adds one more transform to the first map → odom message (a frame elsewhere in the tree, or a
 * second parent); `lateMapOdom` has the recorder receive map → odom 0.2 s after its stamp (as AMCL's
 * lag does), so /tf's stamps go back in time across edges, never along one.
 */
export const CHAIN = {
  mapOdom: [0, 0.5, 1, 2, 2.5, 3],
  odomBase: Array.from({ length: 59 }, (_, i) => Math.round(i * 5) / 100),
  commands: Array.from({ length: 60 }, (_, i) => Math.round(1 + i * 5) / 100),
  mapOdomPose: (t: number) => ({ x: 1 + t, y: 2, yaw: Math.PI / 2 + 0.1 * t }),
  odomBasePose: (t: number) => ({ x: t, y: 0.5, yaw: 0.2 * t }),
  laser: { x: 0.1, y: 0, yaw: 0 },
} as const;

function chainMessages(extra?: { parent: string; child: string }, lateMapOdom = false): Msg[] {
  const tf = TYPES.tf,
    w = new MessageWriter(definitions(tf)),
    tw = new MessageWriter(definitions(TYPES.twist));
  const transform = (parent: string, child: string, t: number, p: { x: number; y: number; yaw: number }): unknown => ({
    header: { stamp: stamp(t), frame_id: parent },
    child_frame_id: child,
    transform: { translation: { x: p.x, y: p.y, z: 0 }, rotation: quat(p.yaw) },
  });
  const at = (t: number, delay: bigint): bigint => T0_NS + BigInt(Math.round(t * 1e9)) + delay;
  const out: Msg[] = [];
  CHAIN.mapOdom.forEach((t, i) => {
    const transforms = [
      transform('map', 'odom', t, CHAIN.mapOdomPose(t)),
      ...(i === 0 && extra !== undefined ? [transform(extra.parent, extra.child, t, { x: 0, y: 0, yaw: 0 })] : []),
    ];
    out.push({
      topic: '/tf',
      type: tf,
      logTime: at(t, lateMapOdom ? 200_000_000n : RECEIVE_DELAY_NS),
      data: w.writeMessage({ transforms }),
    });
  });
  for (const t of CHAIN.odomBase)
    out.push({
      topic: '/tf',
      type: tf,
      logTime: at(t, RECEIVE_DELAY_NS),
      data: w.writeMessage({ transforms: [transform('odom', 'base_link', t, CHAIN.odomBasePose(t))] }),
    });
  out.push({
    topic: '/tf_static',
    type: tf,
    logTime: at(0, RECEIVE_DELAY_NS),
    data: w.writeMessage({ transforms: [transform('base_link', 'laser', 0, CHAIN.laser)] }),
  });
  for (const t of CHAIN.commands)
    out.push({
      topic: '/cmd_vel',
      type: TYPES.twist,
      logTime: at(t, 0n),
      data: tw.writeMessage({ linear: { x: 0.5, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.3 } }),
    });
  // Stable: of equal receive times, the order above (map → odom before odom → base_link).
  return out.sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0));
}

/** A bag directory holding CHAIN (see there); returns the directory. */
export function writeChainBagDir(
  dir: string,
  name: string,
  storage: 'mcap' | 'sqlite3',
  distro: Distro,
  extra?: { parent: string; child: string },
  lateMapOdom = false,
): Promise<string> {
  return writeBagDir(dir, name, storage, { distro, pose: 'tf', action: 'twist' }, chainMessages(extra, lateMapOdom));
}

/**
 * A bag directory `<dir>/<name>/` with metadata.yaml and one storage file; returns the directory.
 * `messageCompression`: each message's data a zstd frame, as `ros2 bag record --compression-mode
 * message --compression-format zstd` writes them (one ZSTD_compress call each, which records the
 * decompressed size), and metadata.yaml saying so.
 */
export async function writeBagDir(
  dir: string,
  name: string,
  storage: 'mcap' | 'sqlite3',
  s: BagSpec,
  msgs = messages(s),
  o: { messageCompression?: boolean } = {},
): Promise<string> {
  const bag = path.join(dir, name);
  mkdirSync(bag, { recursive: true });
  const file = `${name}_0.${storage === 'mcap' ? 'mcap' : 'db3'}`;
  if (o.messageCompression === true) {
    await zstd.isLoaded;
    msgs = msgs.map((m) => ({ ...m, data: new Uint8Array(zstd.compress(m.data)) }));
  }
  if (storage === 'mcap') await writeMcap(path.join(bag, file), s, msgs);
  else writeDb3(path.join(bag, file), s, msgs);
  writeFileSync(
    path.join(bag, 'metadata.yaml'),
    metadataYaml(s, storage, file, msgs, o.messageCompression === true ? 'MESSAGE' : ''),
  );
  return bag;
}

/** The messages of a spec in receive-time order (topic, type, receive time, CDR), for bags written by hand. */
export const driveMessages = (s: BagSpec): { topic: string; type: string; logTime: bigint; data: Uint8Array }[] =>
  messages(s);

/** An @mcap/core IWritable straight over an open file handle (the fixtures write their bags directly). */
class McapFileWritable implements IWritable {
  private pos = 0n;
  constructor(private readonly fh: FileHandle) {}
  position(): bigint {
    return this.pos;
  }
  async write(buffer: Uint8Array): Promise<void> {
    await this.fh.write(buffer);
    this.pos += BigInt(buffer.byteLength);
  }
}

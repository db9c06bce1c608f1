/**
 * `witness data import BAG`: a rosbag2 recording of a robot's own driving → a dataset of a world,
 * so that ψ trains and the latent graph builds from it (`witness backbone train --data`). Reading
 * the bag: services/datasets/rosbag2; resampling and episodes: core/data/resample; the mapping of a
 * pose and a Twist onto the world's observation and action (docs/FORMATS.md, "Datasets from
 * rosbag2") is decided here, from the world's spec.
 */
import path from 'node:path';
import { WitnessError } from '../contract/errors.js';
import type { Dataset } from '../core/data/dataset.js';
import {
  type ActField,
  type ActSource,
  type ObsField,
  type ObsSource,
  type PoseTrack,
  type RowLayout,
  medianInterval,
  resampleDriving,
} from '../core/data/resample.js';
import { type TfStep, chainTrack } from '../core/data/tf-tree.js';
import { type FieldSpec, fieldType, readField, readRos2Config, worldEntry } from '../backends/catalogue.js';
import { cellAt } from '../core/world/maze.js';
import { writeDataset } from '../services/datasets/format.js';
import { openBag } from '../services/datasets/rosbag2/bag.js';
import { BagError, stampText } from '../services/datasets/rosbag2/errors.js';
import {
  ACTION_TYPES,
  POSE_TYPES,
  type StampSource,
  type StampedEdge,
  normType,
  readDriving,
} from '../services/datasets/rosbag2/driving.js';

export interface BagImportRequest {
  readonly world: string;
  readonly poseTopic: string;
  readonly actionTopic: string;
  /** Rows per second (default: the pose topic's median rate). */
  readonly rate?: number;
  /** Longest pose gap and longest a command is held, s (default: max(0.5, 5 / rate)). */
  readonly maxGap?: number;
  readonly stamp?: StampSource;
  readonly frame?: string;
  readonly child?: string;
  readonly out: string;
  /** Told (done, total) as the bag is read. */
  readonly progress?: (done: number, total: number) => void;
}

export interface BagImportReport {
  readonly transitions: number;
  readonly episodes: number;
  readonly rate: number;
  readonly maxGap: number;
  readonly messages: number;
  readonly storage: string;
  readonly distro: string | null;
  readonly clipped: number;
  /**
   * A point maze: rows whose position is outside its free cells (in a wall, or off the grid), as a
   * pose in another frame than the maze's gives (imported as they are; the CLI warns); else 0.
   */
  readonly outside: number;
  /** The positions' extent, x and y (m). */
  readonly extent: { readonly x: readonly [number, number]; readonly y: readonly [number, number] };
  readonly seconds: number;
}

/**
 * How many rows lie outside a maze's free cells, and the extent of the positions (x, y are an observation's first two
 * values).
 */
function placement(
  world: string,
  obs: Float32Array,
  obsDim: number,
): { outside: number; extent: BagImportReport['extent'] } {
  const layout = worldEntry(world).layout;
  let outside = 0,
    x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity;
  for (let r = 0; r < obs.length / obsDim; r++) {
    const x = obs[r * obsDim]!,
      y = obs[r * obsDim + 1]!;
    x0 = Math.min(x0, x);
    x1 = Math.max(x1, x);
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y);
    if (layout === undefined) continue;
    const c = cellAt(layout, x, y);
    if (c === null || layout.grid[c.i]![c.j] !== 0) outside++;
  }
  return { outside, extent: { x: [x0, x1], y: [y0, y1] } };
}

/**
 * A point maze's observation names; a ROS 2 robot's pose fields (its other fields come from sensors a bag import does
 * not read).
 */
const MAZE_NAMES: Readonly<Record<string, ObsField>> = { x: 'x', y: 'y', vx: 'vx', vy: 'vy' };
const ROS_NAMES: Readonly<Record<string, ObsField>> = { 'base.x': 'x', 'base.y': 'y', 'base.yaw': 'yaw' };
const TWIST_PATH = /^(?:twist\.)?((?:linear|angular)\.[xyz])$/;

/** How a world's rows are made from a bag: the layout, and the other numbers to read from each pose message. */
interface BagLayout {
  readonly layout: RowLayout;
  readonly extras?: (message: unknown) => { ok: true; values: number[] } | { ok: false; why: string };
}

/**
 * How a pose and a Twist fill a world's observation and action. A point maze observes
 * (x, y, vx, vy) and pushes with a force in [-1, 1]² in the world frame: the Twist's linear
 * velocity turned into the world frame by the pose's yaw, clipped. A ROS 2 robot with a
 * "navigation" section observes the pose fields (base.x, base.y, base.yaw) and fields of a sensor on
 * the pose topic itself (its odometry: `base.vx` from twist.twist.linear.x, read from each pose
 * message and interpolated), and commands the Twist fields its command names (divided by its scale).
 * Anything else cannot be expressed: InvalidInput (exit 2).
 */
function bagLayout(world: string, poseTopic: string): BagLayout {
  const e = worldEntry(world);
  const refuse = (why: string): never => {
    throw new WitnessError('invalid-input', `${world}: a bag cannot be imported into this world: ${why}`, {
      path: '--world',
    });
  };
  if (e.kind === 'maze') {
    const obs = e.spec.observation.names.map((n) => MAZE_NAMES[n] ?? refuse(`observation ${n} is not a pose field`));
    return {
      layout: {
        obs,
        act: [
          { from: 'world.x', scale: 1 },
          { from: 'world.y', scale: 1 },
        ],
        clip: [-1, 1],
      },
    };
  }
  if (e.kind === 'antmaze')
    return refuse(
      'the Ant observes its 8 joints and acts with 8 joint torques, which a pose and a Twist do not record; give a point maze or a ROS 2 robot with a "navigation" section',
    );
  if (e.kind !== 'ros2')
    return refuse(
      'it has no low-level control (a tool world); give a point maze or a ROS 2 robot with a "navigation" section',
    );
  const config = readRos2Config(path.resolve(world.slice('ros2:'.length)));
  const nav = config.navigation;
  if (nav === undefined)
    return refuse('its configuration has no "navigation" section (the observation and the command the policy uses)');
  const specs: FieldSpec[] = [];
  const obs: ObsSource[] = nav.observation.map((n, i) => {
    const pose = ROS_NAMES[n];
    if (pose !== undefined) return pose;
    const sensor = Object.entries(config.sensors).find(([, s]) => Object.hasOwn(s.fields, n));
    if (sensor === undefined || sensor[1].topic !== poseTopic || fieldType(sensor[1].fields[n]!) !== 'number') {
      const what =
        sensor === undefined
          ? 'which no sensor maps'
          : sensor[1].topic !== poseTopic
            ? `a field of sensor ${sensor[0]} on ${sensor[1].topic}, not on the pose topic ${poseTopic}`
            : 'not a number';
      return refuse(
        `navigation.observation[${i}] is ${n}, ${what}: an import fills ${Object.keys(ROS_NAMES).join(', ')} and numeric fields of a sensor on the pose topic`,
      );
    }
    specs.push(sensor[1].fields[n]!);
    return { extra: specs.length - 1 };
  });
  const type = normType(nav.command.type);
  if (type !== 'geometry_msgs/msg/Twist' && type !== 'geometry_msgs/msg/TwistStamped') {
    return refuse(
      `its command is ${nav.command.type}, not a geometry_msgs/msg/Twist or TwistStamped that a recorded Twist can fill`,
    );
  }
  const act: ActField[] = nav.command.action.map((p, i) => {
    const m = TWIST_PATH.exec(p);
    if (m === null)
      return refuse(`navigation.command.action[${i}] is ${p}, not a field of a Twist (linear.x … angular.z)`);
    return { from: m[1] as ActSource, scale: nav.command.scale[i] ?? 1 };
  });
  if (specs.length === 0) return { layout: { obs, act } };
  return {
    layout: { obs, act },
    extras: (message) => {
      const values: number[] = [];
      for (const spec of specs) {
        const r = readField(message, spec);
        if (!r.ok) return { ok: false, why: r.why };
        values.push(r.value as number);
      }
      return { ok: true, values };
    },
  };
}

/** A chain step read from the bag (ns stamps) with seconds since t0, for the core. */
function inSeconds(s: TfStep<StampedEdge>, sec: (ns: bigint) => number): TfStep {
  const e = s.edge;
  return {
    inverse: s.inverse,
    edge: {
      parent: e.parent,
      child: e.child,
      static: e.static,
      samples: e.samples.toArray().map((p) => ({ t: e.static ? 0 : sec(p.ns), pose: { x: p.x, y: p.y, yaw: p.yaw } })),
    },
  };
}

const positive = (v: number | undefined, flag: string): void => {
  if (v !== undefined && !(Number.isFinite(v) && v > 0))
    throw new WitnessError(
      'invalid-input',
      `${flag} must be a positive number of ${flag === '--rate' ? 'Hz' : 'seconds'}, got ${v}`,
      { path: flag },
    );
};

export interface BagInfo {
  readonly bag: string;
  readonly storage: string;
  readonly distro: string | null;
  readonly metadataVersion: number | null;
  /** First and last receive times (seconds since the epoch, nine decimals), when the bag says them. */
  readonly timeRange: { readonly start: string; readonly end: string } | null;
  /** Each topic; `role`: what `data import` can take it as (by its type), or null. */
  readonly topics: readonly {
    readonly name: string;
    readonly type: string;
    readonly serialization: string;
    readonly messages: number | null;
    readonly role: 'pose' | 'action' | null;
  }[];
}

/**
 * What a bag holds, for `witness data info BAG`: its storage, distro, time range and topics (with counts where the
 * storage says them).
 */
export async function bagInfo(bagPath: string): Promise<BagInfo> {
  const bag = await openBag(bagPath);
  try {
    const counts = await bag.counts();
    return {
      bag: bag.path,
      storage: bag.storage,
      distro: bag.distro,
      metadataVersion: bag.metadataVersion,
      timeRange:
        bag.timeRange === null ? null : { start: stampText(bag.timeRange[0]), end: stampText(bag.timeRange[1]) },
      topics: bag.topics.map((t) => {
        const type = normType(t.type);
        const role = (POSE_TYPES as readonly string[]).includes(type)
          ? 'pose'
          : (ACTION_TYPES as readonly string[]).includes(type)
            ? 'action'
            : null;
        return {
          name: t.name,
          type: t.type,
          serialization: t.serialization,
          messages: counts?.get(t.name) ?? null,
          role,
        };
      }),
    };
  } finally {
    await bag.close();
  }
}

/** Why a bag's poses and commands gave no rows: the two time ranges, and two clocks when they are a minute apart. */
function noRowsError(
  bagPath: string,
  o: BagImportRequest,
  drv: Awaited<ReturnType<typeof readDriving>>,
  stamps: readonly { ns: bigint }[],
  stamp: 'header' | 'receive',
  rate: number,
  maxGap: number,
): BagError {
  const range = (xs: readonly { ns: bigint }[]): string =>
    `${stampText(xs[0]!.ns)} to ${stampText(xs[xs.length - 1]!.ns)}`;
  // Header stamps against receive times a minute or more apart: two clocks (a simulated robot's
  // headers in sim time, the recorder's receive times in wall time), not a recording that missed.
  const poseEnd = [stamps[0]!.ns, stamps[stamps.length - 1]!.ns],
    cmdEnd = [drv.commands[0]!.ns, drv.commands[drv.commands.length - 1]!.ns];
  const apart =
    poseEnd[1]! < cmdEnd[0]! ? cmdEnd[0]! - poseEnd[1]! : cmdEnd[1]! < poseEnd[0]! ? poseEnd[0]! - cmdEnd[1]! : 0n;
  const clocks =
    stamp === 'header' && drv.actionType === 'geometry_msgs/msg/Twist' && apart >= 60_000_000_000n
      ? `; the poses are timed by their header stamps and the Twist commands (which have no header) by the times the recorder received them, ${(Number(apart) / 1e9).toFixed(0)} s apart: two clocks (a robot on simulated time, use_sim_time and /clock, stamps its headers in sim time while the recorder keeps wall time); --stamp receive times both by the recorder`
      : '';
  return new BagError(
    bagPath,
    `no rows: the poses on ${o.poseTopic} (${range(stamps)}) and the commands on ${o.actionTopic} (${range(drv.commands)}) do not overlap in at least two steps of ${(1 / rate).toPrecision(3)} s without a gap longer than ${maxGap} s (--max-gap)${clocks}`,
  );
}

/** Imports a bag's driving into a dataset of `o.world`, written to `o.out`. */
export async function importBag(bagPath: string, o: BagImportRequest): Promise<BagImportReport> {
  const started = Date.now();
  positive(o.rate, '--rate');
  positive(o.maxGap, '--max-gap');
  const { layout, extras } = bagLayout(o.world, o.poseTopic);
  const stamp = o.stamp ?? 'header';
  const bag = await openBag(bagPath);
  try {
    const drv = await readDriving(bag, {
      poseTopic: o.poseTopic,
      actionTopic: o.actionTopic,
      stamp,
      ...(o.frame !== undefined ? { frame: o.frame } : {}),
      ...(o.child !== undefined ? { child: o.child } : {}),
      ...(extras !== undefined ? { extras } : {}),
      ...(o.progress !== undefined ? { progress: o.progress } : {}),
    });
    // TF: the pose's stamps are those of the chain's dynamic edges (its static ones have none that count).
    const dyn = (drv.chain ?? [])
      .filter((s) => !s.edge.static && s.edge.samples.length > 0)
      .map((s) => s.edge.samples.toArray());
    const stamps =
      drv.chain !== undefined ? dyn.flat().sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0)) : drv.poses;
    const t0 = stamps[0]!.ns < drv.commands[0]!.ns ? stamps[0]!.ns : drv.commands[0]!.ns;
    const sec = (ns: bigint): number => Number(ns - t0) / 1e9;
    const commands = drv.commands.map((c) => ({ t: sec(c.ns), linear: c.linear, angular: c.angular }));
    // From whole nanoseconds, so a 100 Hz topic gives 100 Hz, not 100.00000000000213. A chain: its fastest edge's rate.
    const intervals = (drv.chain !== undefined ? dyn : [drv.poses])
      .map((xs) => medianInterval(xs.map((p) => Number(p.ns - t0))))
      .filter((v) => v !== null);
    const interval = intervals.length > 0 ? Math.min(...intervals) : null;
    const rate = o.rate ?? (interval === null ? null : 1e9 / interval);
    if (rate === null)
      throw new BagError(
        bag.path,
        `topic ${o.poseTopic}: all its ${drv.chain !== undefined ? 'transforms from --frame to --child have' : 'poses have'} one stamp (${stampText(stamps[0]!.ns)}), so it has no rate${stamp === 'header' ? ': are its header stamps set? --stamp receive uses the times the recorder received them' : ''}`,
      );
    const maxGap = o.maxGap ?? Math.max(0.5, 5 / rate);
    const poses: PoseTrack | { t: number; x: number; y: number; yaw: number }[] =
      drv.chain !== undefined
        ? chainTrack(
            drv.chain.map((s) => inSeconds(s, sec)),
            maxGap,
          )!
        : drv.poses.map((p) => ({
            t: sec(p.ns),
            x: p.x,
            y: p.y,
            yaw: p.yaw,
            ...(p.extra !== undefined ? { extra: p.extra } : {}),
          }));
    const r = resampleDriving(poses, commands, layout, { rate, maxGap });
    if (r.rows === 0 || r.span === null) throw noRowsError(bag.path, o, drv, stamps, stamp, rate, maxGap);
    const where = placement(o.world, r.observations, layout.obs.length);
    const at = (s: number): string => stampText(t0 + BigInt(Math.round(s * 1e9)));
    const d: Dataset = {
      worldId: o.world,
      obsDim: layout.obs.length,
      actDim: layout.act.length,
      seed: 0,
      observations: r.observations,
      actions: r.actions,
      terminals: r.terminals,
      generator: {
        kind: 'rosbag2',
        bag: bag.path,
        storage: bag.storage,
        distro: bag.distro,
        metadataVersion: bag.metadataVersion,
        pose: {
          topic: o.poseTopic,
          type: drv.poseType,
          ...(o.frame !== undefined ? { frame: o.frame, child: o.child ?? null } : {}),
          ...(drv.chain !== undefined
            ? {
                chain: drv.chain.map(
                  (c) =>
                    `${c.edge.parent} → ${c.edge.child}${c.inverse ? ' (inverted)' : ''}${c.edge.static ? ' (static)' : ''}`,
                ),
              }
            : {}),
        },
        action: { topic: o.actionTopic, type: drv.actionType },
        stamp,
        timeRange: { start: at(r.span[0]), end: at(r.span[1]) },
        rate,
        maxGap,
        observation: [...worldEntry(o.world).spec.observation.names],
        actionFrom: layout.act.map((a) => ({ from: a.from, scale: a.scale })),
        clip: layout.clip ? [...layout.clip] : null,
        episodes: r.episodes,
        transitions: r.rows,
        clipped: r.clipped,
        messages: drv.messages,
        ...(worldEntry(o.world).layout !== undefined ? { outsideFree: where.outside } : {}),
      },
    };
    await writeDataset(o.out, d);
    return {
      transitions: r.rows,
      episodes: r.episodes,
      rate,
      maxGap,
      messages: drv.messages,
      storage: bag.storage,
      distro: bag.distro,
      clipped: r.clipped,
      ...where,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await bag.close();
  }
}

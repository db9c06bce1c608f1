/**
 * Recorded driving (stamped poses and stamped velocity commands, as a rosbag2 recording holds them)
 * → dataset rows at a fixed rate. Pure: the readers (services/datasets/rosbag2) hand in the samples,
 * this turns them into observations, actions and terminals.
 *
 * The grid is global: t_k = start + k / rate, from the later of the first pose and the first
 * command to the earlier of the last pose and the last command. A grid time is usable when a pose
 * lies on each side of it no more than `maxGap` apart (the pose is interpolated linearly, the yaw
 * along the shorter arc) and the latest command at or before it is at most `maxGap` old (commands
 * are held: a robot keeps its last command until the next). Consecutive usable grid times form one
 * episode; an unusable one ends it. Episodes of fewer than two rows are dropped. Velocities are
 * finite differences of the resampled positions (central inside an episode, one-sided at its ends),
 * so every pose source gives them alike.
 */

/** A pose in the plane: seconds (relative to any fixed origin), metres, radians. */
export interface PoseSample {
  readonly t: number;
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
  /** Other numbers the pose message carries (a robot's odometry fields), interpolated like x and y. */
  readonly extra?: readonly number[];
}

/** A velocity command (geometry_msgs/Twist): body-frame linear and angular velocities. */
export interface TwistSample {
  readonly t: number;
  readonly linear: readonly [number, number, number];
  readonly angular: readonly [number, number, number];
}

/** What one observation dimension is: the pose (x, y, yaw) or its velocity in the world frame. */
export type ObsField = 'x' | 'y' | 'yaw' | 'vx' | 'vy';
/** An observation dimension: a pose field, or the i-th of the poses' `extra` numbers. */
export type ObsSource = ObsField | { readonly extra: number };

/**
 * Where one action dimension comes from: a field of the command (`linear.x`, `angular.z`, … in the
 * robot's frame) or the command's linear velocity turned into the world frame by the pose's yaw
 * (`world.x`, `world.y`: a holonomic point's push). The value is divided by `scale`.
 */
export type ActSource = `${'linear' | 'angular'}.${'x' | 'y' | 'z'}` | 'world.x' | 'world.y';
export interface ActField {
  readonly from: ActSource;
  readonly scale: number;
}

export interface RowLayout {
  readonly obs: readonly ObsSource[];
  readonly act: readonly ActField[];
  /** Actions are clipped to [lo, hi] when given (the point mazes' [-1, 1]). */
  readonly clip?: readonly [number, number];
}

/**
 * Poses as a function of time rather than samples (a TF chain composed at each grid time): `at` is
 * asked at increasing times in [first, last] and gives the pose there, or null where there is none
 * (that grid time ends an episode).
 */
export interface PoseTrack {
  readonly first: number;
  readonly last: number;
  at(
    t: number,
  ): { readonly x: number; readonly y: number; readonly yaw: number; readonly extra?: readonly number[] } | null;
}

export interface ResampleOptions {
  /** Rows per second. */
  readonly rate: number;
  /** Longest time between poses, and longest a command is held, in seconds. */
  readonly maxGap: number;
}

export interface Resampled {
  readonly observations: Float32Array;
  readonly actions: Float32Array;
  readonly terminals: Uint8Array;
  readonly rows: number;
  readonly episodes: number;
  /** Action values that were clipped (counted per value). */
  readonly clipped: number;
  /** The grid's first and last usable times (seconds, same origin as the samples); null without rows. */
  readonly span: readonly [number, number] | null;
}

/** The median interval between increasing stamps, ignoring repeats; null with fewer than two distinct stamps. */
export function medianInterval(times: ArrayLike<number>): number | null {
  const d: number[] = [];
  for (let i = 1; i < times.length; i++) {
    const dt = times[i]! - times[i - 1]!;
    if (dt > 0) d.push(dt);
  }
  if (d.length === 0) return null;
  d.sort((a, b) => a - b);
  return d.length % 2 === 1 ? d[(d.length - 1) / 2]! : (d[d.length / 2 - 1]! + d[d.length / 2]!) / 2;
}

/**
 * The median rate (Hz) of increasing stamps in seconds: 1 / the median interval; null with fewer than two distinct
 * stamps.
 */
export function medianRate(times: ArrayLike<number>): number | null {
  const m = medianInterval(times);
  return m === null ? null : 1 / m;
}

/** The angle wrapped to (-π, π]. */
export function wrapAngle(a: number): number {
  const w = a - 2 * Math.PI * Math.floor((a + Math.PI) / (2 * Math.PI));
  return w <= -Math.PI ? w + 2 * Math.PI : w;
}

/** Index of the last sample at or before t, moving on from `i` (times only grow); -1 when none is. */
function advance(ts: readonly { t: number }[], t: number, i: number): number {
  while (i + 1 < ts.length && ts[i + 1]!.t <= t) i++;
  return i;
}

function actValue(src: ActSource, c: TwistSample, yaw: number): number {
  switch (src) {
    case 'world.x':
      return c.linear[0] * Math.cos(yaw) - c.linear[1] * Math.sin(yaw);
    case 'world.y':
      return c.linear[0] * Math.sin(yaw) + c.linear[1] * Math.cos(yaw);
    default: {
      const [part, axis] = src.split('.') as ['linear' | 'angular', 'x' | 'y' | 'z'];
      return (part === 'linear' ? c.linear : c.angular)['xyz'.indexOf(axis)]!;
    }
  }
}

interface GridRow {
  readonly t: number;
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
  readonly extra: readonly number[];
  readonly cmd: TwistSample;
}

const NONE: readonly number[] = [];

/**
 * Rows at `opts.rate` from poses (samples, or a track) and commands, each sorted by time
 * (non-decreasing; of equal stamps the last counts). Throws RangeError on a rate or gap that is not positive and
 * finite: callers check their flags first.
 */
export function resampleDriving(
  poses: readonly PoseSample[] | PoseTrack,
  commands: readonly TwistSample[],
  layout: RowLayout,
  opts: ResampleOptions,
): Resampled {
  if (!(opts.rate > 0 && Number.isFinite(opts.rate))) throw new RangeError(`rate must be positive, got ${opts.rate}`);
  if (!(opts.maxGap > 0 && Number.isFinite(opts.maxGap)))
    throw new RangeError(`maxGap must be positive, got ${opts.maxGap}`);
  const track = isTrack(poses) ? poses : sampleTrack(poses, opts.maxGap);
  const episodes: GridRow[][] = [];
  if (track !== null && commands.length > 0) {
    const start = Math.max(track.first, commands[0]!.t);
    const end = Math.min(track.last, commands[commands.length - 1]!.t);
    let cur: GridRow[] = [];
    let ci = -1;
    // Rounding: a grid time within a nanosecond of the end still counts.
    const steps = end >= start ? Math.floor((end - start) * opts.rate + 1e-9) : -1;
    for (let k = 0; k <= steps; k++) {
      const t = Math.min(start + k / opts.rate, end);
      ci = advance(commands, t, ci);
      const cmd = ci < 0 ? undefined : commands[ci]!;
      const p = cmd === undefined || t - cmd.t > opts.maxGap ? null : track.at(t);
      if (p === null || cmd === undefined) {
        if (cur.length > 0) episodes.push(cur);
        cur = [];
      } else cur.push({ t, x: p.x, y: p.y, yaw: p.yaw, extra: p.extra ?? NONE, cmd });
    }
    if (cur.length > 0) episodes.push(cur);
  }
  return toRows(
    episodes.filter((e) => e.length >= 2),
    layout,
    opts.rate,
  );
}

const isTrack = (p: readonly PoseSample[] | PoseTrack): p is PoseTrack => !Array.isArray(p);

/**
 * Samples as a track, for increasing times: linear between two samples no more than maxGap apart. Null without samples.
 */
function sampleTrack(poses: readonly PoseSample[], maxGap: number): PoseTrack | null {
  if (poses.length === 0) return null;
  let pi = -1;
  return {
    first: poses[0]!.t,
    last: poses[poses.length - 1]!.t,
    at(t) {
      pi = advance(poses, t, pi);
      if (pi < 0) return null;
      const a = poses[pi]!;
      if (a.t === t) return a;
      const b = poses[pi + 1];
      if (b === undefined || b.t - a.t > maxGap) return null;
      const u = (t - a.t) / (b.t - a.t);
      const ea = a.extra ?? NONE,
        eb = b.extra ?? NONE;
      return {
        x: a.x + u * (b.x - a.x),
        y: a.y + u * (b.y - a.y),
        yaw: wrapAngle(a.yaw + u * wrapAngle(b.yaw - a.yaw)),
        extra: ea.map((v, i) => v + u * ((eb[i] ?? v) - v)),
      };
    },
  };
}

function toRows(episodes: readonly GridRow[][], layout: RowLayout, rate: number): Resampled {
  const n = episodes.reduce((s, e) => s + e.length, 0);
  const od = layout.obs.length,
    ad = layout.act.length;
  const observations = new Float32Array(n * od),
    actions = new Float32Array(n * ad),
    terminals = new Uint8Array(n);
  let r = 0,
    clipped = 0;
  for (const e of episodes) {
    for (let i = 0; i < e.length; i++, r++) {
      const row = e[i]!;
      // Central differences inside, one-sided at the ends (an episode has at least two rows).
      const l = Math.max(i - 1, 0),
        h = Math.min(i + 1, e.length - 1);
      const lo = e[l]!,
        hi = e[h]!,
        span = (h - l) / rate;
      const v = { vx: (hi.x - lo.x) / span, vy: (hi.y - lo.y) / span };
      layout.obs.forEach((f, j) => {
        observations[r * od + j] =
          typeof f === 'object' ? (row.extra[f.extra] ?? NaN) : f === 'vx' || f === 'vy' ? v[f] : row[f];
      });
      layout.act.forEach((f, j) => {
        let a = actValue(f.from, row.cmd, row.yaw) / f.scale;
        if (layout.clip !== undefined && (a < layout.clip[0] || a > layout.clip[1])) {
          a = Math.min(Math.max(a, layout.clip[0]), layout.clip[1]);
          clipped++;
        }
        actions[r * ad + j] = a;
      });
    }
    terminals[r - 1] = 1;
  }
  const first = episodes[0],
    last = episodes[episodes.length - 1];
  return {
    observations,
    actions,
    terminals,
    rows: n,
    episodes: episodes.length,
    clipped,
    span: first !== undefined && last !== undefined ? [first[0]!.t, last[last.length - 1]!.t] : null,
  };
}

/**
 * A small TF buffer: the latest transform of every frame from /tf and /tf_static, and lookups
 * along the frame tree (target ← source, e.g. map ← base_link). rclnodejs has no tf2 buffer, and
 * verifiers need the present pose, not interpolation in the past, so latest-only is enough; what
 * matters is knowing when a link has gone stale. Pure: the clock is passed in.
 */

export interface Transform {
  readonly t: readonly [number, number, number];
  /** Unit quaternion x, y, z, w. */
  readonly q: readonly [number, number, number, number];
}

export const IDENTITY: Transform = { t: [0, 0, 0], q: [0, 0, 0, 1] };

type Q = readonly [number, number, number, number];

function qmul(a: Q, b: Q): [number, number, number, number] {
  const [ax, ay, az, aw] = a,
    [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

function rotate(q: Q, v: readonly [number, number, number]): [number, number, number] {
  const r = qmul(qmul(q, [v[0], v[1], v[2], 0]), [-q[0], -q[1], -q[2], q[3]]);
  return [r[0], r[1], r[2]];
}

/** a ∘ b: the transform of b's child in a's parent frame. */
export function compose(a: Transform, b: Transform): Transform {
  const r = rotate(a.q, b.t);
  return { t: [a.t[0] + r[0], a.t[1] + r[1], a.t[2] + r[2]], q: qmul(a.q, b.q) };
}

export function invert(a: Transform): Transform {
  const qi: Q = [-a.q[0], -a.q[1], -a.q[2], a.q[3]];
  const r = rotate(qi, a.t);
  return { t: [-r[0], -r[1], -r[2]], q: qi };
}

/** Rotation about z of a quaternion (ZYX Euler yaw), radians in (-π, π]. */
export function yawOf(q: Q): number {
  const [x, y, z, w] = q;
  return Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
}

interface Edge {
  readonly parent: string;
  readonly transform: Transform;
  readonly received_s: number;
  readonly isStatic: boolean;
}

export type Lookup =
  | { readonly ok: true; readonly transform: Transform; readonly age_s: number }
  | { readonly ok: false; readonly kind: 'missing'; readonly why: string }
  /** `link`: the oldest dynamic link of the chain, "parent → child" (the one that went quiet). */
  | {
      readonly ok: false;
      readonly kind: 'stale';
      readonly why: string;
      readonly link: { readonly parent: string; readonly child: string };
    };

const frameId = (s: unknown): string => (typeof s === 'string' ? s.replace(/^\/+/, '') : '');

function num(v: unknown): number {
  return typeof v === 'number' ? v : Number.NaN;
}

export class TfBuffer {
  private readonly edges = new Map<string, Edge>();
  private lastMessage_s = -Infinity;

  /** Takes a tf2_msgs/msg/TFMessage; returns how many transforms it stored. */
  ingest(message: unknown, isStatic: boolean, now_s: number): number {
    const list = (message as { transforms?: unknown } | null)?.transforms;
    if (!Array.isArray(list)) return 0;
    let n = 0;
    for (const ts of list as unknown[]) {
      const m = ts as {
        header?: { frame_id?: unknown };
        child_frame_id?: unknown;
        transform?: { translation?: Record<string, unknown>; rotation?: Record<string, unknown> };
      };
      const parent = frameId(m.header?.frame_id),
        child = frameId(m.child_frame_id);
      const tr = m.transform?.translation,
        ro = m.transform?.rotation;
      if (!parent || !child || parent === child || tr === undefined || ro === undefined) continue;
      const t: [number, number, number] = [num(tr['x']), num(tr['y']), num(tr['z'])];
      const q: [number, number, number, number] = [num(ro['x']), num(ro['y']), num(ro['z']), num(ro['w'])];
      if (![...t, ...q].every(Number.isFinite)) continue;
      const norm = Math.hypot(...q);
      if (norm < 1e-9) continue;
      this.edges.set(child, {
        parent,
        transform: { t, q: [q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm] },
        received_s: now_s,
        isStatic,
      });
      n++;
    }
    if (n > 0 && !isStatic) this.lastMessage_s = now_s;
    return n;
  }

  /** When the last dynamic transform arrived (−∞ when none has). */
  get lastDynamic_s(): number {
    return this.lastMessage_s;
  }

  /** "parent → child" for every known link, for diagnostics. */
  links(): string[] {
    return [...this.edges].map(([child, e]) => `${e.parent} → ${child}${e.isStatic ? ' (static)' : ''}`);
  }

  /**
   * The chain from a frame up to its root: transforms root ← frame, with the oldest dynamic link (its receive time and
   * child frame).
   */
  private up(frame: string): Map<string, { toFrame: Transform; oldest_s: number; oldest: string | null }> {
    const out = new Map<string, { toFrame: Transform; oldest_s: number; oldest: string | null }>();
    let acc = IDENTITY,
      oldest_s = Infinity,
      oldest: string | null = null,
      f = frame;
    out.set(f, { toFrame: acc, oldest_s, oldest });
    for (let guard = 0; guard < 64; guard++) {
      const e = this.edges.get(f);
      if (e === undefined) break;
      acc = compose(e.transform, acc);
      if (!e.isStatic && e.received_s < oldest_s) {
        oldest_s = e.received_s;
        oldest = f;
      }
      f = e.parent;
      if (out.has(f)) break; // a cycle in a broken tree: stop rather than loop
      out.set(f, { toFrame: acc, oldest_s, oldest });
    }
    return out;
  }

  /**
   * The transform target ← source (the pose of source in target), if the tree links them and no dynamic link is older
   * than staleness_s.
   */
  lookup(target: string, source: string, now_s: number, staleness_s: number): Lookup {
    const fromSource = this.up(source);
    const fromTarget = this.up(target);
    let common: string | undefined;
    for (const f of fromTarget.keys())
      if (fromSource.has(f)) {
        common = f;
        break;
      }
    if (common === undefined) {
      const known = this.links();
      return {
        ok: false,
        kind: 'missing',
        why: `no transform ${target} ← ${source}${known.length > 0 ? `; known links: ${known.join(', ')}` : '; no transform has been received'}`,
      };
    }
    const s = fromSource.get(common)!,
      t = fromTarget.get(common)!;
    const older = s.oldest_s <= t.oldest_s ? s : t;
    const age_s = older.oldest_s === Infinity ? 0 : now_s - older.oldest_s;
    if (age_s > staleness_s) {
      const child = older.oldest!,
        parent = this.edges.get(child)!.parent;
      return {
        ok: false,
        kind: 'stale',
        link: { parent, child },
        why: `the transform ${target} ← ${source} is ${age_s.toFixed(2)} s old (bound ${staleness_s} s): nothing new on ${parent} → ${child}`,
      };
    }
    return { ok: true, transform: compose(invert(t.toFrame), s.toFrame), age_s };
  }
}

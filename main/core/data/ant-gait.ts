/**
 * The scripted Ant gait: a trot (legs 1 and 3 in phase, 2 and 4 half a cycle later) from sinusoids
 * on the hips and ankles, tracked by a PD loop on the joint angles. It walks in any direction without
 * turning: the direction is taken into the torso's frame and each hip swings along its share of it
 * (the gait frame is rotated, not the body), while a small yaw hold keeps the torso's heading where
 * the episode started, so that noise does not spin it. Pure: reads only the 29-D observation.
 *
 * Observation indices (core/world/ant-mjcf.ts): x 0, y 1, z 2, quaternion 3..6, joints 7..14
 * (hip/ankle of legs 1..4), joint rates 21..28. Actions follow the actuator order ACTUATOR_JOINT.
 */
import { ACTUATOR_JOINT, ANT_ARMATURE, ANT_DAMPING, DEFAULT_ANT } from '../world/ant-mjcf.js';

const ANT_GEAR = DEFAULT_ANT.gear;

export interface GaitParams {
  /** Gait cycles per second. */
  readonly frequency_Hz: number;
  /** Hip swing amplitude, rad (the hips' range is ±0.52). */
  readonly hipAmplitude: number;
  /** Ankle angle (magnitude) while a foot bears weight, rad (range 0.52..1.22; at rest the 0.52 stop). */
  readonly ankleStance: number;
  /** How far the ankle lifts a swinging foot, rad. */
  readonly ankleLift: number;
  /**
   * Where in the hip's cycle the foot lifts: while sin(phase + liftPhase) < 0. Measured, not
   * derived: the PD loop's lag moves where a lift carries the torso forward (−1.5 was fastest;
   * a half cycle off, the same gait walks backward).
   */
  readonly liftPhase: number;
  /**
   * PD gains on joint angles, in control units per rad and per rad/s, for the hips and the ankles
   * apart: the ankles carry the torso, and a stiff ankle at 150 N·m per unit launches a 1 kg Ant.
   * The loop runs once per control step (a 50 ms hold), so damping beyond about 0.15 overshoots.
   */
  readonly kpHip: number;
  readonly kdHip: number;
  readonly kpAnkle: number;
  readonly kdAnkle: number;
  /** Caps on the PD's output per joint kind (control units): torque enough to walk, not to leap. */
  readonly maxHip: number;
  readonly maxAnkle: number;
  /** Share of the inertial feedforward torque (0: PD only). */
  readonly feedforward: number;
  /** How fast the gait frame turns to a new direction (fraction per control step). */
  readonly steerRate: number;
  /**
   * Below this uprightness (the z of the torso's up axis) the gait stops stepping and stands until
   * the torso is level again: a roll onto two legs takes 0.5–1 s, and a swinging leg or a hip
   * sweep in it finishes the fall.
   */
  readonly freezeBelow: number;
  /** Yaw hold: hip bias per radian of heading error, and its bound. */
  readonly yawGain: number;
  readonly yawMax: number;
}

/**
 * Tuned on noisy open-space waypoints, maze pairs and navigate datasets (σ = 0.2) for no falls first
 * and speed second: gentle hips (the armature, not the ground, takes most of their torque, which
 * the feedforward supplies), a low, wide stance (ankles at 0.55 rad, just off their 0.52 stop: higher
 * ankles roll the Ant over in the maze), a small lift (0.2 rad: a higher one falls more often on
 * navigate data) and standing still while tipped. Faster gaits (2.5 Hz, stiffer legs) hopped and fell
 * over under noise. Figures in docs/studies/defaults.md.
 */
export const DEFAULT_GAIT: GaitParams = {
  frequency_Hz: 2,
  hipAmplitude: 0.52,
  ankleStance: 0.55,
  ankleLift: 0.2,
  liftPhase: -1.5,
  kpHip: 0.5,
  kdHip: 0.1,
  kpAnkle: 0.8,
  kdAnkle: 0.12,
  maxHip: 0.6,
  maxAnkle: 1,
  feedforward: 1,
  steerRate: 0.3,
  freezeBelow: 0.85,
  yawGain: 0.6,
  yawMax: 0.3,
};

/** Each leg's tangent: where its foot moves when the hip angle grows (hips turn about +z). */
const LEG_ANGLE = [Math.PI / 4, (3 * Math.PI) / 4, (-3 * Math.PI) / 4, -Math.PI / 4];
const TANGENT = LEG_ANGLE.map((a) => [-Math.sin(a), Math.cos(a)] as const);
/** Sign of each ankle's range: legs 1 and 4 bend positive, 2 and 3 negative. */
const ANKLE_SIGN = [1, -1, -1, 1];
/** Trot: diagonal pairs half a cycle apart. */
const LEG_PHASE = [0, Math.PI, 0, Math.PI];

/** The torso's heading (yaw, rad) from the observation's quaternion. */
export function antYaw(obs: ArrayLike<number>): number {
  const w = obs[3]!,
    x = obs[4]!,
    y = obs[5]!,
    z = obs[6]!;
  return Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
}

/** The z component of the torso's up axis: 1 upright, below 0 on its back. */
export function antUprightness(obs: ArrayLike<number>): number {
  const x = obs[4]!,
    y = obs[5]!;
  return 1 - 2 * (x * x + y * y);
}

const wrap = (a: number): number => Math.atan2(Math.sin(a), Math.cos(a));
const clip = (v: number, m: number): number => (v < -m ? -m : v > m ? m : v);

export class AntGait {
  private phase = 0;
  private yawHold = 0;
  /** The walking direction in the world frame, smoothed so the gait frame turns, not jumps. */
  private wx = 0;
  private wy = 0;
  /** Joint targets (body order) at the middle of the coming control step, and their rates. */
  private readonly target = new Float64Array(8);
  private readonly rate = new Float64Array(8);
  private readonly accel = new Float64Array(8);

  constructor(
    readonly params: GaitParams = DEFAULT_GAIT,
    readonly control_dt_s = 0.05,
  ) {}

  /** A new episode: the cycle restarts and the heading to hold is the torso's current one. */
  start(obs: ArrayLike<number>): void {
    this.phase = 0;
    this.yawHold = antYaw(obs);
    this.wx = 0;
    this.wy = 0;
  }

  /**
   * The action (8 values in [-1, 1], actuator order) that walks toward world direction (dx, dy);
   * a zero direction stands still (feet down, hips straight but for the heading hold's bias).
   */
  act(obs: ArrayLike<number>, dx: number, dy: number, out: Float64Array): Float64Array {
    const p = this.params;
    const yaw = antYaw(obs);
    const norm = Math.hypot(dx, dy);
    const moving = norm > 1e-9 && antUprightness(obs) >= p.freezeBelow;
    if (moving) {
      // A new direction is taken in over a few steps: a jump of the gait frame would jerk every hip.
      this.wx += p.steerRate * (dx / norm - this.wx);
      this.wy += p.steerRate * (dy / norm - this.wy);
    }
    const wn = Math.hypot(this.wx, this.wy) || 1;
    // The direction in the torso's frame: the gait frame turns, the body need not.
    const c = Math.cos(yaw),
      s = Math.sin(yaw);
    const bx = moving ? (c * this.wx + s * this.wy) / wn : 0,
      by = moving ? (-s * this.wx + c * this.wy) / wn : 0;
    const turn = clip(p.yawGain * wrap(this.yawHold - yaw), p.yawMax);
    const w = 2 * Math.PI * p.frequency_Hz;
    if (moving) this.phase = (this.phase + w * this.control_dt_s) % (2 * Math.PI);
    // Targets at the middle of the step the action is held for, so the PD does not chase the past.
    const mid = this.phase + (moving ? (w * this.control_dt_s) / 2 : 0);
    for (let leg = 0; leg < 4; leg++) {
      const [tx, ty] = TANGENT[leg]!;
      const ph = mid + LEG_PHASE[leg]!;
      // Each hip sweeps along its share of the direction; the common `turn` term sweeps every
      // foot the same way round, which turns the torso back toward the held heading.
      const amp = moving ? clip(p.hipAmplitude * (bx * tx + by * ty) + turn, 0.52) : 0;
      this.target[2 * leg] = moving ? amp * Math.cos(ph) : turn;
      this.rate[2 * leg] = moving ? -amp * w * Math.sin(ph) : 0;
      this.accel[2 * leg] = moving ? -amp * w * w * Math.cos(ph) : 0;
      // The foot lifts on a squared sine: it leaves and meets the ground at no speed, not with a kick.
      const q = ph + p.liftPhase,
        m = moving ? Math.max(0, -Math.sin(q)) : 0;
      const sign = ANKLE_SIGN[leg]!;
      this.target[2 * leg + 1] = sign * (p.ankleStance - p.ankleLift * m * m);
      this.rate[2 * leg + 1] = m > 0 ? sign * p.ankleLift * 2 * m * Math.cos(q) * w : 0;
      this.accel[2 * leg + 1] = m > 0 ? -sign * p.ankleLift * w * w * (2 * Math.cos(q) ** 2 - 2 * m * m) : 0;
    }
    for (let k = 0; k < 8; k++) {
      const j = ACTUATOR_JOINT[k]!;
      const [kp, kd, max] = j % 2 === 0 ? [p.kpHip, p.kdHip, p.maxHip] : [p.kpAnkle, p.kdAnkle, p.maxAnkle];
      // Feedforward: the torque that moves the joint's own inertia (its armature) along the target.
      const ff = (p.feedforward * (ANT_ARMATURE * this.accel[j]! + ANT_DAMPING * this.rate[j]!)) / ANT_GEAR;
      out[k] = clip(ff + kp * (this.target[j]! - obs[7 + j]!) + kd * (this.rate[j]! - obs[21 + j]!), max);
    }
    return out;
  }
}

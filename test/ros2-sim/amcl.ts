/**
 * TEST CODE — AMCL as the simulated ROS 2 graph runs it (nav2_amcl/src/amcl_node.cpp, the same on
 * the humble and jazzy branches):
 *
 * - map → odom is broadcast on /tf (a TransformBroadcaster, not /tf_static) from laserReceived,
 *   once per laser scan, and only once the initial pose is known (sendMapToOdomTransform returns
 *   early otherwise; set_initial_pose defaults to false, so someone must publish /initialpose —
 *   RViz's "2D Pose Estimate" — or call set_initial_pose).
 * - Its stamp is the scan's plus transform_tolerance (1.0 s): tf2 lookups at the latest common time
 *   keep working for that long after the last scan; past it the rest of Nav2 reads the robot where
 *   it was then (the chain's latest common time is the old transform's stamp). A silent lidar
 *   therefore freezes Nav2's idea of the robot's pose while the wheels go on turning.
 *
 * The stand-in's estimate is the true pose (a converged filter); what it models is when the
 * transform exists and how old it is.
 */
import { AMCL_TRANSFORM_TOLERANCE_S } from './nav2-profile.js';

export interface Pose2 {
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
}

export class SimAmcl {
  private known: boolean;
  private lidar = true;
  private lastScan_s = -Infinity;
  private nextScan_s = 0;
  private seen: Pose2 | null = null;
  /** Scans AMCL received. */
  scans = 0;

  private readonly scan_hz: number;

  constructor(o: { readonly localised: boolean; readonly scan_hz: number }) {
    this.known = o.localised;
    this.scan_hz = o.scan_hz;
  }

  /** /initialpose at the robot's true pose (an operator's 2D Pose Estimate): map → odom follows with the next scan. */
  initialPose(): void {
    this.known = true;
  }

  /** Whether the initial pose is known. */
  get localised(): boolean {
    return this.known;
  }

  /** The lidar publishes its scans (true) or has gone quiet (false). */
  setLidar(on: boolean): void {
    this.lidar = on;
  }

  /**
   * One step at `now_s`: true when a scan arrived and AMCL broadcast map → odom (stamped `now_s` +
   * transform_tolerance).
   */
  tick(now_s: number, truth: Pose2): boolean {
    let broadcast = false;
    if (this.lidar && now_s >= this.nextScan_s) {
      this.nextScan_s = now_s + 1 / this.scan_hz;
      this.scans++;
      if (this.known) {
        this.lastScan_s = now_s;
        broadcast = true;
      }
    }
    // What a tf2 lookup of map ← base_link at the latest common time gives the rest of Nav2.
    if (this.known && now_s - this.lastScan_s <= AMCL_TRANSFORM_TOLERANCE_S) this.seen = truth;
    return broadcast;
  }

  /**
   * The robot's pose in the map frame as the planner, controller and navigator read it from TF; null before the first
   * map → odom.
   */
  get estimate(): Pose2 | null {
    return this.seen;
  }
}

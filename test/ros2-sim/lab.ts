/**
 * TEST CODE — the lab the simulated ROS 2 graph stands in: a 10 × 6 m floor with a dock, a shelf and a
 * hazard, its map graph (what `witness graph from-map` gives: a 1 m lattice labelled by the
 * regions), and a robot configuration (Nav2 actions, clearing both costmaps, a gripper, odometry, joint
 * states, TF).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { labelAt, parseRegions } from '../../main/core/world/regions.js';

export const PATROL = 'G F shelf & G F dock & G !hazard';

export const REGIONS = {
  regions: [
    { name: 'dock', kind: 'disk', center: [1, 1], radius: 0.6 },
    { name: 'shelf', kind: 'box', min: [6.6, 3.6], max: [8.4, 5.4] },
    { name: 'hazard', kind: 'box', min: [3.6, -0.4], max: [5.4, 3.4] },
  ],
};

/** A lab floor as `witness graph from-map` would give it: a 1 m lattice over 10 × 6 m, labels from the regions. */
export function labGraph(): unknown {
  const set = parseRegions(REGIONS, 'regions.json');
  const nodes: { id: string; labels: string[]; pos: [number, number] }[] = [];
  const edges: { from: string; to: string; weight: number }[] = [];
  const id = (i: number, j: number): string => `n_${i}_${j}`;
  for (let i = 0; i <= 9; i++)
    for (let j = 0; j <= 5; j++) nodes.push({ id: id(i, j), labels: labelAt(set.regions, i, j), pos: [i, j] });
  for (let i = 0; i <= 9; i++) {
    for (let j = 0; j <= 5; j++) {
      for (const [di, dj] of [
        [1, 0],
        [0, 1],
        [1, 1],
        [1, -1],
      ] as const) {
        const a = i + di,
          b = j + dj;
        if (a <= 9 && b >= 0 && b <= 5) edges.push({ from: id(i, j), to: id(a, b), weight: Math.hypot(di, dj) });
      }
    }
  }
  return { name: 'lab', nodes, edges, start: id(0, 0) };
}

export function setup(o: { through?: boolean; goal_timeout_s?: number; min_speed_m_s?: number } = {}): {
  dir: string;
  world: string;
  graph: string;
  regions: string;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-ros2-map-'));
  writeFileSync(path.join(dir, 'regions.json'), JSON.stringify(REGIONS));
  writeFileSync(path.join(dir, 'graph.json'), JSON.stringify(labGraph()));
  writeFileSync(
    path.join(dir, 'robot.json'),
    JSON.stringify({
      version: 1,
      id: 'lab-sim',
      description: 'a Nav2 base in the lab (simulated ROS 2 graph)',
      connect_timeout_s: 2,
      staleness_s: 0.5,
      control_dt_s: 0.01,
      // TF within 1 s of wall time: AMCL's map → odom comes once per scan (20 ms of wall time here), and a loaded
      // test machine can hold the event loop for longer than that.
      frames: { map: 'map', odom: 'odom', base: 'base_link' },
      pose: { source: 'tf' },
      tf: { staleness_s: 1 },
      regions: 'regions.json',
      sensors: {
        odom: {
          topic: '/odom',
          type: 'nav_msgs/msg/Odometry',
          fields: { 'base.vx': { path: 'twist.twist.linear.x' } },
        },
        joints: {
          topic: '/joint_states',
          type: 'sensor_msgs/msg/JointState',
          fields: { 'gripper.width_cm': { path: 'position[name=finger_joint]', scale: 200, unit: 'cm' } },
        },
      },
      tools: {
        navigate: {
          action: '/navigate_to_pose',
          type: 'nav2_msgs/action/NavigateToPose',
          timeout_s: 30,
          server_timeout_s: 0.5,
          cancel_timeout_s: 1,
          goal: {
            'pose.header.frame_id': { value: 'map' },
            'pose.pose.position.x': { arg: 'x' },
            'pose.pose.position.y': { arg: 'y' },
            'pose.pose.orientation': { yaw_to_quaternion: 'yaw' },
          },
          feedback: { 'nav.distance_remaining_m': { path: 'distance_remaining', unit: 'm' } },
        },
        grip: {
          action: '/gripper_controller/gripper_cmd',
          type: 'control_msgs/action/GripperCommand',
          timeout_s: 5,
          server_timeout_s: 0.5,
          goal: {
            'command.position': { arg: 'position_m' },
            'command.max_effort': { arg: 'max_effort_N', default: 20 },
          },
        },
      },
      services: {
        clear_costmaps: {
          service: ['/local_costmap/clear_entirely_local_costmap', '/global_costmap/clear_entirely_global_costmap'],
          type: 'nav2_msgs/srv/ClearEntireCostmap',
          timeout_s: 2,
          server_timeout_s: 0.5,
        },
      },
      waypoints: {
        action: '/navigate_to_pose',
        ...(o.through !== false ? { through: { action: '/navigate_through_poses', max_poses: 8 } } : {}),
        poll_s: 0.01,
        goal_timeout_s: o.goal_timeout_s ?? 2,
        min_speed_m_s: o.min_speed_m_s ?? 1,
        cancel_timeout_s: 1,
        server_timeout_s: 0.5,
      },
    }),
  );
  return {
    dir,
    world: `ros2:${path.join(dir, 'robot.json')}`,
    graph: path.join(dir, 'graph.json'),
    regions: path.join(dir, 'regions.json'),
  };
}

/** What a ROS 2 world is, from its configuration alone: its spec and its vocabulary. */
import type { WorldMap, WorldSpec } from '../../core/world/world.js';
import type { Vocabulary } from '../../core/loop/vocabulary.js';
import { type NavigationConfig, type Ros2Config, fieldType } from './config.js';

/** The spec of a ROS 2 world from its configuration. */
export function ros2Spec(config: Ros2Config): WorldSpec {
  const numeric = Object.values(config.sensors).flatMap((s) =>
    Object.entries(s.fields)
      .filter(([, f]) => fieldType(f) === 'number')
      .map(([n]) => n),
  );
  const n = config.navigation;
  return {
    id: config.id,
    backend: 'ros2',
    description: config.description,
    // With navigation, what the policy reads and writes; without, the pose and every numeric field, and no action.
    observation:
      n !== undefined
        ? { dim: n.observation.length, names: n.observation }
        : { dim: 3 + numeric.length, names: ['base.x', 'base.y', 'base.yaw', ...numeric] },
    action: n !== undefined ? { dim: n.command.action.length, names: n.command.action } : { dim: 0, names: [] },
    taskSpace: { dim: 2, names: ['base.x', 'base.y'] },
    control_dt_s: config.control_dt_s,
  };
}

/** A ROS 2 world's vocabulary from its configuration (the same as the open world reports). */
export function ros2Vocabulary(config: Ros2Config): Vocabulary {
  const fields: Record<string, 'number' | 'string' | 'bool'> = {
    'base.x': 'number',
    'base.y': 'number',
    'base.yaw': 'number',
  };
  for (const r of config.regions) fields[`at.${r.name}`] = 'bool';
  for (const s of Object.values(config.sensors))
    for (const [n, f] of Object.entries(s.fields)) fields[n] = fieldType(f);
  for (const t of Object.values(config.tools))
    for (const [n, f] of Object.entries(t.feedback)) fields[n] = fieldType(f);
  return {
    fields,
    objects: [],
    objectFields: {},
    propositions: config.regions.map((r) => r.name),
    skills: [...Object.keys(config.tools), ...Object.keys(config.services)],
  };
}

/** The task-space rectangle of a navigation section as a map: starts are checked against it. */
export function ros2Map(id: string, n: NavigationConfig): WorldMap {
  const { min, max } = n.bounds;
  return {
    bounds: { minX: min[0], minY: min[1], maxX: max[0], maxY: max[1] },
    blocked: (x, y) =>
      x >= min[0] && x <= max[0] && y >= min[1] && y <= max[1]
        ? null
        : `outside the bounds of ${id} ([${min[0]}, ${min[1]}] to [${max[0]}, ${max[1]}] m)`,
    randomFree: (rng) => [min[0] + rng.next() * (max[0] - min[0]), min[1] + rng.next() * (max[1] - min[1])],
  };
}

/** The policy's observation of the robot at rest at (x, y): the pose fields set, the others 0. */
export function ros2Rest(n: NavigationConfig): (x: number, y: number) => Float32Array {
  return (x, y) => Float32Array.from(n.observation, (name) => (name === 'base.x' ? x : name === 'base.y' ? y : 0));
}

/** What a ROS 2 world is, from its configuration alone: its spec and its vocabulary. */
import type { WorldSpec } from '../../core/world/world.js';
import type { Vocabulary } from '../../core/loop/vocabulary.js';
import { type Ros2Config, fieldType } from './config.js';

/** The spec of a ROS 2 world from its configuration. */
export function ros2Spec(config: Ros2Config): WorldSpec {
  const numeric = Object.values(config.sensors).flatMap((s) => Object.entries(s.fields).filter(([, f]) => fieldType(f) === 'number').map(([n]) => n));
  return {
    id: config.id, backend: 'ros2', description: config.description,
    observation: { dim: 3 + numeric.length, names: ['base.x', 'base.y', 'base.yaw', ...numeric] },
    // Driven through its skills: a step only lets control_dt_s pass and observes.
    action: { dim: 0, names: [] },
    taskSpace: { dim: 2, names: ['base.x', 'base.y'] },
    control_dt_s: config.control_dt_s,
  };
}

/** A ROS 2 world's vocabulary from its configuration (the same as the open world reports). */
export function ros2Vocabulary(config: Ros2Config): Vocabulary {
  const fields: Record<string, 'number' | 'string' | 'bool'> = { 'base.x': 'number', 'base.y': 'number', 'base.yaw': 'number' };
  for (const r of config.regions) fields[`at.${r.name}`] = 'bool';
  for (const s of Object.values(config.sensors)) for (const [n, f] of Object.entries(s.fields)) fields[n] = fieldType(f);
  for (const t of Object.values(config.tools)) for (const [n, f] of Object.entries(t.feedback)) fields[n] = fieldType(f);
  return { fields, objects: [], objectFields: {}, propositions: config.regions.map((r) => r.name), skills: [...Object.keys(config.tools), ...Object.keys(config.services)] };
}


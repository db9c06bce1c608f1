/**
 * Where a velocity command goes relative to the robot's collision monitor. Nav2's collision monitor
 * sits between the velocity commands and the base (Jazzy's nav2_bringup: cmd_vel_smoothed →
 * collision_monitor → cmd_vel, Twist, or TwistStamped with enable_stamped_cmd_vel): a command
 * published downstream of it — on the topic it writes — bypasses it. The monitor is found in the graph
 * by its node name (any namespace); its inputs are the velocity topics it subscribes to. Without one in
 * the graph (Humble's nav2_bringup starts none) the configured topic is used as it is.
 */
import type { NavigationConfig } from './config.js';
import type { RclNode } from './rclnodejs-api.js';

/** The velocity commands a collision monitor takes (Nav2's: Twist, or TwistStamped with enable_stamped_cmd_vel). */
const VELOCITY_TYPES: readonly string[] = ['geometry_msgs/msg/Twist', 'geometry_msgs/msg/TwistStamped'];

/**
 * The command's route: into the input of the monitors found (`through`, their full names; empty: none in the graph),
 * or why it would bypass one (`problem`, naming the configuration path to change).
 */
export type CommandRoute =
  { readonly ok: true; readonly through: readonly string[] } | { readonly ok: false; readonly problem: string };

export function commandRoute(
  node: Pick<RclNode, 'getNodeNamesAndNamespaces' | 'getSubscriptionNamesAndTypesByNode'>,
  c: NavigationConfig['command'],
  file: string,
): CommandRoute {
  const through: string[] = [];
  for (const m of node.getNodeNamesAndNamespaces().filter((n) => n.name === c.collision_monitor)) {
    const full = `${m.namespace.replace(/\/$/, '')}/${m.name}`;
    const inputs = node
      .getSubscriptionNamesAndTypesByNode(m.name, m.namespace)
      .filter((t) => t.types.some((x) => VELOCITY_TYPES.includes(x)));
    const input = inputs.find((t) => t.name === c.topic);
    const named = inputs.map((t) => `${t.name} (${t.types.join(', ')})`).join(', ');
    if (input === undefined)
      return {
        ok: false,
        problem: `a collision monitor runs on this robot (${full}) and ${inputs.length === 0 ? 'subscribes to no velocity topic yet (is it configured and active?)' : `its input is ${named}`}: publishing the navigation command on ${c.topic} would bypass it. Set navigation.command.topic to its input${inputs.length > 0 ? ` (${inputs[0]!.name})` : ''} — Jazzy's nav2_bringup: /cmd_vel_smoothed — so that it can stop the robot (${file}: $.navigation.command.topic)`,
      };
    if (!input.types.includes(c.type))
      return {
        ok: false,
        problem: `the collision monitor's input ${c.topic} (${full}) takes ${input.types.join(', ')}; navigation.command.type is ${c.type}, which it would not receive (Nav2's enable_stamped_cmd_vel chooses TwistStamped) (${file}: $.navigation.command.type)`,
      };
    through.push(full);
  }
  return { ok: true, through };
}

/**
 * What `witness ros2 check` reports about a connected world: which action and service servers
 * answer — and, for Nav2's, whether their lifecycle node is active (an inactive one keeps its action
 * server in the graph but rejects every goal) —, which topics deliver messages (and, for those that
 * do not, whether the topic exists with another type or has no publisher), whether every mapped
 * field is in the messages, the pose and labels — each waited for within one bound, in parallel —, and
 * whether the navigation command would go into the robot's collision monitor or bypass it.
 */
import { WorldError } from '../../core/world/world.js';
import type { Ros2World } from './world.js';
import type { RclActionClient } from './rclnodejs-api.js';
import { readField } from './message-path.js';
import { callService } from './calls.js';
import { withInterface } from './session.js';
import { lifecycleNodeOf } from './navigator.js';

/** A Nav2 server's lifecycle node and its state (lifecycle_msgs/msg/State label), or why it is not known. */
type LifecycleReport =
  | { readonly node: string; readonly state: string; readonly active: boolean }
  | { readonly node: string; readonly state: null; readonly why: string };

export interface ProbeReport {
  readonly ok: boolean;
  /** `skill` is the tool's name, or "waypoints", "waypoints.through", "waypoints.compute_path". */
  readonly actions: readonly {
    skill: string;
    name: string;
    type: string;
    found: boolean;
    lifecycle: LifecycleReport | null;
  }[];
  readonly services: readonly { skill: string; name: string; type: string; found: boolean }[];
  readonly topics: readonly {
    sensor: string;
    topic: string;
    type: string;
    messages: number;
    age_s: number | null;
    problem: string | null;
  }[];
  readonly fields: readonly { field: string; sensor: string; problem: string }[];
  readonly pose:
    | {
        readonly ok: true;
        readonly x: number;
        readonly y: number;
        readonly yaw: number;
        readonly frame: string;
        readonly labels: readonly string[];
      }
    | { readonly ok: false; readonly problem: string };
  readonly tf: readonly string[];
  /**
   * The navigation command's route (collision-monitor.ts): the collision monitors it goes through (none in the graph:
   * empty), or why it would bypass one; null without a navigation section.
   */
  readonly command: {
    readonly topic: string;
    readonly type: string;
    readonly through: readonly string[];
    readonly problem: string | null;
  } | null;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Why a topic delivered nothing: absent from the graph, present with another type, or no publisher. */
function topicProblem(world: Ros2World, topic: string, type: string): string {
  const fq = topic.startsWith('/') ? topic : `/${topic}`;
  const seen = world.node.getTopicNamesAndTypes().find((t) => t.name === fq);
  if (seen === undefined) return `no topic ${fq} in the ROS graph (\`ros2 topic list\`)`;
  if (!seen.types.includes(type)) return `${fq} carries ${seen.types.join(', ')}, not ${type}`;
  const n = world.node.countPublishers(fq);
  return n === 0
    ? `${fq} has no publisher`
    : `${n} publisher(s) on ${fq} but no message arrived: check the QoS (reliability, durability) against \`ros2 topic info -v ${fq}\``;
}

/** lifecycle_msgs/srv/GetState of `node` (every rclcpp_lifecycle node serves <node>/get_state). */
async function lifecycleOf(world: Ros2World, node: string, left: () => number): Promise<LifecycleReport> {
  const service = `${node}/get_state`,
    type = 'lifecycle_msgs/srv/GetState';
  try {
    const client = withInterface(world.config.id, `lifecycle of ${node}`, type, null, () =>
      world.node.createClient(type, service, { validateRequests: true }),
    );
    const bound_s = Math.max(0.001, left() / 1000);
    const tool = { service, chain: [service], type, request: {}, timeout_s: bound_s, server_timeout_s: bound_s };
    const r = await callService(
      {
        world: world.config.id,
        skill: 'lifecycle',
        service: tool,
        client,
        request: {},
        deadline_ms: performance.now() + left(),
      },
      AbortSignal.timeout(Math.max(1, Math.ceil(left()))),
    );
    const state = (r as { current_state?: { id?: unknown; label?: unknown } } | null)?.current_state;
    const label = typeof state?.label === 'string' && state.label !== '' ? state.label : `state ${String(state?.id)}`;
    return { node, state: label, active: state?.id === 3 || label === 'active' };
  } catch (e) {
    return {
      node,
      state: null,
      why:
        e instanceof WorldError && e.kind === 'not-found'
          ? `no ${service} service: not a lifecycle node by Nav2's name`
          : e instanceof Error
            ? e.message
            : String(e),
    };
  }
}

async function probeAction(
  world: Ros2World,
  skill: string,
  name: string,
  type: string,
  client: RclActionClient,
  left: () => number,
): Promise<ProbeReport['actions'][number]> {
  const found = await client.waitForServer(left()).catch(() => false);
  const node = type.startsWith('nav2_msgs/') ? lifecycleNodeOf(name) : null;
  return { skill, name, type, found, lifecycle: found && node !== null ? await lifecycleOf(world, node, left) : null };
}

export async function probeRos2(world: Ros2World, bound_s: number): Promise<ProbeReport> {
  const c = world.config;
  const ep = world.endpoints();
  const deadline = performance.now() + bound_s * 1000;
  const left = (): number => Math.max(0, deadline - performance.now());
  const wp = c.waypoints;
  const navActions: [string, { action: string; type: string }][] =
    wp === undefined
      ? []
      : [
          ['waypoints', wp.pose],
          ...(wp.through !== null
            ? [['waypoints.through', wp.through] as [string, { action: string; type: string }]]
            : []),
          ['waypoints.compute_path', wp.compute_path],
        ];
  const [actions, services] = await Promise.all([
    Promise.all([
      ...Object.entries(c.tools).map(([skill, t]) =>
        probeAction(world, skill, t.action, t.type, ep.actions.get(skill)!, left),
      ),
      ...navActions.map(([role, t]) => probeAction(world, role, t.action, t.type, ep.waypoints.get(role)!, left)),
    ]),
    Promise.all(
      Object.entries(c.services).flatMap(([skill, s]) =>
        s.chain.map(async (name, i) => {
          const client = ep.services.get(skill)![i]!;
          return { skill, name, type: s.type, found: await client.waitForService(left()).catch(() => false) };
        }),
      ),
    ),
    (async () => {
      while (left() > 0 && Object.keys(c.sensors).some((s) => ep.latest(s) === undefined))
        await sleep(Math.min(50, left()));
    })(),
  ]);
  let pose: ProbeReport['pose'] = { ok: false, problem: 'not tried' };
  for (;;) {
    try {
      const p = world.pose();
      pose = { ok: true, ...p, labels: world.labels() };
      break;
    } catch (e) {
      pose = { ok: false, problem: e instanceof WorldError ? e.detail : String(e) };
      if (left() <= 0) break;
      await sleep(Math.min(50, left()));
    }
  }
  const topics = Object.entries(c.sensors).map(([sensor, s]) => {
    const l = ep.latest(sensor);
    return {
      sensor,
      topic: s.topic,
      type: s.type,
      messages: l?.count ?? 0,
      age_s: l?.age_s ?? null,
      problem: l === undefined ? topicProblem(world, s.topic, s.type) : null,
    };
  });
  const fields = Object.entries(c.sensors).flatMap(([sensor, s]) => {
    const l = ep.latest(sensor);
    if (l === undefined) return [];
    return Object.entries(s.fields).flatMap(([field, f]) => {
      const v = readField(l.message, f);
      return v.ok ? [] : [{ field, sensor, problem: v.why }];
    });
  });
  // Asked last: by now discovery has had the whole bound to find the collision monitor.
  const route = world.navigationCommandRoute();
  const nav = c.navigation?.command;
  const command =
    route === null || nav === undefined
      ? null
      : {
          topic: nav.topic,
          type: nav.type,
          through: route.ok ? route.through : [],
          problem: route.ok ? null : route.problem,
        };
  const ok =
    (command === null || command.problem === null) &&
    actions.every((a) => a.found && (a.lifecycle === null || a.lifecycle.state === null || a.lifecycle.active)) &&
    services.every((s) => s.found) &&
    topics.every((t) => t.problem === null) &&
    fields.length === 0 &&
    pose.ok;
  return { ok, actions, services, topics, fields, pose, tf: ep.tfLinks(), command };
}

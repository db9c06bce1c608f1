/**
 * What `witness ros2 check` reports about a connected world: which action and service servers
 * answer, which topics deliver messages (and, for those that do not, whether the topic exists with
 * another type or has no publisher), whether every mapped field is in the messages, and the pose
 * and labels — each waited for within one bound, in parallel.
 */
import { WorldError } from '../../core/world/world.js';
import type { Ros2World } from './world.js';
import { readField } from './message-path.js';

export interface ProbeReport {
  readonly ok: boolean;
  readonly actions: readonly { skill: string; name: string; type: string; found: boolean }[];
  readonly services: readonly { skill: string; name: string; type: string; found: boolean }[];
  readonly topics: readonly { sensor: string; topic: string; type: string; messages: number; age_s: number | null; problem: string | null }[];
  readonly fields: readonly { field: string; sensor: string; problem: string }[];
  readonly pose: { readonly ok: true; readonly x: number; readonly y: number; readonly yaw: number; readonly frame: string; readonly labels: readonly string[] } | { readonly ok: false; readonly problem: string };
  readonly tf: readonly string[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Why a topic delivered nothing: absent from the graph, present with another type, or no publisher. */
function topicProblem(world: Ros2World, topic: string, type: string): string {
  const fq = topic.startsWith('/') ? topic : `/${topic}`;
  const seen = world.node.getTopicNamesAndTypes().find((t) => t.name === fq);
  if (seen === undefined) return `no topic ${fq} in the ROS graph (\`ros2 topic list\`)`;
  if (!seen.types.includes(type)) return `${fq} carries ${seen.types.join(', ')}, not ${type}`;
  const n = world.node.countPublishers(fq);
  return n === 0 ? `${fq} has no publisher` : `${n} publisher(s) on ${fq} but no message arrived: check the QoS (reliability, durability) against \`ros2 topic info -v ${fq}\``;
}

export async function probeRos2(world: Ros2World, bound_s: number): Promise<ProbeReport> {
  const c = world.config;
  const ep = world.endpoints();
  const deadline = performance.now() + bound_s * 1000;
  const left = (): number => Math.max(0, deadline - performance.now());
  const [actions, services] = await Promise.all([
    Promise.all(Object.entries(c.tools).map(async ([skill, t]) => ({ skill, name: t.action, type: t.type, found: await ep.actions.get(skill)!.waitForServer(left()).catch(() => false) }))),
    Promise.all(Object.entries(c.services).map(async ([skill, s]) => ({ skill, name: s.service, type: s.type, found: await ep.services.get(skill)!.waitForService(left()).catch(() => false) }))),
    (async () => {
      while (left() > 0 && Object.keys(c.sensors).some((s) => ep.latest(s) === undefined)) await sleep(Math.min(50, left()));
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
    return { sensor, topic: s.topic, type: s.type, messages: l?.count ?? 0, age_s: l?.age_s ?? null, problem: l === undefined ? topicProblem(world, s.topic, s.type) : null };
  });
  const fields = Object.entries(c.sensors).flatMap(([sensor, s]) => {
    const l = ep.latest(sensor);
    if (l === undefined) return [];
    return Object.entries(s.fields).flatMap(([field, f]) => {
      const v = readField(l.message, f);
      return v.ok ? [] : [{ field, sensor, problem: v.why }];
    });
  });
  const ok = actions.every((a) => a.found) && services.every((s) => s.found) && topics.every((t) => t.problem === null) && fields.length === 0 && pose.ok;
  return { ok, actions, services, topics, fields, pose, tf: ep.tfLinks() };
}

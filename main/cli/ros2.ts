/**
 * `witness ros2 …`: the ROS 2 backend. rclnodejs is imported when the check runs only, so --help and
 * every other command run where ROS 2 is not installed; this one says exactly what is missing.
 */
import { Command } from 'commander';
import type { Ros2Availability, Ros2CheckResult } from '../app/worlds.js';
import { EXIT, type Output } from './errors.js';
import { action, numberFlag } from './flags.js';
import { printable } from './printable.js';

export interface Ros2Deps {
  /** How rclnodejs is loaded (replaced in tests by the fake). */
  readonly load?: () => Promise<Ros2Availability>;
}

type Config = Ros2CheckResult['config'];
type Report = Extract<Ros2CheckResult, { stage: 'probe' }>['report'];

function summary(c: Config): string {
  const n = (k: number, what: string): string => `${k} ${what}${k === 1 ? '' : 's'}`;
  return `${c.id} — ${n(Object.keys(c.tools).length, 'tool')}, ${n(Object.keys(c.services).length, 'service')}, ${n(Object.keys(c.sensors).length, 'sensor')}, ${n(c.regions.length, 'region')}, pose from ${c.pose.source === 'tf' ? `TF ${c.frames.map} ← ${c.frames.base}` : `odometry (${c.pose.sensor})`}`;
}

/** found (and its lifecycle node active), INACTIVE (found, but refusing goals), or MISSING. */
function actionStatus(a: Report['actions'][number], bound_s: number): string {
  if (!a.found) return `MISSING: no server within ${bound_s} s`;
  const l = a.lifecycle;
  if (l === null) return 'found';
  if (l.state === null) return `found (lifecycle of ${l.node} unknown: ${l.why})`;
  if (l.active) return `found, ${l.node} active`;
  return `INACTIVE: the server is there but its lifecycle node ${l.node} is ${l.state}, so it rejects every goal (\`ros2 lifecycle set ${l.node} activate\`, or restart Nav2's lifecycle manager)`;
}

function printReport(io: Output, c: Config, r: Report, bound_s: number): void {
  // Names from the configuration file and problems the robot reported: one line each, controls escaped.
  const line = (text: string): void => io.out(`${printable(text)}\n`);
  for (const a of r.actions) line(`action   ${a.skill.padEnd(16)} ${a.name} [${a.type}]  ${actionStatus(a, bound_s)}`);
  for (const s of r.services)
    line(
      `service  ${s.skill.padEnd(16)} ${s.name} [${s.type}]  ${s.found ? 'found' : `MISSING: no server within ${bound_s} s`}`,
    );
  for (const t of r.topics)
    line(
      `topic    ${t.sensor.padEnd(16)} ${t.topic} [${t.type}]  ${t.problem === null ? `${t.messages} message(s), the last ${t.age_s!.toFixed(2)} s ago` : `NO MESSAGE: ${t.problem}`}`,
    );
  for (const f of r.fields) line(`field    ${f.field.padEnd(16)} (${f.sensor}) UNREADABLE: ${f.problem}`);
  const where = c.pose.source === 'tf' ? `${c.frames.map} ← ${c.frames.base}` : `odometry (${c.pose.sensor})`;
  line(
    r.pose.ok
      ? `pose     ${where}: x ${r.pose.x.toFixed(2)} m, y ${r.pose.y.toFixed(2)} m, yaw ${r.pose.yaw.toFixed(2)} rad; labels: ${r.pose.labels.join(', ') || '(none)'}`
      : `pose     ${where}: UNAVAILABLE: ${r.pose.problem}`,
  );
  if (r.command !== null)
    line(
      `command  ${'navigation'.padEnd(16)} ${r.command.topic} [${r.command.type}]  ${r.command.problem !== null ? `BYPASSES THE COLLISION MONITOR: ${r.command.problem}` : r.command.through.length > 0 ? `into the input of ${r.command.through.join(', ')}` : 'no collision monitor in the graph: published as configured'}`,
    );
  const problems =
    (r.command !== null && r.command.problem !== null ? 1 : 0) +
    r.actions.filter((a) => !a.found || (a.lifecycle !== null && a.lifecycle.state !== null && !a.lifecycle.active))
      .length +
    r.services.filter((s) => !s.found).length +
    r.topics.filter((t) => t.problem !== null).length +
    r.fields.length +
    (r.pose.ok ? 0 : 1);
  io.out(problems === 0 ? 'check: everything the configuration names was found\n' : `check: ${problems} problem(s)\n`);
}

export function ros2Command(io: Output, setExit: (c: number) => void, deps: Ros2Deps = {}): Command {
  const ros2 = new Command('ros2').description(
    'the ROS 2 backend (rclnodejs, optional): check a configuration and the robot or simulator behind it',
  );
  const run = <A extends unknown[]>(body: (...args: A) => Promise<number | void>) => action(io, setExit, body);

  ros2
    .command('check')
    .description(
      'validate a backend configuration (exit 2 on a problem, with file:line:col and the JSON path); then, if ROS 2 and rclnodejs are available (exit 4 with the fix when not), connect and report the action servers, services, topics, fields and pose it finds, and whether the navigation command would bypass a collision monitor (exit 0 all found and none bypassed, 1 otherwise)',
    )
    .option(
      '--config <file>',
      'backend configuration (default: $WITNESS_ROS2_CONFIG, else assets/ros2/nav2-mobile-manipulator.json)',
    )
    .option(
      '--timeout <s>',
      "how long to wait for servers and first messages, s (default: the configuration's connect_timeout_s)",
      numberFlag('--timeout', 0.1, 600),
    )
    .option('--json', 'print one JSON document')
    .action((o: { config?: string; timeout?: number; json?: boolean }) =>
      run(async () => {
        const app = await import('../app/worlds.js');
        const file = o.config ?? process.env['WITNESS_ROS2_CONFIG'] ?? app.DEFAULT_ROS2_CONFIG;
        const r = await app.ros2Check(file, {
          ...(o.timeout !== undefined ? { timeout_s: o.timeout } : {}),
          ...(deps.load ? { load: deps.load } : {}),
          onConfig: (c) => {
            if (!o.json) io.out(`config   ${file}: ${summary(c)}\n`);
          },
          onAvailable: (a) => {
            if (!o.json) io.out(`ROS 2    ${app.describeAvailability(a)}\n`);
          },
        });
        const c = r.config;
        const configJson = {
          file,
          ok: true,
          id: c.id,
          tools: Object.keys(c.tools),
          services: Object.keys(c.services),
          sensors: Object.keys(c.sensors),
          regions: c.regions.map((x) => x.name),
        };
        if (r.stage === 'config') {
          const a = r.availability;
          if (!o.json) throw new app.Ros2Unavailable(a);
          io.out(
            JSON.stringify({
              config: configJson,
              ros2: { available: false, problem: a.problem, message: a.message, fix: a.fix },
            }) + '\n',
          );
          return EXIT.unavailable;
        }
        const a = r.availability;
        if (o.json)
          io.out(
            JSON.stringify({
              config: configJson,
              ros2: { available: true, distro: a.distro, version: a.version, notes: a.notes },
              probe: r.report,
            }) + '\n',
          );
        else printReport(io, c, r.report, r.bound_s);
        return r.report.ok ? EXIT.ok : EXIT.negative;
      })(),
    );
  return ros2;
}

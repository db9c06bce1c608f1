/**
 * A Ros2World as the world contract sees it: the calls come from its configuration's "contract"
 * section. The suite drives a real robot, so it keeps to calls that cannot set off Nav2's recovery
 * behaviours (the default behaviour tree spins 1.57 rad and backs up 0.30 m, up to six rounds on
 * Humble, before it aborts a goal it cannot plan or follow):
 *
 * - the failing call must be refused by Witness before anything is sent (an argument missing or of
 *   the wrong type) — a goal the robot must fail, such as one far off the map, is not accepted;
 * - each moving call to a Nav2 navigator is first checked with the robot's planner
 *   (ComputePathToPose from where the robot is, when the configuration has waypoints): a goal Nav2
 *   finds no path to fails the suite there, unsent.
 *
 * Whether to run it at all is asked first: world-contract.test.ts runs it on a robot only when the
 * operator confirms (WITNESS_ROS2_CONTRACT set to the configuration's id).
 */
import type { Ros2World } from '../../../main/backends/ros2/world.js';
import type { ContractCall } from '../../../main/backends/ros2/config.js';
import { MappingError, buildMessage } from '../../../main/backends/ros2/message-path.js';
import { NAVIGATOR_TYPES } from '../../../main/backends/ros2/navigator.js';
import { WorldError } from '../../../main/core/world/world.js';
import type { ContractWorld } from '../world-contract.js';

const what = (x: ContractCall): string => `${x.skill}(${JSON.stringify(x.args)})`;

/** What the suite will make the robot do, in words (for the confirmation it asks for). */
export function contractMotions(w: Pick<Ros2World, 'config'>): string {
  const c = w.config.contract;
  if (c === undefined) return 'nothing: the configuration has no "contract" section';
  return `${what(c.succeed)}, ${what(c.slow)} (stopped after ${c.slow.timeout_s} s), ${what(c.cancel)} (cancelled after ${c.cancel.after_s} s), and ${what(c.fail)} (refused before anything is sent)`;
}

/** The failing call must fail in Witness: a goal it would send is refused here, with why. */
function checkFailSendsNothing(w: Ros2World, x: ContractCall): void {
  const tool = w.config.tools[x.skill];
  if (tool === undefined) return;
  try {
    buildMessage(tool.goal, x.args);
  } catch (e) {
    if (e instanceof MappingError) return;
    throw e;
  }
  throw new Error(
    `${w.config.file}: $.contract.fail: ${what(x)} sends a goal to ${tool.action}: on a robot, Nav2 may spin and back up (its recovery behaviours, up to six rounds on Humble) before it fails it. Use a call Witness refuses before sending anything: an argument missing or of the wrong type`,
  );
}

/** A moving call to a Nav2 navigator: its goal must have a path from the robot, or it is not sent. */
async function checkPath(w: Ros2World, key: string, x: ContractCall): Promise<void> {
  const tool = w.config.tools[x.skill];
  if (tool === undefined || !NAVIGATOR_TYPES.has(tool.type) || w.waypoints?.planPath === undefined) return;
  const goal = buildMessage(tool.goal, x.args) as {
    pose?: { header?: { frame_id?: string }; pose?: { position?: { x?: number; y?: number } } };
  };
  const at = goal.pose?.pose?.position;
  if (
    goal.pose?.header?.frame_id !== w.config.waypoints!.frame ||
    typeof at?.x !== 'number' ||
    typeof at.y !== 'number'
  )
    return;
  const from = await w.waypoints.pose();
  try {
    await w.waypoints.planPath(from, { x: at.x, y: at.y }, {});
  } catch (e) {
    if (!(e instanceof WorldError)) throw e;
    throw new Error(
      `${w.config.file}: $.contract.${key}: Nav2 finds no path for ${what(x)} from the robot at (${from.x.toFixed(2)}, ${from.y.toFixed(2)}) (${e.detail}); the goal was not sent: it would make Nav2 run its recovery behaviours. Choose a goal in free space near the robot`,
    );
  }
}

export function ros2ContractWorld(w: Ros2World, cleanup: () => void = () => undefined): ContractWorld {
  const c = w.config.contract;
  if (c === undefined)
    throw new Error(
      `${w.config.file}: no "contract" section: the world contract suite needs the calls to make on this robot (docs/ROS2.md)`,
    );
  checkFailSendsNothing(w, c.fail);
  const run =
    (key: string, x: ContractCall, check: boolean) => async (o: { timeout_s: number; signal: AbortSignal }) => {
      if (check) await checkPath(w, key, x);
      return w.tools.execute(x.skill, x.args, o);
    };
  const feedback = new Set(Object.values(w.config.tools).flatMap((t) => Object.keys(t.feedback)));
  const slowest = Math.max(...Object.values(w.config.tools).map((t) => t.cancel_timeout_s), 0);
  return {
    reset: () => w.tools.reset({ seed: 0 }),
    observe: () => w.tools.observe(),
    // Feedback fields exist only once a goal has reported.
    fields: Object.keys(w.tools.vocabulary().fields).filter((f) => !feedback.has(f)),
    succeed: { what: what(c.succeed), run: run('succeed', c.succeed, true), timeout_s: c.succeed.timeout_s ?? 120 },
    slow: { what: what(c.slow), run: run('slow', c.slow, true), timeout_s: c.slow.timeout_s! },
    cancel: { what: what(c.cancel), run: run('cancel', c.cancel, true), after_s: c.cancel.after_s! },
    fail: {
      what: what(c.fail),
      run: run('fail', c.fail, false),
      kinds: ['rejected', 'aborted', 'invalid-input', 'failed'],
    },
    // Our deadline, then a bounded cancel (and the wait for the goal to stop), plus a margin.
    stop_s: slowest + 1,
    close: async () => {
      cleanup();
      await w.close();
    },
  };
}

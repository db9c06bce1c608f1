/** A Ros2World as the world contract sees it: the calls come from its configuration's "contract" section. */
import type { Ros2World } from '../../../main/backends/ros2/world.js';
import type { ContractCall } from '../../../main/backends/ros2/config.js';
import type { ContractWorld } from '../world-contract.js';

export function ros2ContractWorld(w: Ros2World, cleanup: () => void = () => undefined): ContractWorld {
  const c = w.config.contract;
  if (c === undefined) throw new Error(`${w.config.file}: no "contract" section: the world contract suite needs the calls to make on this robot (docs/ROS2.md)`);
  const what = (x: ContractCall): string => `${x.skill}(${JSON.stringify(x.args)})`;
  const run = (x: ContractCall) => (o: { timeout_s: number; signal: AbortSignal }) => w.tools.execute(x.skill, x.args, o);
  const feedback = new Set(Object.values(w.config.tools).flatMap((t) => Object.keys(t.feedback)));
  const slowest = Math.max(...Object.values(w.config.tools).map((t) => t.cancel_timeout_s), 0);
  return {
    reset: () => w.tools.reset({ seed: 0 }),
    observe: () => w.tools.observe(),
    // Feedback fields exist only once a goal has reported.
    fields: Object.keys(w.tools.vocabulary().fields).filter((f) => !feedback.has(f)),
    succeed: { what: what(c.succeed), run: run(c.succeed), timeout_s: c.succeed.timeout_s ?? 120 },
    slow: { what: what(c.slow), run: run(c.slow), timeout_s: c.slow.timeout_s! },
    cancel: { what: what(c.cancel), run: run(c.cancel), after_s: c.cancel.after_s! },
    fail: { what: what(c.fail), run: run(c.fail), kinds: ['rejected', 'aborted', 'invalid-input', 'failed'] },
    // Our deadline, then a bounded cancel (and the wait for the goal to stop), plus a margin.
    stop_s: slowest + 1,
    close: async () => {
      cleanup();
      await w.close();
    },
  };
}

/**
 * `witness demo warehouse`: the seed's warehouse example in the MuJoCo tabletop — "move the red bin
 * to shelf C4". The bin carries a load that makes it too heavy: the pick trips the weight limit (a
 * failure record naming the violated postcondition and the lift force observed, class permanent),
 * and the recovery planner synthesises the two-step alternative (take the load off onto the tray,
 * then move the bin) — or, with no alternative (the scripted planner: a permanent failure escalates
 * at once) or no replan budget, the loop escalates with the whole trace and the operator decides
 * (flags, the terminal, or abort when there is neither). Every step is written to the audit log. It
 * is `witness act` with the shipped tools, plan and goal (app/act.ts `warehouse`), and prints the
 * same trace.
 */
import { Command } from 'commander';
import type { Output } from './errors.js';
import { action } from './flags.js';
import { chooseOperator } from './operator.js';
import { type LoopFlags, llmOf, loopExit, loopOptions, printTrace, resultJson } from './act.js';

export function warehouseCommand(io: Output, setExit: (c: number) => void): Command {
  return loopOptions(
    new Command('warehouse').description(
      'the seed\'s warehouse example: "move the red bin to shelf C4", a weight-limit fault, then a two-step alternative or an escalation',
    ),
  ).action(
    action(io, setExit, async (o: LoopFlags) => {
      const app = await import('../app/demo.js');
      // Who answers escalations: the flags, else the terminal, else nobody (abort, said on stderr).
      const op = chooseOperator(io, o, app.operatorName());
      try {
        const r = await app.warehouse({
          planner: o.planner,
          replans: o.replans,
          seed: o.seed,
          audit: o.audit,
          decide: op.decide,
          llm: llmOf(o, io),
          ...(o.injectFault !== undefined ? { faults: o.injectFault } : {}),
        });
        const res = r.result;
        if (o.json) io.out(resultJson(res, r.audit ? { audit: r.audit } : {}));
        else
          printTrace(
            io,
            `"${app.WAREHOUSE.goal}" (planner ${o.planner}, R = ${o.replans})`,
            res,
            r.audit,
            (e) => ` (gripper ${JSON.stringify(e.state['gripper'])})`,
          );
        return loopExit(io, res);
      } finally {
        op.close();
      }
    }),
  );
}

/**
 * `witness demo warehouse`: the seed's warehouse example in the MuJoCo tabletop — "move the red bin
 * to shelf C4". The bin carries a load that makes it too heavy: the pick trips the weight limit (a
 * failure record naming the violated postcondition and the lift force observed), and the recovery
 * planner synthesises the two-step alternative (take the load off onto the tray, then move the bin)
 * — or, with no alternative or no replan budget, the loop escalates with the whole trace and the
 * operator decides (flags, the terminal, or abort when there is neither). Every step is written to
 * the audit log.
 */
import { Command, Option } from 'commander';
import { DECISIONS, LOOP_DEFAULTS } from '../contract/defaults.js';
import { EXIT, type Output } from './errors.js';
import { action, intFlag } from './flags.js';
import { TerminalOperator, flagDecision, noOperator } from './operator.js';

export function warehouseCommand(io: Output, setExit: (c: number) => void): Command {
  return new Command('warehouse')
    .description('the seed\'s warehouse example: "move the red bin to shelf C4", a weight-limit fault, then a two-step alternative or an escalation')
    .addOption(new Option('--planner <p>', 'recovery (uses failure records), scripted (no recovery), or llm').choices(['recovery', 'scripted', 'llm']).default('recovery'))
    .option('--replans <n>', 'replan budget R', intFlag('--replans', 0, 20), LOOP_DEFAULTS.replans)
    .option('--llm-url <url>', 'OpenAI-compatible server for --planner llm (llama.cpp, Ollama, vLLM)')
    .option('--model <name>', 'model name for --planner llm', 'local')
    .option('--api-key <key>', 'API key for --planner llm (default: $OPENAI_API_KEY)')
    .option('--seed <n>', 'seed of the episode', intFlag('--seed', 0), 1)
    .option('--audit <db>', 'audit database (default: $WITNESS_AUDIT, else ~/.local/share/witness/audit.sqlite)')
    .option('--no-audit', 'do not record the run')
    .addOption(new Option('--decision <d>', 'the operator\'s answer to every escalation, without a terminal: abort, retry (one more round of replans) or skip (the failed step)').choices([...DECISIONS]))
    .option('--reason <text>', 'the reason recorded with --decision')
    .option('--json', 'the loop result as JSON')
    .action(action(io, setExit, async (o: { planner: 'recovery' | 'scripted' | 'llm'; replans: number; llmUrl?: string; model: string; apiKey?: string; seed: number; audit: string | boolean; decision?: string; reason?: string; json?: boolean }) => {
      const app = await import('../app/demo.js');
      // Who answers escalations: the flags, else the terminal, else nobody (abort, said on stderr).
      const operator = app.operatorName();
      const input = io.stdin ?? process.stdin;
      let terminal: TerminalOperator | null = null;
      let decide = flagDecision(o, operator);
      if (decide === null && input.isTTY === true) {
        terminal = new TerminalOperator(input, io, operator);
        decide = terminal.decide;
      }
      decide ??= noOperator(io);
      try {
        const key = o.apiKey ?? process.env['OPENAI_API_KEY'];
        const r = await app.warehouse({
          planner: o.planner, replans: o.replans, seed: o.seed, audit: o.audit, decide,
          llm: { model: o.model, ...(o.llmUrl !== undefined ? { url: o.llmUrl } : {}), ...(key ? { apiKey: key } : {}) },
        });
        const res = r.result;
        if (o.json) {
          io.out(JSON.stringify({
            outcome: res.outcome, reason: res.reason, toolCalls: res.toolCalls, replans: res.replans, schemaErrors: res.schemaErrors, failures: res.failures.map(({ state: _s, ...f }) => f),
            decisions: res.decisions, aborted: res.aborted, ...(r.audit ? { audit: r.audit } : {}),
          }) + '\n');
        } else {
          io.out(`"${app.WAREHOUSE.goal}" (planner ${o.planner}, R = ${o.replans})\n`);
          let n = 0;
          for (const e of res.history.entries) {
            if (e.kind === 'pass') io.out(`  ${++n}. ${e.call.tool}(${JSON.stringify(e.call.args)}) → postconditions hold (gripper ${JSON.stringify(e.state['gripper'])})\n`);
            else if (e.kind === 'failure') io.out(`  ${++n}. ${e.record.tool}(${JSON.stringify(e.record.args)}) → ${e.record.stage} "${e.record.violated}" failed: observed ${JSON.stringify(e.record.observed)} → ${e.record.label} (${e.record.class})\n`);
            else if (e.kind === 'schema-error') io.out(`     invalid proposal ${e.call.tool}: ${e.errors.join('; ')}\n`);
            else if (e.kind === 'operator') io.out(`     escalation #${e.escalation.n} (${e.escalation.reason}) → ${e.decision.operator ?? 'no operator'} decided ${e.decision.decision}: ${e.decision.reason}\n`);
          }
          io.out(`  outcome: ${res.outcome} — ${res.reason}; ${res.toolCalls} tool calls, ${res.replans} replan(s)\n`);
          if (r.audit) io.out(`  audit: run ${r.audit.run} in ${r.audit.file} (witness audit show ${r.audit.file} ${r.audit.run.slice(0, 8)})\n`);
        }
        return res.outcome === 'success' ? EXIT.ok : EXIT.negative;
      } finally {
        terminal?.close();
      }
    }));
}

/**
 * `witness demo warehouse`: the seed's warehouse example in the MuJoCo tabletop — "move the red bin
 * to shelf C4". The bin carries a load that makes it too heavy: the pick trips the weight limit (a
 * failure record naming the violated postcondition and the lift force observed), and the recovery
 * planner synthesises the two-step alternative (take the load off onto the tray, then move the bin)
 * — or, with no alternative or no replan budget, the loop escalates with the whole trace and the
 * operator decides (flags, the terminal, or abort when there is neither). Every step is written to
 * the audit log.
 */
import { readFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { TABLETOP_VOCABULARY, TabletopWorld } from '../backends/mujoco/tabletop.js';
import { parseTool, registerTools } from '../core/loop/tools.js';
import { type Planner, runLoop, type LoopResult } from '../core/loop/loop.js';
import { RecoveryPlanner, ScriptedPlanner, parseScript } from '../core/loop/planners.js';
import { LlmPlanner } from '../services/llm/openai-planner.js';
import { AuditLog } from '../services/audit/store.js';
import { auditSink, defaultAuditFile, operatorName } from '../services/audit/mission-recorder.js';
import { loopEvents } from '../services/audit/loop-recorder.js';
import { VERSION } from '../version.js';
import { DECISIONS } from '../core/loop/escalation.js';
import { CliError, EXIT, type Output } from './errors.js';
import { action, intFlag } from './flags.js';
import { TerminalOperator, flagDecision, noOperator } from './operator.js';

const asset = (rel: string): unknown => JSON.parse(readFileSync(fileURLToPath(new URL(`../../../assets/${rel}`, import.meta.url)), 'utf8'));

const GOAL = 'move the red bin to shelf C4';

export function warehouseCommand(io: Output, setExit: (c: number) => void): Command {
  return new Command('warehouse')
    .description('the seed\'s warehouse example: "move the red bin to shelf C4", a weight-limit fault, then a two-step alternative or an escalation')
    .addOption(new Option('--planner <p>', 'recovery (uses failure records), scripted (no recovery), or llm').choices(['recovery', 'scripted', 'llm']).default('recovery'))
    .option('--replans <n>', 'replan budget R', intFlag('--replans', 0, 20), 2)
    .option('--llm-url <url>', 'OpenAI-compatible server for --planner llm (llama.cpp, Ollama, vLLM)')
    .option('--model <name>', 'model name for --planner llm', 'local')
    .option('--api-key <key>', 'API key for --planner llm (default: $OPENAI_API_KEY)')
    .option('--seed <n>', 'seed of the episode', intFlag('--seed', 0), 1)
    .option('--audit <db>', 'audit database (default: $WITNESS_AUDIT, else ~/.local/share/witness/audit.sqlite)')
    .option('--no-audit', 'do not record the run')
    .addOption(new Option('--decision <d>', 'the operator\'s answer to every escalation, without a terminal: abort, retry (one more round of replans) or skip (the failed step)').choices([...DECISIONS]))
    .option('--reason <text>', 'the reason recorded with --decision')
    .option('--json', 'the loop result as JSON')
    .action(action(io, setExit, async (o: { planner: string; replans: number; llmUrl?: string; model: string; apiKey?: string; seed: number; audit: string | boolean; decision?: string; reason?: string; json?: boolean }) => {
      // Who answers escalations: the flags, else the terminal, else nobody (abort, said on stderr).
      const operator = operatorName();
      const input = io.stdin ?? process.stdin;
      let terminal: TerminalOperator | null = null;
      let decide = flagDecision(o, operator);
      if (decide === null && input.isTTY === true) {
        terminal = new TerminalOperator(input, io, operator);
        decide = terminal.decide;
      }
      decide ??= noOperator(io);
      const tools = registerTools(['pick.json', 'place.json'].map((f) => ({ def: parseTool(asset(`tools/${f}`), f), file: f })), TABLETOP_VOCABULARY);
      const steps = parseScript(asset('plans/warehouse.json'), 'assets/plans/warehouse.json');
      let planner: Planner;
      if (o.planner === 'llm') {
        if (o.llmUrl === undefined) throw new CliError('--planner llm needs --llm-url (an OpenAI-compatible server, e.g. http://127.0.0.1:8080)');
        const key = o.apiKey ?? process.env['OPENAI_API_KEY'];
        planner = new LlmPlanner(tools, { baseUrl: o.llmUrl, model: o.model, ...(key ? { apiKey: key } : {}) });
      } else {
        planner = o.planner === 'scripted' ? new ScriptedPlanner(steps) : new RecoveryPlanner(steps);
      }
      const world = await TabletopWorld.create({ heightNoise_m: 0, perceptionNoise_m: 0 });
      const file = o.audit === false ? null : typeof o.audit === 'string' ? o.audit : defaultAuditFile();
      let log: AuditLog | null = null;
      try {
        if (file !== null) {
          mkdirSync(dirname(file), { recursive: true });
          log = AuditLog.open(file);
        }
        const run = log === null ? null : await log.startRun({
          world: 'tabletop', backend: 'mujoco', operator: operatorName(), software: `witness ${VERSION}`, models: {},
          spec: GOAL, meta: { demo: 'warehouse', planner: o.planner, replans: o.replans, seed: o.seed },
        });
        for (const [name, def] of tools) log?.putBlob(`tool-schema:${name}`, JSON.stringify(def.arguments));
        await world.reset(o.seed);
        const started = Date.now();
        const sink = log !== null && run !== null ? auditSink(log, run) : null;
        const r: LoopResult = await runLoop(tools, world, planner, GOAL, {
          replans: o.replans, goal: 'objects.red_bin.on == "shelf_c4"', clock: () => (Date.now() - started) / 1000,
          ...(sink !== null ? { onEvent: loopEvents(sink) } : {}), decide,
        });
        await log?.flush();
        if (sink !== null && sink.errors.length > 0) throw new CliError(`audit log ${file}: ${sink.errors[0]!.message}`);
        if (log !== null && run !== null) await log.append(run, 'run_end', { outcome: r.outcome === 'success' ? 'success' : r.outcome, reason: r.reason, toolCalls: r.toolCalls, replans: r.replans });
        if (o.json) {
          io.out(JSON.stringify({
            outcome: r.outcome, reason: r.reason, toolCalls: r.toolCalls, replans: r.replans, schemaErrors: r.schemaErrors, failures: r.failures.map(({ state: _s, ...f }) => f),
            decisions: r.decisions, aborted: r.aborted, ...(run ? { audit: { file, run } } : {}),
          }) + '\n');
        }
        else {
          io.out(`"${GOAL}" (planner ${o.planner}, R = ${o.replans})\n`);
          let n = 0;
          for (const e of r.history.entries) {
            if (e.kind === 'pass') io.out(`  ${++n}. ${e.call.tool}(${JSON.stringify(e.call.args)}) → postconditions hold (gripper ${JSON.stringify(e.state['gripper'])})\n`);
            else if (e.kind === 'failure') io.out(`  ${++n}. ${e.record.tool}(${JSON.stringify(e.record.args)}) → ${e.record.stage} "${e.record.violated}" failed: observed ${JSON.stringify(e.record.observed)} → ${e.record.label} (${e.record.class})\n`);
            else if (e.kind === 'schema-error') io.out(`     invalid proposal ${e.call.tool}: ${e.errors.join('; ')}\n`);
            else if (e.kind === 'operator') io.out(`     escalation #${e.escalation.n} (${e.escalation.reason}) → ${e.decision.operator ?? 'no operator'} decided ${e.decision.decision}: ${e.decision.reason}\n`);
          }
          io.out(`  outcome: ${r.outcome} — ${r.reason}; ${r.toolCalls} tool calls, ${r.replans} replan(s)\n`);
          if (run !== null) io.out(`  audit: run ${run} in ${file} (witness audit show ${file} ${run.slice(0, 8)})\n`);
        }
        return r.outcome === 'success' ? EXIT.ok : EXIT.negative;
      } finally {
        terminal?.close();
        world.close();
        await log?.close();
      }
    }));
}

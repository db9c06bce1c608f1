/**
 * `witness act`: the careful control loop with the user's own tool files on any tool world (the
 * MuJoCo tabletop or a ROS 2 robot): arguments validated before anything moves, preconditions,
 * timeouts that cancel the action, postconditions on sensor evidence, failure records with their
 * class, replans within R, and escalations the operator answers (flags, the terminal, or nobody).
 * `witness demo warehouse` is one use of it (the shipped tools, plan and goal) and prints the same
 * trace.
 */
import { Command, Option } from 'commander';
import { DECISIONS, LLM_DEFAULTS, LOOP_DEFAULTS } from '../contract/defaults.js';
import { WitnessError } from '../contract/errors.js';
import type { LlmSettings, LoopResult } from '../app/act.js';
import type { WorldFault } from '../app/faults.js';
import { EXIT, type Output, report } from './errors.js';
import { type FoxgloveFlags, foxgloveOptions, withFoxglove } from './foxglove.js';
import { action, httpUrlFlag, injectFaultOption, intFlag } from './flags.js';
import { waitingLine } from './progress.js';
import { chooseOperator } from './operator.js';
import { printable, printableJson } from './printable.js';

type PassEntry = Extract<LoopResult['history']['entries'][number], { kind: 'pass' }>;

/**
 * The loop's trace, one line per call: its verdict, failure records with label and class, escalations and decisions,
 * the outcome, the audit run.
 */
export function printTrace(
  io: Output,
  header: string,
  res: LoopResult,
  audit: { file: string; run: string } | null,
  passed: (e: PassEntry) => string,
): void {
  // Tool names, arguments, reasons and messages come from the planner (an LLM), the tool files and the world: one line
  // each, controls escaped.
  const line = (text: string): void => io.out(`${printable(text)}\n`);
  line(header);
  let n = 0;
  for (const e of res.history.entries) {
    if (e.kind === 'pass')
      line(`  ${++n}. ${e.call.tool}(${JSON.stringify(e.call.args)}) → postconditions hold${passed(e)}`);
    else if (e.kind === 'failure') {
      const r = e.record;
      const why =
        r.world_error !== undefined
          ? ` [${r.world_error.kind}: ${r.world_error.message}]`
          : r.error !== undefined
            ? ` [${r.error}]`
            : '';
      line(
        `  ${++n}. ${r.tool}(${JSON.stringify(r.args)}) → ${r.stage} "${r.violated}" failed: observed ${JSON.stringify(r.observed)}${why} → ${r.label} (${r.class})${r.reason !== undefined ? `: ${r.reason}` : ''}`,
      );
    } else if (e.kind === 'schema-error') line(`     invalid proposal ${e.call.tool}: ${e.errors.join('; ')}`);
    else if (e.kind === 'operator')
      line(
        `     escalation #${e.escalation.n} (${e.escalation.reason}) → ${e.decision.operator ?? 'no operator'} decided ${e.decision.decision}: ${e.decision.reason}`,
      );
  }
  line(`  outcome: ${res.outcome} — ${res.reason}; ${res.toolCalls} tool calls, ${res.replans} replan(s)`);
  if (audit)
    line(`  audit: run ${audit.run} in ${audit.file} (witness audit show ${audit.file} ${audit.run.slice(0, 8)})`);
}

/** The loop's result as one JSON document (failure records without the state they were judged on). */
export function resultJson(res: LoopResult, extra: Record<string, unknown> = {}): string {
  return (
    printableJson({
      outcome: res.outcome,
      reason: res.reason,
      toolCalls: res.toolCalls,
      replans: res.replans,
      schemaErrors: res.schemaErrors,
      failures: res.failures.map(({ state: _s, ...f }) => f),
      decisions: res.decisions,
      aborted: res.aborted,
      ...(res.plannerError !== undefined ? { plannerError: res.plannerError } : {}),
      ...extra,
    }) + '\n'
  );
}

/**
 * The flags `act` and `demo warehouse` share: the planner, the budget, the LLM, the seed, the audit log, the operator's
 * decision, JSON.
 */
export function loopOptions(c: Command): Command {
  return c
    .addOption(
      new Option(
        '--planner <p>',
        'recovery (follows the plan, recovers from failure records), scripted (the plan, no recovery), or llm',
      )
        .choices(['recovery', 'scripted', 'llm'])
        .default('recovery'),
    )
    .option('--replans <n>', 'replan budget R', intFlag('--replans', 0, 20), LOOP_DEFAULTS.replans)
    .option(
      '--llm-url <url>',
      'OpenAI-compatible server for --planner llm (llama.cpp, Ollama, vLLM): an http(s) URL',
      httpUrlFlag('--llm-url'),
    )
    .option(
      '--llm-timeout-ms <n>',
      'time per request to the LLM server, reading the reply included (tried twice; then exit 3)',
      intFlag('--llm-timeout-ms', 1, 3_600_000),
      LLM_DEFAULTS.timeout_ms,
    )
    .option(
      '--llm-max-reply-bytes <n>',
      'the largest reply read from the LLM server (a larger one: exit 2)',
      intFlag('--llm-max-reply-bytes', 1024, 1024 ** 3),
      LLM_DEFAULTS.maxReplyBytes,
    )
    .option('--model <name>', 'model name for --planner llm', 'local')
    .option('--api-key <key>', 'API key for --planner llm (default: $OPENAI_API_KEY)')
    .option('--seed <n>', 'seed of the episode', intFlag('--seed', 0), 1)
    .option('--audit <db>', 'audit database (default: $WITNESS_AUDIT, else ~/.local/share/witness/audit.sqlite)')
    .option('--no-audit', 'do not record the run')
    .addOption(
      new Option(
        '--decision <d>',
        "the operator's answer to every escalation, without a terminal: abort, retry (one more round of replans) or skip (the failed step)",
      ).choices([...DECISIONS]),
    )
    .option('--reason <text>', 'the reason recorded with --decision')
    .option('--json', 'the loop result as JSON')
    .addOption(injectFaultOption());
}

export interface LoopFlags {
  planner: 'recovery' | 'scripted' | 'llm';
  replans: number;
  llmUrl?: string;
  llmTimeoutMs: number;
  llmMaxReplyBytes: number;
  model: string;
  apiKey?: string;
  seed: number;
  audit: string | boolean;
  decision?: string;
  reason?: string;
  json?: boolean;
  injectFault?: WorldFault[];
}

/** The LLM settings of the flags, with a "waiting for the LLM" line on stderr while a request waits. */
export function llmOf(o: LoopFlags, io: Output): LlmSettings {
  const key = o.apiKey ?? process.env['OPENAI_API_KEY'];
  return {
    model: o.model,
    ...(o.llmUrl !== undefined ? { url: o.llmUrl } : {}),
    ...(key ? { apiKey: key } : {}),
    timeout_ms: o.llmTimeoutMs,
    maxReplyBytes: o.llmMaxReplyBytes,
    waiting: waitingLine(io, 'waiting for the LLM'),
    names: { timeout: '--llm-timeout-ms', maxReply: '--llm-max-reply-bytes' },
  };
}

/**
 * The exit code of a loop's result: 0 on success; a planner failure Witness names (the LLM timed
 * out: 3; its reply was too large: 2) is reported on stderr with its code; any other end is 1.
 */
export function loopExit(io: Output, res: LoopResult): number {
  if (res.outcome === 'success') return EXIT.ok;
  // Stopped by the operator (Ctrl-C): as an interrupted command.
  if (res.outcome === 'stopped') return EXIT.interrupted;
  const e = res.plannerError;
  if (e !== undefined) return report(new WitnessError(e.code, e.message), io);
  return EXIT.negative;
}

const gripperOf = (e: PassEntry): string =>
  e.state['gripper'] !== undefined ? ` (gripper ${JSON.stringify(e.state['gripper'])})` : '';

export function actCommand(io: Output, setExit: (c: number) => void): Command {
  return foxgloveOptions(
    loopOptions(
      new Command('act')
        .description(
          'run the careful control loop with your own tool files on a tool world (tabletop, ros2:<file>) until a CEL goal holds: exit 0 success, 1 goal not met or escalated, 2 bad input, 4 ROS 2 unavailable',
        )
        .requiredOption('--world <id>', 'the world: tabletop, or ros2:<configuration file>')
        .requiredOption(
          '--tools <dir>',
          'the folder of tool files (every *.json in it; docs/FORMATS.md, "Tool definitions")',
        )
        .requiredOption(
          '--goal <cel>',
          'the goal verifier: a CEL condition over the world\'s fields, e.g. objects.red_mug.on == "tray"',
        )
        .option('--task <text>', "the instruction in words, recorded as the run's specification (default: the goal)")
        .option(
          '--plan <file>',
          'a scripted plan (docs/FORMATS.md, "Scripted plans"): needed by --planner scripted and recovery',
        )
        .option(
          '--rules <file>',
          'a rules file (docs/FORMATS.md, "Rules files"): LTL rules over the calls; a call that would break one is refused',
        )
        .option('--operator <name>', 'who runs it (recorded in the audit log and with decisions; default: the user)'),
    ),
  ).action(
    action(
      io,
      setExit,
      async (
        o: LoopFlags &
          FoxgloveFlags & {
            world: string;
            tools: string;
            goal: string;
            task?: string;
            plan?: string;
            rules?: string;
            operator?: string;
          },
      ) =>
        withFoxglove(io, o, async () => {
          const app = await import('../app/act.js');
          const op = chooseOperator(io, o, o.operator ?? app.operatorName());
          try {
            const r = await app.runAct({
              world: o.world,
              ...(o.injectFault !== undefined ? { open: { faults: o.injectFault } } : {}),
              tools: o.tools,
              goal: o.goal,
              ...(o.task !== undefined ? { task: o.task } : {}),
              ...(o.plan !== undefined ? { plan: o.plan } : {}),
              ...(o.rules !== undefined ? { rules: o.rules } : {}),
              planner: o.planner,
              llm: llmOf(o, io),
              replans: o.replans,
              seed: o.seed,
              audit: o.audit,
              decide: op.decide,
              ...(o.operator !== undefined ? { operator: o.operator } : {}),
              // On a robot, Ctrl-C cancels the running goal and ends the loop as stopped before the connection closes.
              interruptible: o.world.startsWith('ros2:'),
            });
            const res = r.result;
            if (o.json)
              io.out(
                resultJson(res, {
                  world: o.world,
                  task: r.task,
                  goal: o.goal,
                  tools: r.tools.map((t) => t.name),
                  ...(r.audit ? { audit: r.audit } : {}),
                }),
              );
            else {
              const what = r.task === o.goal ? `goal ${o.goal}` : `"${r.task}" (goal ${o.goal})`;
              printTrace(
                io,
                `${what} in ${o.world} (planner ${o.planner}, R = ${o.replans}; tools ${r.tools.map((t) => t.name).join(', ')})`,
                res,
                r.audit,
                gripperOf,
              );
            }
            return loopExit(io, res);
          } finally {
            op.close();
          }
        }),
    ),
  );
}

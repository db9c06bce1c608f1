/**
 * The per-call overhead of a rules file on the tool loop (`witness bench rules`): the same loop —
 * the shipped pick and place tools, a scripted plan of alternating calls, an in-memory world that
 * answers at once, so that the loop's own work is what is timed — without rules and with ten
 * (safety, response and bounded rules over the call and the state), interleaved run by run so a
 * noisy machine slows both alike. Goal: under 1 ms per call for ten rules.
 */
import { readFileSync } from 'node:fs';
import { parseTool, registerTools, type RegisteredTool } from '../core/loop/tools.js';
import type { Vocabulary } from '../core/loop/vocabulary.js';
import { runLoop, type ToolWorld } from '../core/loop/loop.js';
import { ScriptedPlanner } from '../core/loop/planners.js';
import { registerRules, type RuleSet } from '../core/loop/rules.js';
import { RuleMonitor } from '../core/loop/rule-monitor.js';
import { assetPath } from '../platform/paths.js';
import { fmt, percentile } from './stats.js';

const VOCAB: Vocabulary = {
  fields: {
    'gripper.width_cm': 'number',
    'gripper.holding': 'string',
    'gripper.load_N': 'number',
    'gripper.payload_limit_N': 'number',
  },
  objects: ['red_mug', 'tray', 'table'],
  objectFields: { on: 'string', mass_kg: 'number', in_workspace: 'bool' },
  propositions: [],
  skills: ['pick', 'place'],
};

/** The ten rules: every one holds on the plan's alternating picks and places, so none refuses. */
const BENCH_RULES = {
  propositions: {
    picking: 'call.tool == "pick"',
    placing: 'call.tool == "place"',
    holding: 'gripper.holding != ""',
    to_bin: 'call.tool == "place" && call.args.target == "red_bin"',
    mug_down: 'objects.red_mug.on == "floor"',
  },
  rules: [
    { name: 'no_bin', ltl: 'G !(to_bin | mug_down)' },
    { name: 'pick_then_place', ltl: 'G (picking -> X placing)' },
    { name: 'pick_holds', ltl: 'G (picking -> holding)' },
    { name: 'place_releases', ltl: 'G (placing -> !holding)' },
    { name: 'place_every_3', ltl: 'G F[<=3] placing' },
    { name: 'pick_every_3', ltl: 'G F[<=3] picking' },
    { name: 'place_after_pick', ltl: 'G (picking -> X (!picking U placing))' },
    { name: 'one_at_a_time', ltl: 'G !(picking & placing)' },
    { name: 'not_held_long', ltl: 'G (holding -> F[<=2] !holding)' },
    { name: 'no_place_twice', ltl: 'G (placing -> X !placing)' },
  ],
};

/** A tabletop that answers at once: pick holds the target, place puts it down. */
class InstantWorld implements ToolWorld {
  private state = {
    gripper: { width_cm: 8, holding: '', load_N: 0, payload_limit_N: 20 },
    objects: {
      red_mug: { on: 'table', mass_kg: 0.3, in_workspace: true },
      tray: { on: 'table', mass_kg: 0.5, in_workspace: true },
      table: { on: 'floor', mass_kg: 20, in_workspace: true },
    } as Record<string, { on: string; mass_kg: number; in_workspace: boolean }>,
  };
  observe(): Promise<Record<string, unknown>> {
    return Promise.resolve(structuredClone(this.state));
  }
  execute(skill: string, args: unknown): Promise<unknown> {
    const a = args as { target: string };
    const g = this.state.gripper;
    if (skill === 'pick') {
      g.holding = a.target;
      g.width_cm = 4;
      g.load_N = 3;
      this.state.objects[a.target]!.on = 'gripper';
    } else {
      this.state.objects[g.holding]!.on = a.target;
      g.holding = '';
      g.width_cm = 8;
      g.load_N = 0;
    }
    return Promise.resolve({ status: 'ok' });
  }
}

export interface RulesBenchRow {
  readonly config: string;
  readonly calls: number;
  readonly per_call_us: number;
  readonly ratio: number;
}

function benchTools(): Map<string, RegisteredTool> {
  return registerTools(
    ['pick.json', 'place.json'].map((f) => {
      const file = assetPath(`tools/${f}`);
      return { def: parseTool(JSON.parse(readFileSync(file, 'utf8')), file), file };
    }),
    VOCAB,
  );
}

async function oneRun(tools: Map<string, RegisteredTool>, calls: number, rules: RuleSet | null): Promise<number> {
  const steps = Array.from({ length: calls }, (_, i) =>
    i % 2 === 0 ? { tool: 'pick', args: { target: 'red_mug' } } : { tool: 'place', args: { target: 'tray' } },
  );
  const t0 = performance.now();
  const r = await runLoop(tools, new InstantWorld(), new ScriptedPlanner(steps), 'bench', {
    replans: 0,
    goal: 'objects.tray.on == "floor"',
    clock: () => 0,
    maxSteps: calls + 1,
    ...(rules !== null ? { rules: new RuleMonitor(rules) } : {}),
  });
  const ms = performance.now() - t0;
  if (r.toolCalls !== calls) throw new Error(`the bench loop ran ${r.toolCalls} of ${calls} calls: ${r.reason}`);
  return ms;
}

/** `runs` interleaved runs of `calls` calls each, without rules and with the ten; medians per call and the ratio. */
export async function runRulesBench(calls: number, runs: number): Promise<RulesBenchRow[]> {
  const tools = benchTools();
  const rules = registerRules(BENCH_RULES, 'bench.rules.json', tools, VOCAB);
  await oneRun(tools, calls, null);
  await oneRun(tools, calls, rules);
  const without: number[] = [],
    withRules: number[] = [];
  for (let i = 0; i < runs; i++) {
    without.push(await oneRun(tools, calls, null));
    withRules.push(await oneRun(tools, calls, rules));
  }
  const med = (xs: number[]): number =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const base = (med(without) * 1000) / calls;
  const ruled = (med(withRules) * 1000) / calls;
  return [
    { config: 'no rules', calls, per_call_us: base, ratio: 1 },
    { config: `${rules.rules.length} rules`, calls, per_call_us: ruled, ratio: ruled / base },
  ];
}

export function rulesBenchTable(rows: readonly RulesBenchRow[]): string {
  const base = rows[0]!;
  return [
    '| loop | calls per run | µs per call (median) | × no rules | rules overhead per call |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.config} | ${r.calls} | ${fmt(r.per_call_us, 1)} | ${fmt(r.ratio, 2)} | ${r === base ? '–' : `${fmt(r.per_call_us - base.per_call_us, 1)} µs (goal < 1000 µs: ${r.per_call_us - base.per_call_us < 1000 ? 'met' : 'NOT met'})`} |`,
    ),
  ].join('\n');
}

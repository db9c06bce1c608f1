/**
 * The tool loop as a workflow, once for every front end: register typed tools against a world's
 * vocabulary, reset the world, record the run in the audit log, run the careful control loop (schema
 * validation, preconditions, execution with a timeout, postconditions on sensor evidence, failure
 * records, replans, escalations answered by the operator), and end the run. `witness act` (the
 * user's tool files, plan and goal on any tool world: `runAct`), `witness demo warehouse` (the same
 * with the shipped ones), the lab and (next) the console call this; none of them wires a loop itself.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { WitnessError } from '../contract/errors.js';
import { AUDIT_EVENTS_VERSION } from '../contract/audit-events.js';
import type { Decide } from '../contract/failure.js';
import { type RegisteredTool, type ToolDef, parseTool, registerTool, registerTools } from '../core/loop/tools.js';
import { type LoopCall, type LoopEvents, type LoopResult, type Planner, runLoop } from '../core/loop/loop.js';
import { type PlanStep, RecoveryPlanner, ScriptedPlanner, parseScript } from '../core/loop/planners.js';
import { VocabularyError, checkCondition, type Vocabulary } from '../core/loop/vocabulary.js';
import { type RuleSet, registerRules } from '../core/loop/rules.js';
import { RuleMonitor } from '../core/loop/rule-monitor.js';
import { InputError, parseJson } from '../core/input/json.js';
import { type World, toolsOf } from '../core/world/world.js';
import { type OpenOptions, worldEntry } from '../backends/catalogue.js';
import type { WorldFault } from '../core/world/faults.js';
import type { AuditLog } from '../services/audit/store.js';
import { auditSink } from '../services/audit/mission-recorder.js';
import { loopEvents } from '../services/audit/loop-recorder.js';
import { type LlmConfig, LlmPlanner, checkBaseUrl } from '../services/llm/openai-planner.js';
import { assetPath, operatorName } from '../platform/paths.js';
import { INPUT, InputRefused, readFailure, readInputText, readInputTextSync } from '../platform/input-files.js';
import { interruptible } from '../platform/interrupt.js';
import { Turns } from '../platform/event-loop.js';
import { VERSION } from '../contract/version.js';
import { auditFileOf, openAuditLog, settleAudit } from './audit-log.js';

export type { LoopResult, Planner, ToolDef, RegisteredTool };
export { operatorName };

/** A shipped JSON asset (tool files, plans), parsed. */
function assetJson(rel: string): unknown {
  return JSON.parse(readFileSync(assetPath(rel), 'utf8'));
}

/** Parses tool files (objects already read) for registration. */
function toolDefs(
  files: readonly { readonly file: string; readonly value: unknown }[],
): { def: ToolDef; file: string }[] {
  return files.map((f) => ({ def: parseTool(f.value, f.file), file: f.file }));
}

export interface ActRequest {
  /** The world: open (the lab reuses one), or an id the catalogue opens (with `open`) and this closes. */
  readonly world: World | string;
  readonly open?: OpenOptions;
  readonly tools: readonly { readonly def: ToolDef; readonly file: string }[];
  readonly planner: Planner | ((tools: ReadonlyMap<string, RegisteredTool>) => Planner);
  /** The instruction, in words (recorded as the run's specification). */
  readonly goal: string;
  /** The goal verifier: a CEL condition on the observed state. */
  readonly verify: string;
  readonly seed: number;
  readonly replans: number;
  readonly blind?: boolean;
  readonly maxSteps?: number;
  /** Seconds since the loop started (default: wall time). */
  readonly clock?: () => number;
  readonly decide?: Decide;
  readonly audit?: {
    readonly log: AuditLog;
    readonly operator: string;
    readonly via: string;
    readonly meta?: Readonly<Record<string, unknown>>;
  };
  /** The operator's stop (the console's stop, the E-STOP): cancels the running skill; the run ends as stopped. */
  readonly signal?: AbortSignal;
  /** The loop's events as they happen, besides the audit log (the console's step view). */
  readonly onEvent?: LoopEvents;
  readonly onCall?: (c: LoopCall) => void;
  /**
   * Called once the run is recorded (its audit run id, or null without an audit log), before anything moves; with the
   * registered tools and rules.
   */
  readonly started?: (auditRun: string | null, tools: ReadonlyMap<string, RegisteredTool>, rules?: RuleSet) => void;
  /** A registered rules file: each call checked before it runs and monitored after it. */
  readonly rules?: RuleSet;
}

/** Runs the tool loop once: the one assembly of the careful control loop. */
export async function act(
  req: ActRequest,
): Promise<{ result: LoopResult; auditRun: string | null; auditErrors: readonly Error[] }> {
  const world = typeof req.world === 'string' ? await worldEntry(req.world).open(req.open) : req.world;
  try {
    const w = toolsOf(world);
    const tools = await registerInTurns(req.tools, w.vocabulary());
    const planner = typeof req.planner === 'function' ? req.planner(tools) : req.planner;
    const a = req.audit;
    const run =
      a === undefined
        ? null
        : await a.log.startRun({
            world: world.spec.id,
            backend: world.spec.backend,
            operator: a.operator,
            software: `witness ${VERSION}`,
            models: {},
            spec: req.goal,
            meta: { via: a.via, replans: req.replans, seed: req.seed, events: AUDIT_EVENTS_VERSION, ...a.meta },
            toolSchemas: Object.fromEntries([...tools].map(([name, def]) => [name, JSON.stringify(def.arguments)])),
          });
    const sink = a !== undefined && run !== null ? auditSink(a.log, run) : null;
    let result: LoopResult;
    try {
      req.started?.(run, tools, req.rules);
      await w.reset({ seed: req.seed });
      const started = Date.now();
      const toAudit = sink !== null ? loopEvents(sink) : null;
      const extra = req.onEvent;
      const onEvent: LoopEvents | null =
        toAudit !== null && extra !== undefined
          ? (kind, body) => {
              toAudit(kind, body);
              extra(kind, body);
            }
          : (toAudit ?? extra ?? null);
      result = await runLoop(tools, w, planner, req.goal, {
        replans: req.replans,
        goal: req.verify,
        clock: req.clock ?? (() => (Date.now() - started) / 1000),
        ...(req.blind ? { blind: true } : {}),
        ...(req.maxSteps !== undefined ? { maxSteps: req.maxSteps } : {}),
        ...(onEvent !== null ? { onEvent } : {}),
        ...(req.decide ? { decide: req.decide } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
        ...(req.onCall ? { onCall: req.onCall } : {}),
        ...(req.rules !== undefined ? { rules: new RuleMonitor(req.rules) } : {}),
      });
    } catch (e) {
      // A run that was recorded is never left without an end: whatever stopped it is its reason.
      sink?.event('run_end', {
        outcome: 'failed',
        failureMode: 'error',
        reason: `the run failed: ${e instanceof Error ? e.message : String(e)}`,
        replans: 0,
      });
      throw e;
    }
    sink?.event('run_end', {
      outcome: result.outcome,
      reason: result.reason,
      toolCalls: result.toolCalls,
      replans: result.replans,
    });
    // Appends are batched: the caller settles the log once (settleAudit), after one run or many.
    return { result, auditRun: run, auditErrors: sink?.errors ?? [] };
  } finally {
    if (typeof req.world === 'string') await world.close();
  }
}

/** The seed's warehouse example: "move the red bin to shelf C4". */
export const WAREHOUSE = {
  goal: 'move the red bin to shelf C4',
  verify: 'objects.red_bin.on == "shelf_c4"',
  world: 'tabletop',
  tools: 'tools',
  plan: 'plans/warehouse.json',
} as const;

type ActPlannerKind = 'recovery' | 'scripted' | 'llm';
/** The warehouse demo's planner kinds (the same as `witness act`'s). */
export type WarehousePlanner = ActPlannerKind;

export interface LlmSettings {
  readonly url?: string;
  readonly model: string;
  readonly apiKey?: string;
  /** Per request (default LLM_DEFAULTS.timeout_ms). */
  readonly timeout_ms?: number;
  /** The largest reply read, bytes (default LLM_DEFAULTS.maxReplyBytes). */
  readonly maxReplyBytes?: number;
  /** Progress while a request waits (the CLI's line on stderr). */
  readonly waiting?: LlmConfig['waiting'];
  /** The flags that set the limits, for messages. */
  readonly names?: LlmConfig['names'];
}

/**
 * The planner: the recovery planner over a scripted plan, the plan alone (scripted), or an LLM over
 * the registered tools. `steps` is the plan (scripted and recovery need one).
 */
function plannerOf(
  kind: ActPlannerKind,
  steps: readonly PlanStep[] | null,
  llm?: LlmSettings,
): (tools: ReadonlyMap<string, RegisteredTool>) => Planner {
  if (kind === 'llm') {
    const url = llm?.url;
    if (url === undefined)
      throw new WitnessError(
        'invalid-input',
        '--planner llm needs --llm-url (an OpenAI-compatible server, e.g. http://127.0.0.1:8080)',
        { path: '--llm-url' },
      );
    checkBaseUrl(url, '--llm-url');
    const { url: _u, model, apiKey, timeout_ms, maxReplyBytes, waiting, names } = llm!;
    const cfg: LlmConfig = {
      baseUrl: url,
      model,
      ...(apiKey ? { apiKey } : {}),
      ...(timeout_ms !== undefined ? { timeout_ms } : {}),
      ...(maxReplyBytes !== undefined ? { maxReplyBytes } : {}),
      ...(waiting !== undefined ? { waiting } : {}),
      ...(names !== undefined ? { names } : {}),
    };
    return (tools) => new LlmPlanner(tools, cfg);
  }
  if (steps === null)
    throw new WitnessError(
      'invalid-input',
      `--planner ${kind} follows a scripted plan: give --plan FILE (docs/FORMATS.md, "Scripted plans"), or --planner llm`,
      { path: '--plan' },
    );
  return () => (kind === 'scripted' ? new ScriptedPlanner(steps) : new RecoveryPlanner(steps));
}

/** The warehouse demo's planner: the recovery planner over the shipped script, the script alone, or an LLM. */
export function warehousePlanner(
  kind: WarehousePlanner,
  llm?: LlmSettings,
): (tools: ReadonlyMap<string, RegisteredTool>) => Planner {
  return plannerOf(
    kind,
    kind === 'llm' ? null : parseScript(assetJson(WAREHOUSE.plan), `assets/${WAREHOUSE.plan}`),
    llm,
  );
}

/**
 * Tool files registered as registerTools does, one at a time with a turn of the event loop once a few milliseconds
 * have passed: each compiles its argument schema and type-checks its conditions, and a folder of many tools would hold
 * the loop that answers the E-STOP for as long as all of them take.
 */
async function registerInTurns(
  defs: readonly { def: ToolDef; file: string }[],
  v: Vocabulary,
): Promise<Map<string, RegisteredTool>> {
  const out = new Map<string, RegisteredTool>();
  const turns = new Turns();
  for (const d of defs) {
    if (turns.due()) await turns.take();
    registerTool(out, d, v);
  }
  return out;
}

/** Every *.json in a folder, parsed as a tool file (sorted by name): a folder with none is an error that says so. */
function readToolFolder(dir: string): { def: ToolDef; file: string }[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory())
      throw new WitnessError(
        'invalid-input',
        `--tools ${dir}: not a folder (give the folder that holds the tool files, *.json)`,
        { path: '--tools' },
      );
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (e) {
    if (e instanceof WitnessError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new WitnessError(
      code === 'ENOENT' ? 'not-found' : 'unreadable',
      `--tools ${dir}: ${code === 'ENOENT' ? 'no such folder' : `cannot read: ${code ?? String(e)}`}`,
      { path: '--tools' },
    );
  }
  if (names.length === 0)
    throw new WitnessError('invalid-input', `--tools ${dir}: no tool files (*.json) in the folder`, {
      path: '--tools',
    });
  return names.map((n) => {
    const file = path.join(dir, n);
    let text: string;
    try {
      text = readInputTextSync(file, INPUT.tools);
    } catch (e) {
      if (e instanceof InputRefused) throw e;
      throw new InputError(file, '$', `cannot read: ${readFailure(e)}`);
    }
    return { def: parseTool(parseJson(text, file), file), file };
  });
}

/** A folder of tool files read and registered against a world's vocabulary (what `--tools` registers). */
export function registerToolFolder(dir: string, v: Vocabulary): ReadonlyMap<string, RegisteredTool> {
  return registerTools(readToolFolder(dir), v);
}

/**
 * The goal verifier must type-check as a boolean over the world's vocabulary; a bad one names the position or the name.
 */
function checkGoal(goal: string, v: Vocabulary): void {
  try {
    checkCondition(goal, v);
  } catch (e) {
    if (!(e instanceof VocabularyError)) throw e;
    throw new WitnessError('invalid-input', `--goal ${JSON.stringify(goal)}: ${e.message.replace('<input>:', '')}`, {
      path: '--goal',
    });
  }
}

/** A rules file to register against the tool folder `tools` on the tool world `world`. */
export interface RulesFileRequest {
  readonly world: string;
  readonly tools: string;
  readonly rules: string;
}

/** The rules file registered as runAct registers it, the folder's tools registered first (plain data: a RuleSet). */
export async function registerRulesFile(r: RulesFileRequest): Promise<RuleSet> {
  const v = worldEntry(r.world).vocabulary;
  if (v === undefined)
    throw new WitnessError('invalid-input', `--world ${r.world}: a navigation world has no skills`, {
      path: '--world',
    });
  return readRules(r.rules, registerTools(readToolFolder(r.tools), v), v);
}

/** Reads and registers a rules file against the world's vocabulary and the registered tools (file:line in errors). */
async function readRules(file: string, tools: ReadonlyMap<string, RegisteredTool>, v: Vocabulary): Promise<RuleSet> {
  let text: string;
  try {
    text = await readInputText(file, INPUT.rules);
  } catch (e) {
    if (e instanceof InputRefused) throw e;
    const code = readFailure(e);
    throw new WitnessError(
      code === 'ENOENT' ? 'not-found' : 'unreadable',
      `--rules ${file}: ${code === 'ENOENT' ? 'no such file' : `cannot read: ${code ?? String(e)}`}`,
      { path: '--rules' },
    );
  }
  return registerRules(parseJson(text, file), file, tools, v, text);
}

/**
 * A plan's steps name registered tools with arguments their schemas accept (alternatives included): checked before
 * anything moves.
 */
function checkPlan(steps: readonly PlanStep[], tools: ReadonlyMap<string, RegisteredTool>, file: string): void {
  const check = (c: { tool: string; args: unknown }, at: string): void => {
    const t = tools.get(c.tool);
    if (t === undefined)
      throw new InputError(
        file,
        `${at}.tool`,
        `no tool "${c.tool}" in --tools (tools: ${[...tools.keys()].join(', ')})`,
      );
    if (!t.validate(c.args)) {
      const e = t.validate.errors?.[0];
      throw new InputError(
        file,
        `${at}.args${e?.instancePath ? e.instancePath.replace(/\//g, '.') : ''}`,
        `${c.tool}: ${e?.message ?? 'does not match the argument schema'}`,
      );
    }
  };
  steps.forEach((s, i) => {
    check(s, `$.steps[${i}]`);
    for (const [label, alt] of Object.entries(s.on ?? {}))
      alt.forEach((c, j) => check(c, `$.steps[${i}].on[${JSON.stringify(label)}][${j}]`));
  });
}

export interface ActOptions {
  /** A tool world: `tabletop` or `ros2:<configuration>`. */
  readonly world: string;
  readonly open?: OpenOptions;
  /** The folder of tool files (every *.json; the warehouse's: assets/tools). */
  readonly tools: string;
  /** The goal verifier: a CEL condition on the observed state. */
  readonly goal: string;
  /** The instruction in words, recorded as the run's specification (default: the goal). */
  readonly task?: string;
  /** A scripted plan file (scripted and recovery planners). */
  readonly plan?: string;
  /** A rules file (docs/FORMATS.md, "Rules files"): temporal rules every call is checked against. */
  readonly rules?: string;
  /**
   * Registers the rules file (default: here; the console's runs registerRulesFile in its planning worker: translating
   * the rules can take seconds, and its event loop answers the E-STOP).
   */
  readonly registerRules?: (r: RulesFileRequest) => Promise<RuleSet>;
  readonly planner: ActPlannerKind;
  readonly llm?: LlmSettings;
  readonly replans: number;
  readonly seed: number;
  /**
   * The audit database: a file, true for the default one, false for none; or a log the caller holds open (the console).
   */
  readonly audit: string | boolean | AuditLog;
  readonly decide?: Decide;
  /** Who runs it (recorded; default: the OS user). */
  readonly operator?: string;
  /** The front end, recorded (default "cli"). */
  readonly via?: string;
  readonly meta?: Readonly<Record<string, unknown>>;
  /** The console's hooks: the operator's stop, the loop's events and calls live, the run once recorded. */
  readonly signal?: AbortSignal;
  readonly onEvent?: LoopEvents;
  readonly onCall?: (c: LoopCall) => void;
  readonly started?: ActRequest['started'];
  /**
   * Ctrl-C (and SIGTERM) stops the loop as the console's stop does: the running goal is cancelled before the world
   * closes.
   */
  readonly interruptible?: boolean;
}

export interface ActReport {
  readonly result: LoopResult;
  readonly audit: { readonly file: string; readonly run: string } | null;
  readonly task: string;
  /** The registered tools: name, file, skill, postcondition names. */
  readonly tools: readonly {
    readonly name: string;
    readonly file: string;
    readonly skill: string;
    readonly postconditions: readonly string[];
  }[];
}

/**
 * `witness act`: the careful control loop with the user's tool files, plan and goal on a tool world.
 * Everything is checked before anything moves or connects — the world id, its vocabulary, every tool
 * file (parsed and registered: file and JSON path), the goal verifier, the plan (its tools and
 * arguments), the rules file (registered against both) — then the world is opened (a ROS 2 world
 * without ROS 2: Ros2Unavailable, exit 4) and the loop runs, recorded in the audit log.
 */
export async function runAct(o: ActOptions): Promise<ActReport> {
  const entry = worldEntry(o.world);
  const v = entry.vocabulary;
  if (v === undefined || v.skills.length === 0) {
    throw new WitnessError(
      'invalid-input',
      `--world ${o.world}: ${v === undefined ? 'a navigation world has no skills' : 'its configuration names no actions or services'}; the tool loop runs on tabletop or a ROS 2 robot with skills (ros2:<configuration file>)`,
      { path: '--world' },
    );
  }
  const defs = readToolFolder(o.tools);
  const tools = await registerInTurns(defs, v);
  checkGoal(o.goal, v);
  let steps: readonly PlanStep[] | null = null;
  if (o.plan !== undefined) {
    if (o.planner === 'llm')
      throw new WitnessError(
        'invalid-input',
        '--plan goes with --planner scripted or recovery; the LLM planner plans from the goal and the tools',
        { path: '--plan' },
      );
    let text: string;
    try {
      text = await readInputText(o.plan, INPUT.plan);
    } catch (e) {
      if (e instanceof InputRefused) throw e;
      const code = readFailure(e);
      throw new WitnessError(
        code === 'ENOENT' ? 'not-found' : 'unreadable',
        `--plan ${o.plan}: ${code === 'ENOENT' ? 'no such file' : `cannot read: ${code ?? String(e)}`}`,
        { path: '--plan' },
      );
    }
    steps = parseScript(parseJson(text, o.plan), o.plan);
    checkPlan(steps, tools, o.plan);
  }
  const rules =
    o.rules === undefined
      ? undefined
      : o.registerRules !== undefined
        ? await o.registerRules({ world: o.world, tools: o.tools, rules: o.rules })
        : await readRules(o.rules, tools, v);
  const planner = plannerOf(o.planner, steps, o.llm);
  const task = o.task ?? o.goal;
  // Connected (or the simulator loaded) before the audit log is touched: a robot that cannot be
  // reached (ROS 2 missing: Ros2Unavailable) leaves no trace of a run that never started.
  const world = await entry.open(o.open);
  const held = typeof o.audit === 'object' ? o.audit : null;
  const file = held !== null ? null : auditFileOf(o.audit as string | boolean);
  let log: AuditLog | null = null;
  const stop = o.interruptible === true ? interruptible() : null;
  const signals = [o.signal, stop?.signal].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  try {
    log = held ?? (file === null ? null : await openAuditLog(file));
    const r = await act({
      world,
      tools: defs,
      planner,
      goal: task,
      verify: o.goal,
      seed: o.seed,
      replans: o.replans,
      ...(o.decide !== undefined ? { decide: o.decide } : {}),
      ...(log !== null
        ? {
            audit: {
              log,
              operator: o.operator ?? operatorName(),
              via: o.via ?? 'cli',
              meta: {
                planner: o.planner,
                ...(o.rules !== undefined ? { rules: o.rules } : {}),
                ...(o.meta ?? { goal: o.goal, tools: o.tools, plan: o.plan ?? null }),
              },
            },
          }
        : {}),
      ...(signal ? { signal } : {}),
      ...(o.onEvent ? { onEvent: o.onEvent } : {}),
      ...(o.onCall ? { onCall: o.onCall } : {}),
      ...(o.started ? { started: o.started } : {}),
      ...(rules !== undefined ? { rules } : {}),
    });
    if (log !== null) await settleAudit(log, [{ errors: r.auditErrors }]);
    return {
      result: r.result,
      audit: log !== null && r.auditRun !== null ? { file: log.file, run: r.auditRun } : null,
      task,
      tools: [...tools.values()].map((t) => ({
        name: t.name,
        file: defs.find((d) => d.def.name === t.name)!.file,
        skill: t.skill,
        postconditions: t.postconditions.map((c) => c.name),
      })),
    };
  } finally {
    stop?.release();
    try {
      if (held === null) await log?.close();
    } finally {
      await world.close();
    }
  }
}

/**
 * The seed's warehouse example as one use of `runAct`: the shipped tools, plan and goal in the tabletop, perception
 * exact.
 */
export async function warehouse(o: {
  planner: WarehousePlanner;
  replans: number;
  seed: number;
  audit: string | boolean;
  decide: Decide;
  llm?: LlmSettings;
  faults?: readonly WorldFault[];
}): Promise<{ result: LoopResult; audit: { file: string; run: string } | null }> {
  const r = await runAct({
    world: WAREHOUSE.world,
    open: { perfectPerception: true, ...(o.faults !== undefined ? { faults: o.faults } : {}) },
    tools: assetPath(WAREHOUSE.tools),
    ...(o.planner !== 'llm' ? { plan: assetPath(WAREHOUSE.plan) } : {}),
    goal: WAREHOUSE.verify,
    task: WAREHOUSE.goal,
    planner: o.planner,
    ...(o.llm !== undefined ? { llm: o.llm } : {}),
    replans: o.replans,
    seed: o.seed,
    audit: o.audit,
    decide: o.decide,
    meta: { demo: 'warehouse' },
  });
  return { result: r.result, audit: r.audit };
}

/** The shipped pick and place tools. */
export function tabletopTools(): { def: ToolDef; file: string }[] {
  return toolDefs(['pick.json', 'place.json'].map((f) => ({ file: f, value: assetJson(`tools/${f}`) })));
}

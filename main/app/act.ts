/**
 * The tool loop as a workflow, once for every front end: register typed tools against a world's
 * vocabulary, reset the world, record the run in the audit log, run the careful control loop (schema
 * validation, preconditions, execution with a timeout, postconditions on sensor evidence, failure
 * records, replans, escalations answered by the operator), and end the run. `witness demo
 * warehouse`, the lab and (next) the console call this; none of them wires a loop itself.
 */
import { readFileSync } from 'node:fs';
import { WitnessError } from '../contract/errors.js';
import { AUDIT_EVENTS_VERSION } from '../contract/audit-events.js';
import type { Decide } from '../contract/failure.js';
import { type RegisteredTool, type ToolDef, parseTool, registerTools } from '../core/loop/tools.js';
import { type LoopResult, type Planner, runLoop } from '../core/loop/loop.js';
import { RecoveryPlanner, ScriptedPlanner, parseScript } from '../core/loop/planners.js';
import { type World, toolsOf } from '../core/world/world.js';
import { type OpenOptions, worldEntry } from '../backends/catalogue.js';
import type { AuditLog } from '../services/audit/store.js';
import { auditSink } from '../services/audit/mission-recorder.js';
import { loopEvents } from '../services/audit/loop-recorder.js';
import { LlmPlanner } from '../services/llm/openai-planner.js';
import { assetPath } from '../platform/paths.js';
import { VERSION } from '../contract/version.js';

export type { LoopResult, Planner, ToolDef, RegisteredTool };

/** A shipped JSON asset (tool files, plans), parsed. */
export function assetJson(rel: string): unknown {
  return JSON.parse(readFileSync(assetPath(rel), 'utf8'));
}

/** Parses tool files (objects already read) for registration. */
function toolDefs(files: readonly { readonly file: string; readonly value: unknown }[]): { def: ToolDef; file: string }[] {
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
  readonly audit?: { readonly log: AuditLog; readonly operator: string; readonly via: string; readonly meta?: Readonly<Record<string, unknown>> };
}

/** Runs the tool loop once: the one assembly of the careful control loop. */
export async function act(req: ActRequest): Promise<{ result: LoopResult; auditRun: string | null; auditErrors: readonly Error[] }> {
  const world = typeof req.world === 'string' ? await worldEntry(req.world).open(req.open) : req.world;
  try {
    const w = toolsOf(world);
    const tools = registerTools(req.tools, w.vocabulary());
    const planner = typeof req.planner === 'function' ? req.planner(tools) : req.planner;
    const a = req.audit;
    const run = a === undefined ? null : await a.log.startRun({
      world: world.spec.id, backend: world.spec.backend, operator: a.operator, software: `witness ${VERSION}`, models: {}, spec: req.goal,
      meta: { via: a.via, replans: req.replans, seed: req.seed, events: AUDIT_EVENTS_VERSION, ...a.meta },
    });
    for (const [name, def] of tools) a?.log.putBlob(`tool-schema:${name}`, JSON.stringify(def.arguments));
    await w.reset({ seed: req.seed });
    const started = Date.now();
    const sink = a !== undefined && run !== null ? auditSink(a.log, run) : null;
    const result = await runLoop(tools, w, planner, req.goal, {
      replans: req.replans, goal: req.verify, clock: req.clock ?? (() => (Date.now() - started) / 1000),
      ...(req.blind ? { blind: true } : {}), ...(req.maxSteps !== undefined ? { maxSteps: req.maxSteps } : {}),
      ...(sink !== null ? { onEvent: loopEvents(sink) } : {}), ...(req.decide ? { decide: req.decide } : {}),
    });
    sink?.event('run_end', { outcome: result.outcome, reason: result.reason, toolCalls: result.toolCalls, replans: result.replans });
    // Appends are batched: the caller settles the log once (settleAudit), after one run or many.
    return { result, auditRun: run, auditErrors: sink?.errors ?? [] };
  } finally {
    if (typeof req.world === 'string') await world.close();
  }
}

/** The seed's warehouse example: "move the red bin to shelf C4". */
export const WAREHOUSE = { goal: 'move the red bin to shelf C4', verify: 'objects.red_bin.on == "shelf_c4"', world: 'tabletop' } as const;

export type WarehousePlanner = 'recovery' | 'scripted' | 'llm';

/** The warehouse demo's planner: the recovery planner over the shipped script, the script alone, or an LLM. */
export function warehousePlanner(kind: WarehousePlanner, llm?: { url?: string; model: string; apiKey?: string }): (tools: ReadonlyMap<string, RegisteredTool>) => Planner {
  const steps = parseScript(assetJson('plans/warehouse.json'), 'assets/plans/warehouse.json');
  if (kind === 'llm') {
    const url = llm?.url;
    if (url === undefined) throw new WitnessError('invalid-input', '--planner llm needs --llm-url (an OpenAI-compatible server, e.g. http://127.0.0.1:8080)', { path: '--llm-url' });
    return (tools) => new LlmPlanner(tools, { baseUrl: url, model: llm!.model, ...(llm!.apiKey ? { apiKey: llm!.apiKey } : {}) });
  }
  return () => (kind === 'scripted' ? new ScriptedPlanner(steps) : new RecoveryPlanner(steps));
}

/** The shipped pick and place tools. */
export function tabletopTools(): { def: ToolDef; file: string }[] {
  return toolDefs(['pick.json', 'place.json'].map((f) => ({ file: f, value: assetJson(`tools/${f}`) })));
}

/**
 * The planning workflow: a prefix–suffix plan for an LTL specification over a labelled graph (exact)
 * or a latent graph (augmented for the task with the dataset and the models), by SAGAS or a
 * baseline, with its certificate; as `witness plan` prints it, as the API's planGraph returns it, and
 * as the graph view shows it.
 */
import { WitnessError } from '../contract/errors.js';
import { INPUT, readInputText } from '../platform/input-files.js';
import { PLAN_DEFAULTS, type PlanMethod } from '../contract/defaults.js';
import type {
  ApiError,
  AutomatonView,
  GraphScene,
  PlanDocument,
  PlanGraphRequest,
  PlanGraphResponse,
  PlanView,
} from '../contract/api.js';
import { InputError, parseJson } from '../core/input/json.js';
import { labelledGraph } from '../core/plan/labelled-graph.js';
import { METHODS, type PlanResult, deadline, plan, unavailablePropositions } from '../core/plan/plan.js';
import type { SemanticGraph } from '../core/plan/semantic.js';
import { planDocument } from '../core/plan/document.js';
import { type AugmentReport, DEFAULT_AUGMENT } from '../core/graph/augment.js';
import { createRng } from '../core/random/rng.js';
import { LtlBudgetError, LtlSyntaxError } from '../core/ltl/errors.js';
import type { BuchiAutomaton } from '../core/ltl/automaton.js';
import { automatonOf, ltlApiError } from './ltl.js';
import { augmentTask, readGraphInput, readRegions } from '../services/plan/inputs.js';
import { onRegions } from '../core/plan/crossings.js';
import { type Explanation, explainResult } from '../core/plan/explain.js';
import type { Formula } from '../core/ltl/ast.js';
import { parseLtl } from '../core/ltl/parser.js';
import { automatonView, planView, sceneOf } from '../services/ui/scene.js';
import { layoutMissing } from '../services/ui/scene-layout.js';
import { Workspace, WorkspaceError } from '../services/editor/workspace.js';
import { openBackbone } from './backbone.js';
import { checkRegionsForWorld, missionWorld } from './mission.js';
import { specOf, taskRegions } from './task-inputs.js';

export type { PlanResult, AugmentReport };

export interface PlanRequest {
  readonly graph: string;
  readonly spec: string;
  readonly method: PlanMethod;
  readonly lambda: number;
  /** Prefix candidates; default: all (exact) on labelled graphs, PLAN_DEFAULTS.k on latent graphs. */
  readonly k?: number;
  readonly tauSoft: number;
  readonly heuristic: 'b13' | 'chain';
  readonly timeLimit_ms: number;
  /**
   * The regions file: a latent graph's task regions (required, with the start, dataset and models:
   * default the shipped ones); a labelled graph's node labels are checked against it, and its edges
   * split where they cross a region (core/plan/crossings.ts onRegions).
   */
  readonly regions?: string;
  readonly start?: readonly [number, number];
  readonly data?: string;
  readonly models?: string;
  readonly augment?: {
    anchors: number;
    attempts: number;
    kernel: 'constant' | 'gaussian';
    sigma?: number;
    seed: number;
  };
}

export interface PlanOutcome {
  readonly result: PlanResult;
  readonly graph: SemanticGraph;
  readonly automaton: BuchiAutomaton;
  readonly kind: 'labelled' | 'latent';
  readonly k: number;
  readonly planning_ms: number;
  readonly translate_ms: number;
  readonly warnings: readonly string[];
  readonly augmentation?: AugmentReport;
  readonly augment_ms?: number;
  /** The plan document (docs/FORMATS.md, "Plans"), as `witness plan --json` prints it. */
  readonly document: Record<string, unknown>;
  /** Infeasible: why (core/plan/explain.ts); the document carries it too. */
  readonly explanation?: Explanation;
}

const now = (): number => performance.now();

/** Plans over a labelled graph JSON or a latent graph artifact (`witness plan`). */
export async function planOnGraph(o: PlanRequest): Promise<PlanOutcome> {
  const t0 = performance.now();
  const { formula, automaton } = specOf(o.spec);
  const translate_ms = performance.now() - t0;
  const input = await readGraphInput(o.graph);
  let graph: SemanticGraph,
    augmentation: AugmentReport | undefined,
    augment_ms: number | undefined,
    k = o.k;
  if (input.kind === 'latent') {
    for (const [flag, v] of [
      ['--regions', o.regions],
      ['--start', o.start],
      ['--data', o.data],
    ] as const) {
      if (v === undefined)
        throw new WitnessError('invalid-input', `${o.graph} is a latent graph: ${flag} is required`, { path: flag });
    }
    const a = o.augment ?? { ...DEFAULT_AUGMENT, kernel: 'constant' as const, seed: 0 };
    if (a.kernel === 'gaussian' && a.sigma === undefined)
      throw new WitnessError('invalid-input', '--kernel gaussian needs --sigma', { path: '--sigma' });
    const { regions } = await taskRegions({ file: o.regions! }, automaton.aps);
    const b = await openBackbone({
      kind: 'files',
      graph: o.graph,
      data: o.data!,
      ...(o.models !== undefined ? { models: o.models } : {}),
    });
    try {
      checkRegionsForWorld(regions, { file: o.regions! }, b.artifact.world);
      const world = missionWorld(b.artifact.world);
      const task = await augmentTask(
        b,
        { id: world.id, map: world.map, restObservation: (x, y) => world.restObservation(x, y) },
        regions,
        o.start!,
        {
          anchors: a.anchors,
          attempts: a.attempts,
          kernel: a.kernel === 'gaussian' ? { kind: 'gaussian', sigma: a.sigma! } : { kind: 'constant' },
        },
        createRng(a.seed),
        { regions: o.regions!, start: '--start' },
      );
      graph = task.graph;
      augmentation = task.report;
      augment_ms = task.augment_ms;
    } finally {
      await b.models.close();
    }
    k ??= PLAN_DEFAULTS.k;
  } else {
    // With regions, the graph must agree with them, and its edges carry what they cross.
    graph =
      o.regions === undefined
        ? input.graph
        : onRegions(input.graph, (await readRegions(o.regions)).regions, o.graph).graph;
    k ??= Infinity;
  }
  // A proposition no node carries is false everywhere: legal, but usually a typo.
  const warnings =
    input.kind === 'labelled'
      ? unavailablePropositions(graph, automaton).map(
          (ap) => `proposition "${ap}" labels no node of ${o.graph}: it is false everywhere`,
        )
      : [];
  const t1 = performance.now();
  const check = deadline(o.timeLimit_ms, () => performance.now());
  const result = plan(graph, automaton, {
    method: o.method,
    k,
    lambda: o.lambda,
    tauSoft: o.tauSoft,
    check,
    heuristic: o.heuristic,
  });
  const planning_ms = performance.now() - t1;
  // No plan: say why, within a time budget of its own (the search may have spent the request's).
  const explanation = explainResult(result, graph, formula, {
    plan: { lambda: o.lambda, tauSoft: o.tauSoft, heuristic: o.heuristic, check: deadline(o.timeLimit_ms, now) },
  });
  const extra = {
    k: k === Infinity ? 'all' : k,
    lambda: o.lambda,
    planning_ms,
    translate_ms,
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(augment_ms !== undefined ? { augment_ms, augmentation } : {}),
    ...(explanation !== undefined ? { explanation } : {}),
  };
  return {
    result,
    ...(explanation !== undefined ? { explanation } : {}),
    graph,
    automaton,
    kind: input.kind,
    k,
    planning_ms,
    translate_ms,
    warnings,
    ...(augmentation !== undefined ? { augmentation } : {}),
    ...(augment_ms !== undefined ? { augment_ms } : {}),
    document: planDocument(result, graph, extra),
  };
}
/** Time budget of one planning request from the UI or the API. */
const API_TIME_LIMIT_MS = PLAN_DEFAULTS.apiTimeLimit_ms;

/**
 * The API's planGraph: a labelled graph document and a spec; infeasibility is a plan document, and
 * malformed requests are `{ ok: false, error }` (checked here too: direct callers skip the transport's schema).
 */
export function planLabelledGraph(request: PlanGraphRequest): PlanGraphResponse {
  const r: unknown = request;
  const fail = (message: string): PlanGraphResponse => ({ ok: false, error: { code: 'invalid-params', message } });
  if (typeof r !== 'object' || r === null)
    return fail('request: expected an object { graph, spec, method?, lambda?, k? }');
  const { graph, spec, method, lambda, k } = r as Record<string, unknown>;
  if (typeof spec !== 'string') return fail('request.spec: expected a string');
  if (method !== undefined && !METHODS.includes(method as PlanMethod))
    return fail(`request.method: expected one of ${METHODS.join(', ')}`);
  if (lambda !== undefined && !(typeof lambda === 'number' && lambda >= 0 && lambda <= 1))
    return fail('request.lambda: expected a number in [0, 1]');
  if (k !== undefined && k !== 'all' && !(typeof k === 'number' && Number.isInteger(k) && k >= 1))
    return fail("request.k: expected an integer ≥ 1 or 'all'");
  try {
    const g = labelledGraph(graph, 'request.graph');
    const automaton = automatonOf(spec);
    const formula = parseLtl(spec);
    const kk = k === undefined || k === 'all' ? Infinity : k;
    const lam = lambda ?? PLAN_DEFAULTS.lambda;
    const started = performance.now();
    const result = plan(g, automaton, {
      method: (method ?? 'sagas') as PlanMethod,
      k: kk,
      lambda: lam,
      tauSoft: PLAN_DEFAULTS.tauSoft,
      check: deadline(API_TIME_LIMIT_MS, () => performance.now()),
    });
    const explanation = explainResult(result, g, formula, {
      plan: { lambda: lam, tauSoft: PLAN_DEFAULTS.tauSoft, check: deadline(API_TIME_LIMIT_MS, now) },
    });
    const extra = {
      k: kk === Infinity ? 'all' : kk,
      lambda: lam,
      planning_ms: performance.now() - started,
      ...(explanation !== undefined ? { explanation } : {}),
    };
    return { ok: true, plan: planDocument(result, g, extra) as PlanDocument };
  } catch (e) {
    return { ok: false, error: requestError(e) };
  }
}

/** A request's problem as an ApiError: LTL positions, budgets, the JSON path of a graph problem. */
function requestError(e: unknown): ApiError {
  if (e instanceof InputError) return { code: e.code, message: `${e.path}: ${e.detail}` };
  return ltlApiError(e);
}

/** The Büchi automaton of a specification, as the graph views draw it; errors located at `$.spec`. */
export function automatonViewOf(spec: string): AutomatonView {
  if (typeof spec !== 'string') throw new WitnessError('invalid-params', 'spec: expected a string', { path: '$.spec' });
  return automatonView(specAutomaton(spec));
}

/** The parsed specification (as a mission reads it: X refused); its errors as specAutomaton's. */
function specFormula(spec: string): Formula {
  return specError(() => parseLtl(spec));
}

function specAutomaton(spec: string): BuchiAutomaton {
  return specError(() => automatonOf(spec));
}

function specError<T>(work: () => T): T {
  try {
    return work();
  } catch (e) {
    if (e instanceof LtlSyntaxError)
      throw new WitnessError('invalid-spec', `spec: ${e.line}:${e.column}: ${e.detail}`, {
        line: e.line,
        column: e.column,
        path: '$.spec',
      });
    if (e instanceof LtlBudgetError) throw new WitnessError('budget', `spec: ${e.message}`, { path: '$.spec' });
    throw e;
  }
}

/** Graph files larger than this are refused before reading (a 3000-node graph is ~0.4 MB). */
const MAX_GRAPH_BYTES = 64 * 1024 * 1024;

/**
 * The absolute path of a workspace file named by `rel`, confined as the editors' files are
 * (relative, no '..', links may not lead out): refusals have code 'forbidden', a missing file or a
 * folder 'not-found', a file over the graph limit 'too-large'.
 */
export async function workspaceFile(workspace: string, rel: string): Promise<string> {
  const where = { path: '$.path' };
  let found;
  try {
    found = await new Workspace(workspace).file(rel);
  } catch (e) {
    if (!(e instanceof WorkspaceError)) throw e;
    const code = e.code === 'not-a-file' ? 'not-found' : e.code === 'invalid-path' ? 'forbidden' : e.code;
    throw new WitnessError(code, `path: ${e.message}`, where);
  }
  if (found.stats.size > MAX_GRAPH_BYTES)
    throw new WitnessError(
      'too-large',
      `path: "${rel}" is ${found.stats.size} bytes; the limit is ${MAX_GRAPH_BYTES}`,
      where,
    );
  return found.file;
}

/**
 * A labelled graph file of the workspace as a scene (positions from the file, or a deterministic
 * layout so the renderer never lays out), planned exactly when a spec is given.
 */
export async function sceneFromGraphFile(
  workspace: string,
  rel: string,
  spec: string | undefined,
): Promise<{ scene: GraphScene; plan: PlanView | null; automaton: AutomatonView | null }> {
  if (typeof rel !== 'string' || rel === '')
    throw new WitnessError('invalid-params', 'path: expected a non-empty string', { path: '$.path' });
  if (spec !== undefined && typeof spec !== 'string')
    throw new WitnessError('invalid-params', 'spec: expected a string', { path: '$.spec' });
  // A bad spec fails before the file is read: it is the cheaper check.
  const automaton = spec !== undefined && spec.trim() !== '' ? specAutomaton(spec) : null;
  const formula = automaton === null ? null : specFormula(spec!);
  const file = await workspaceFile(workspace, rel);
  const text = await readInputText(file, INPUT.graph);
  let g, name: unknown;
  try {
    const json = parseJson(text, rel);
    name = (json as { name?: unknown } | null)?.name;
    g = labelledGraph(json, rel);
  } catch (e) {
    if (e instanceof InputError) {
      const at = /^(\d+):(\d+)$/.exec(e.path);
      throw new WitnessError(
        'invalid-graph',
        e.message,
        at ? { line: Number(at[1]), column: Number(at[2]), path: e.file } : { path: e.path },
      );
    }
    throw e;
  }
  layoutMissing(g);
  const scene = sceneOf(g, { world: typeof name === 'string' && name !== '' ? name : rel, picture: null });
  if (automaton === null) return { scene, plan: null, automaton: null };
  let result, explanation;
  try {
    const o = { lambda: PLAN_DEFAULTS.lambda, tauSoft: PLAN_DEFAULTS.tauSoft };
    result = plan(g, automaton, { ...o, method: 'sagas', k: Infinity, check: deadline(API_TIME_LIMIT_MS, now) });
    explanation = explainResult(result, g, formula!, { plan: { ...o, check: deadline(API_TIME_LIMIT_MS, now) } });
  } catch (e) {
    if (e instanceof WitnessError && e.code === 'budget') throw new WitnessError('budget', `planning: ${e.message}`);
    throw e;
  }
  return { scene, plan: planView(result, g, explanation), automaton: automatonView(automaton) };
}

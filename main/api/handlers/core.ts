/**
 * Core handlers: version and session info, LTL translation, planning on a labelled graph, job
 * cancellation. Requests that come over a transport were checked against the contract's schemas;
 * these handlers still check the fields they read, as direct callers skip the dispatcher.
 */
import type { ApiError, CoreApi, Ros2Status, LtlTranslateRequest, LtlTranslateResponse, PlanDocument, PlanGraphRequest, PlanGraphResponse } from '../contract.js';
import type { ApiContext } from '../context.js';
import { labelledGraph } from '../../core/plan/labelled-graph.js';
import { DEFAULT_PLAN, METHODS, type Method, PlanBudgetError, deadline, plan } from '../../core/plan/plan.js';
import { planDocument } from '../../core/plan/document.js';
import { InputError } from '../../core/input/json.js';
import { parseLtl } from '../../core/ltl/parser.js';
import { translateFormula } from '../../core/ltl/translate.js';
import { formatAutomaton } from '../../core/ltl/formats.js';
import { LtlBudgetError, LtlSyntaxError } from '../../core/ltl/errors.js';
import { VERSION } from '../../version.js';
import { type LoaderDeps, loadRclnodejs } from '../../backends/ros2/rclnodejs-loader.js';

const FORMATS = new Set(['hoa', 'json', 'dot']);

function invalid(message: string): LtlTranslateResponse {
  return { ok: false, error: { message } };
}

function toApiError(e: unknown): ApiError {
  if (e instanceof LtlSyntaxError) return { message: e.detail, line: e.line, column: e.column };
  if (e instanceof LtlBudgetError || e instanceof PlanBudgetError) return { message: `budget: ${e.message}` };
  if (e instanceof InputError) return { message: `${e.path}: ${e.detail}` };
  throw e;
}

/** Time budget of one API planning request. */
const PLAN_TIME_LIMIT_MS = 30_000;

function planGraph(request: PlanGraphRequest): PlanGraphResponse {
  const r: unknown = request;
  const fail = (message: string): PlanGraphResponse => ({ ok: false, error: { message } });
  if (typeof r !== 'object' || r === null) return fail('request: expected an object { graph, spec, method?, lambda?, k? }');
  const { graph, spec, method, lambda, k } = r as Record<string, unknown>;
  if (typeof spec !== 'string') return fail('request.spec: expected a string');
  if (method !== undefined && !METHODS.includes(method as Method)) return fail(`request.method: expected one of ${METHODS.join(', ')}`);
  if (lambda !== undefined && !(typeof lambda === 'number' && lambda >= 0 && lambda <= 1)) return fail('request.lambda: expected a number in [0, 1]');
  if (k !== undefined && k !== 'all' && !(typeof k === 'number' && Number.isInteger(k) && k >= 1)) return fail("request.k: expected an integer ≥ 1 or 'all'");
  try {
    const formula = parseLtl(spec);
    const g = labelledGraph(graph, 'request.graph');
    const automaton = translateFormula(formula).automaton;
    const kk = k === undefined || k === 'all' ? Infinity : k;
    const o = { ...DEFAULT_PLAN, method: (method ?? 'sagas') as Method, k: kk, lambda: lambda ?? DEFAULT_PLAN.lambda };
    const started = performance.now();
    const result = plan(g, automaton, { ...o, check: deadline(PLAN_TIME_LIMIT_MS, () => performance.now()) });
    const extra = { k: kk === Infinity ? 'all' : kk, lambda: o.lambda, planning_ms: performance.now() - started };
    return { ok: true, plan: planDocument(result, g, extra) as PlanDocument };
  } catch (e) {
    return { ok: false, error: toApiError(e) };
  }
}

/** ROS 2 availability without keeping the module: the status is all the caller asked for. */
async function ros2Status(deps?: LoaderDeps): Promise<Ros2Status> {
  const a = await loadRclnodejs(deps);
  return a.ok
    ? { available: true, distro: a.distro, version: a.version, notes: [...a.notes] }
    : { available: false, problem: a.problem, message: a.message, fix: a.fix };
}

export function coreHandlers(ctx: ApiContext): CoreApi {
  return {
    ltlTranslate(request: LtlTranslateRequest): Promise<LtlTranslateResponse> {
      const r: unknown = request;
      if (typeof r !== 'object' || r === null) return Promise.resolve(invalid('request: expected an object { formula, format? }'));
      const { formula, format } = r as { formula?: unknown; format?: unknown };
      if (typeof formula !== 'string') return Promise.resolve(invalid('request.formula: expected a string'));
      if (format !== undefined && (typeof format !== 'string' || !FORMATS.has(format))) {
        return Promise.resolve(invalid(`request.format: expected one of hoa, json, dot, got ${JSON.stringify(format)}`));
      }
      try {
        const automaton = translateFormula(parseLtl(formula)).automaton;
        return Promise.resolve({ ok: true, output: formatAutomaton(automaton, (format ?? 'hoa') as 'hoa' | 'json' | 'dot') });
      } catch (e) {
        return Promise.resolve({ ok: false, error: toApiError(e) });
      }
    },
    planGraph: (request) => Promise.resolve(planGraph(request)),
    version: () => Promise.resolve(VERSION),
    appInfo: () => Promise.resolve({ version: VERSION, transport: ctx.transport, workspace: ctx.workspace, auditFile: ctx.auditFile }),
    ros2Status: () => ros2Status(ctx.ros2),
    cancelJob: ({ job }) => Promise.resolve({ cancelled: ctx.jobs.cancel(job) }),
  };
}

/**
 * Graph-view handlers: a labelled graph file of the workspace as a scene (positions from the file,
 * or a deterministic layout so the renderer never lays out), planned with the exact planner when
 * a spec is given; the Büchi automaton of a spec. Every failure names what and where.
 */
import { readFile } from 'node:fs/promises';
import type { ApiError, AutomatonView, GraphScene, PlanView, SceneApi } from '../contract.js';
import type { ApiContext } from '../context.js';
import { ApiFailure, fail } from '../failure.js';
import { InputError, parseJson } from '../../core/input/json.js';
import { labelledGraph } from '../../core/plan/labelled-graph.js';
import { DEFAULT_PLAN, PlanBudgetError, deadline, plan } from '../../core/plan/plan.js';
import { parseLtl } from '../../core/ltl/parser.js';
import { translateFormula } from '../../core/ltl/translate.js';
import type { BuchiAutomaton } from '../../core/ltl/automaton.js';
import { LtlBudgetError, LtlSyntaxError } from '../../core/ltl/errors.js';
import { automatonView, planView, sceneOf } from '../../services/ui/scene.js';
import { layoutMissing } from '../../services/ui/scene-layout.js';
import { Workspace, WorkspaceError } from '../../services/editor/workspace.js';

/** Time budget of planning one scene (as planGraph's). */
const PLAN_TIME_LIMIT_MS = 30_000;
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
    throw fail(code, `path: ${e.message}`, where);
  }
  if (found.stats.size > MAX_GRAPH_BYTES) throw fail('too-large', `path: "${rel}" is ${found.stats.size} bytes; the limit is ${MAX_GRAPH_BYTES}`, where);
  return found.file;
}

/** A parsed and translated spec; syntax and budget errors become ApiErrors at `$.spec`. */
function automatonOf(spec: string): BuchiAutomaton {
  try {
    return translateFormula(parseLtl(spec)).automaton;
  } catch (e) {
    throw specFailure(e);
  }
}

function specFailure(e: unknown): unknown {
  if (e instanceof LtlSyntaxError) return fail('invalid-spec', `spec: ${e.line}:${e.column}: ${e.detail}`, { line: e.line, column: e.column, path: '$.spec' });
  if (e instanceof LtlBudgetError) return fail('budget', `spec: ${e.message}`, { path: '$.spec' });
  return e;
}

/** A graph file's InputError as an ApiError: a JSON path, or the line and column of a syntax error. */
function graphFailure(e: InputError): ApiFailure {
  const at = /^(\d+):(\d+)$/.exec(e.path);
  const extra: Omit<ApiError, 'message' | 'code'> = at ? { line: Number(at[1]), column: Number(at[2]), path: e.file } : { path: e.path };
  return fail('invalid-graph', e.message, extra);
}

export function sceneHandlers(ctx: ApiContext): SceneApi {
  return {
    async sceneFromGraph({ path: rel, spec }): Promise<{ scene: GraphScene; plan: PlanView | null; automaton: AutomatonView | null }> {
      if (typeof rel !== 'string' || rel === '') throw fail('invalid-params', 'path: expected a non-empty string', { path: '$.path' });
      if (spec !== undefined && typeof spec !== 'string') throw fail('invalid-params', 'spec: expected a string', { path: '$.spec' });
      // A bad spec fails before the file is read: it is the cheaper check.
      const automaton = spec !== undefined && spec.trim() !== '' ? automatonOf(spec) : null;
      const file = await workspaceFile(ctx.workspace, rel);
      const text = await readFile(file, 'utf8');
      let g;
      let name: unknown;
      try {
        const json = parseJson(text, rel);
        name = (json as { name?: unknown } | null)?.name;
        g = labelledGraph(json, rel);
      } catch (e) {
        if (e instanceof InputError) throw graphFailure(e);
        throw e;
      }
      layoutMissing(g);
      const scene = sceneOf(g, { world: typeof name === 'string' && name !== '' ? name : rel, picture: null });
      if (automaton === null) return { scene, plan: null, automaton: null };
      let result;
      try {
        result = plan(g, automaton, { ...DEFAULT_PLAN, method: 'sagas', k: Infinity, check: deadline(PLAN_TIME_LIMIT_MS, () => performance.now()) });
      } catch (e) {
        if (e instanceof PlanBudgetError) throw fail('budget', `planning: ${e.message}`);
        throw e;
      }
      return { scene, plan: planView(result, g), automaton: automatonView(automaton) };
    },
    automatonView({ spec }): Promise<AutomatonView> {
      // Thrown failures inside the executor become the rejection.
      return new Promise((resolve) => {
        if (typeof spec !== 'string') throw fail('invalid-params', 'spec: expected a string', { path: '$.spec' });
        resolve(automatonView(automatonOf(spec)));
      });
    },
  };
}

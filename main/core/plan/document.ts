/** The plan document of `witness plan --json` and the API (docs/FORMATS.md, "Plans"): a contract. */
import { type PlanResult, drivenSteps } from './plan.js';
import type { SemanticGraph } from './semantic.js';

export function planDocument(r: PlanResult, g: SemanticGraph, extra: Record<string, unknown>): Record<string, unknown> {
  if (r.status === 'infeasible')
    return { status: 'infeasible', method: r.method, reason: r.reason, ...extra, stats: r.stats };
  // The driven path as it is cut (Plan.pathPrefix); the certificate keeps the product lasso.
  const path = drivenSteps(r);
  return {
    status: 'ok',
    method: r.method,
    prefix: path.prefix.map((s) => g.ids[s.node]!),
    suffix: path.cycle.map((s) => g.ids[s.node]!),
    cost: r.cost,
    dwell: r.dwell,
    rotation: r.rotation,
    ...extra,
    stats: r.stats,
    certificate: r.certificate,
  };
}

/**
 * A plan with its document, made once: what a front end shows (and names by the document's sha256)
 * is what a mission executes and records. The document is never rebuilt from the result.
 */
export interface DocumentedPlan {
  readonly result: PlanResult;
  readonly graph: SemanticGraph;
  /**
   * The plan document (a JSON value); its sha256 is of its canonical JSON (services/audit/mission-recorder.ts planSha).
   */
  readonly document: Record<string, unknown>;
  readonly planning_ms: number;
}

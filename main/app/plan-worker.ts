/**
 * Worker thread: the API's planning and specification work that can take seconds (translating an
 * LTL formula within its budget, planning on a labelled graph within its time limit, a graph file's
 * scene and plan, an automaton's view, the LTL and rules editors' checks, a console mission's
 * specification and first plan, a tool loop's rules), one request at a time, for
 * app/plan-threads.ts: never on the event loop that answers the E-STOP.
 */
import { workerData } from 'node:worker_threads';
import { serveLane } from '../platform/workers.js';
import { translateRequest } from './ltl.js';
import { automatonViewOf, planLabelledGraph, sceneFromGraphFile } from './plan.js';
import { ltlCheck, rulesFileCheck } from './editor.js';
import type { PlanThreadApi } from './plan-threads.js';
import { API_NAMES, specOf } from './task-inputs.js';
import { mapPlanOf } from './map-task.js';
import { registerRulesFile } from './act.js';
import { documentedPlan } from '../core/exec/run-skeleton.js';

const { workspace } = workerData as { workspace: string };

const methods: { readonly [M in keyof PlanThreadApi]: (p: Parameters<PlanThreadApi[M]>[0]) => unknown } = {
  ltlTranslate: (r) => translateRequest(r),
  planGraph: (r) => planLabelledGraph(r),
  automatonView: ({ spec }) => automatonViewOf(spec),
  sceneFromGraph: ({ path, spec }) => sceneFromGraphFile(workspace, path, spec),
  ltlCheck: ({ text, world }) => ltlCheck(text, world),
  missionSpec: ({ spec }) => specOf(spec, API_NAMES),
  missionPlanFirst: (r) => {
    const { graph: _graph, ...made } = documentedPlan(r.graph, r.automaton, r.choice, () => performance.now(), {
      formula: r.formula,
    });
    return made;
  },
  missionPlanOnMap: (r) => mapPlanOf(r),
  rulesFileCheck: (r) => rulesFileCheck(r),
  actRules: (r) => registerRulesFile(r),
};

serveLane((method, params) => {
  if (!Object.hasOwn(methods, method)) throw new Error(`the planning worker has no method ${method}`);
  return (methods[method as keyof PlanThreadApi] as (p: unknown) => unknown)(params);
});

/**
 * The API's planning and specification work off the event loop: LTL translation, planning on a
 * labelled graph, a graph file's scene, an automaton's view, the LTL and rules editors' checks and
 * a console mission's specification and first plan, and a tool loop's rules run in one worker
 * thread (app/plan-worker.ts), in order. Each has a budget of its own (translation 10 s, planning
 * 30 s) that ends it with its own error; the lane's time limit is only the backstop for a budget
 * that failed to hold. Closing fails what is pending with 'cancelled'.
 */
import type { Diagnostic, WitnessApi } from '../contract/api.js';
import { WorkerLane } from '../platform/workers.js';
import type { RulesFileCheck } from './editor.js';
import type { Spec } from './task-inputs.js';
import type { ConsolePlanning, FirstPlanRequest } from './console.js';
import type { MapPlanRequest } from './map-task.js';
import type { ActPlanning } from './act-console.js';
import type { RulesFileRequest } from './act.js';
import type { RuleSet } from '../core/loop/rules.js';
import type { DocumentedPlan } from '../core/plan/document.js';
import type { MapPlan } from '../core/exec/waypoint-mission.js';

export type PlanThreadApi = Pick<
  WitnessApi,
  'ltlTranslate' | 'planGraph' | 'automatonView' | 'sceneFromGraph' | 'ltlCheck'
> & {
  /** A console mission's specification parsed and translated (named as the API names it). */
  missionSpec(p: { spec: string }): Promise<Spec>;
  /** A maze mission's first plan (core documentedPlan), without the graph it was asked on. */
  missionPlanFirst(p: FirstPlanRequest): Promise<Omit<DocumentedPlan, 'graph'>>;
  /** A robot mission's plan from its pose (map-task.ts mapPlanOf). */
  missionPlanOnMap(p: MapPlanRequest): Promise<MapPlan>;
  /** act.ts registerRulesFile: a tool loop's rules file registered for its run. */
  actRules(p: RulesFileRequest): Promise<RuleSet>;
  /** editor.ts rulesFileCheck: the rules' formulas translated and checked against the tools. */
  rulesFileCheck(p: RulesFileCheck): Promise<{ diagnostics: Diagnostic[]; tools: string }>;
};

/** Longer than any budget of the work itself (planning's 30 s): only a runaway reaches it. */
const TIME_LIMIT_MS = 120_000;

export class PlanThreads {
  private readonly lane: WorkerLane;

  constructor(session: { readonly workspace: string }) {
    this.lane = new WorkerLane(
      new URL('./plan-worker.js', import.meta.url),
      { workspace: session.workspace },
      {
        name: 'the planning worker',
        resourceLimits: { maxOldGenerationSizeMb: 2048 },
      },
    );
  }

  call<M extends keyof PlanThreadApi>(
    method: M,
    params: Parameters<PlanThreadApi[M]>[0],
  ): ReturnType<PlanThreadApi[M]> {
    return this.lane.request(method, params, { timeLimitMs: TIME_LIMIT_MS }) as ReturnType<PlanThreadApi[M]>;
  }

  /** What the mission console hands to this worker. */
  consolePlanning(): ConsolePlanning {
    return {
      spec: (spec) => this.call('missionSpec', { spec }),
      plan: (r) => this.call('missionPlanFirst', r),
      mapPlan: (r) => this.call('missionPlanOnMap', r),
    };
  }

  /** What the tool loop's console hands to this worker. */
  actPlanning(): ActPlanning {
    return {
      rulesCheck: (r) => this.call('rulesFileCheck', r),
      rules: (r) => this.call('actRules', r),
    };
  }

  close(): Promise<void> {
    return this.lane.close();
  }
}

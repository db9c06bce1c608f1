/**
 * What each method of the mission benchmark runs. The mission methods run as they are; the paired
 * ablations of SAGAS (Appendix H) run SAGAS with one component removed and everything else — tasks,
 * starts, the augmented graph, the frozen executor — unchanged:
 * - sagas-nosoft ("w/o Soft"): no soft-label screening of negative literals on cluster nodes during
 *   product search (τ_soft = ∞, so no cluster node is ever at risk of a label its estimate P̂ gives);
 *   anchors keep their witness-label test, and the runtime monitor still watches every label.
 * - sagas-nosteer ("w/o Steering"): the executor's guard-aware steering term (B.17–B.20) is off;
 *   the product plan and the low-level policy are the same.
 * - sagas-nodelatent (ours): ordinary waypoints are steered toward their node's own latent, the mean
 *   of its member states, as the paper reads literally, instead of ψ of the node's position at rest
 *   (core/exec/executor.ts, ExecParams.targets).
 */
import type { BaselineMethod, BenchMethod, MissionMethod } from '../contract/defaults.js';

export interface MethodRun {
  readonly method: MissionMethod;
  /** Overrides τ_soft of the product search. */
  readonly tauSoft?: number;
  /** false: no runtime steering. */
  readonly steering?: boolean;
  /** What ordinary waypoints steer toward (default: 'rest'). */
  readonly targets?: 'rest' | 'node';
}

/** What a graph method runs (AP-HIQL, which plans without the graph, runs through app/hiql.ts instead). */
export function methodRun(m: Exclude<BenchMethod, BaselineMethod>): MethodRun {
  switch (m) {
    case 'sagas-nosoft':
      return { method: 'sagas', tauSoft: Infinity };
    case 'sagas-nosteer':
      return { method: 'sagas', steering: false };
    case 'sagas-nodelatent':
      return { method: 'sagas', targets: 'node' };
    default:
      return { method: m };
  }
}

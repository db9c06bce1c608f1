/**
 * What the mission console's view parts share: the elements, the model, the graph views, and the render of the model
 * into the buttons and the state line.
 */
import type { MissionEvent, WorldInfo } from '../../../main/contract/api.js';
import type { App } from '../app.js';
import { ApiCallError, errorText } from '../api.js';
import type { AutomatonViewHandle, GraphViewHandle } from '../graph/view.js';
import type { MissionDom } from './mission-form.js';
import {
  changedSincePlan,
  controls,
  errorField,
  PLAN_INPUTS,
  staleText,
  type ConsoleModel,
  type PlanInput,
  type PlanInputs,
} from './model.js';

export interface View {
  readonly a: App;
  readonly d: MissionDom;
  /** The model: replaced by its transitions (model.ts), then rendered. */
  m: ConsoleModel;
  graph: GraphViewHandle | null;
  automaton: AutomatonViewHandle | null;
  /** The driven trail of the run shown. */
  readonly trail: [number, number][];
  readonly worlds: Map<string, WorldInfo>;
  /** Run was pressed: focus goes to Pause once the run is going. */
  focusAfterRun: boolean;
  /** Joins the run `hint` (or the one going now) from its snapshot (mission-run.ts). */
  join(hint: string | null, first?: MissionEvent): void;
}

/** The current values of the inputs a plan is made from. */
export const fieldValues = (v: View): PlanInputs =>
  Object.fromEntries(PLAN_INPUTS.map((k) => [k, v.d.inputs[k].value])) as Record<PlanInput, string>;

/** Draws the model into the buttons, the state line and the stale notice. */
export function render(v: View): void {
  const { d } = v;
  const changed = changedSincePlan(v.m, fieldValues(v));
  d.stale.hidden = changed.length === 0;
  d.stale.textContent = staleText(changed);
  const c = controls(v.m, changed.length > 0);
  const controlFocused = document.activeElement === d.pauseBtn || document.activeElement === d.stopBtn;
  d.state.textContent = c.state.label;
  d.state.dataset.state = c.state.key;
  if (v.m.end !== null && c.state.key === 'finished') d.state.dataset.outcome = v.m.end.outcome;
  else delete d.state.dataset.outcome;
  d.runBtn.disabled = c.run.disabled;
  d.runBtn.title = c.run.title;
  d.planBtn.disabled = c.plan.disabled;
  d.pauseBtn.disabled = c.pause.disabled;
  d.pauseBtn.textContent = c.pause.label;
  d.stopBtn.disabled = c.stop.disabled;
  // After Run, the keyboard operator's next control is Pause (then Stop), not the page.
  if (v.focusAfterRun && !c.pause.disabled) {
    v.focusAfterRun = false;
    d.pauseBtn.focus();
  } else if (controlFocused && c.stop.disabled) (c.run.disabled ? d.planBtn : d.runBtn).focus(); // the run ended
}

/** Shows an error: at its field when it is about one (until that field changes), else under the buttons. */
export function showError(v: View, e: unknown): void {
  const at = errorField(e instanceof ApiCallError ? { code: e.code, path: e.error.path } : {});
  const box = at === 'spec' ? v.d.specError : at === 'regions' ? v.d.regionsError : v.d.errors;
  box.textContent = errorText(e);
}

export function clearErrors(v: View): void {
  v.d.errors.textContent = '';
  v.d.specError.textContent = '';
  v.d.regionsError.textContent = '';
}

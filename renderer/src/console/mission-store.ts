/**
 * What survives a reload of the mission console: the fields from this browser's storage, and the last plan from the
 * workbench (which still holds it, unless it restarted).
 */
import type { MissionPlanResult } from '../../../main/contract/api.js';
import { el } from '../app.js';
import { isActive, readSaved, restoredRunning, withFields, type PlanInputs, type Saved } from './model.js';
import { fieldValues, render, type View } from './mission-view.js';
import { chooseWorldFor } from './mission-worlds.js';

const STORE = 'witness.mission';

/** Saves the fields, and the last plan when one was just made. */
export function rememberFields(v: View, last: Saved['last'] | null): void {
  try {
    const saved = readSaved(localStorage.getItem(STORE));
    const fields = { ...fieldValues(v), replans: v.d.replans.value, speed: v.d.speed.value };
    localStorage.setItem(STORE, JSON.stringify(withFields(saved, fields, last)));
  } catch {
    /* storage unavailable: nothing survives a reload */
  }
}

const restoredNote = (text: string): HTMLElement => el('div', { class: 'muted', id: 'plan-restored' }, text);

/** Puts the saved fields back, then the last plan if the workbench still holds it. */
export function restoreFields(v: View, showPlan: (v: View, r: MissionPlanResult, asked: PlanInputs) => boolean): void {
  let saved: Saved;
  try {
    saved = readSaved(localStorage.getItem(STORE));
  } catch {
    return;
  }
  const { d } = v;
  const f = saved.fields;
  if (f !== undefined) {
    if (f['world'] !== undefined && v.worlds.has(f['world'])) {
      d.world.value = f['world'];
      chooseWorldFor(v, d.world.value, false);
    }
    for (const [k, e] of Object.entries(d.inputs)) {
      const value = f[k];
      if (k === 'world' || value === undefined) continue;
      if (e instanceof HTMLSelectElement && ![...e.options].some((o) => o.value === value)) continue;
      e.value = value;
    }
    if (f['replans'] !== undefined) d.replans.value = f['replans'];
    if (f['speed'] !== undefined) d.speed.value = f['speed'];
  }
  const last = saved.last;
  if (last === undefined) return;
  v.a.api.missionSession({ session: last.session }).then(
    (r) => {
      if (v.m.run !== null && v.m.runSession === r.session) {
        // The run this window joined executes this very plan: it is this window's again, drawn as it runs.
        v.m = restoredRunning(v.m, r, last.inputs);
        d.summary.replaceChildren(
          restoredNote('The last plan, kept by the workbench across the reload; it is running.'),
        );
        render(v);
        return;
      }
      if (v.m.planned === null && !isActive(v.m.runState) && showPlan(v, r, last.inputs))
        d.summary.prepend(restoredNote('The last plan, kept by the workbench across the reload.'));
    },
    () => {
      if (v.m.planned === null && v.m.run === null)
        d.summary.replaceChildren(
          restoredNote("The last plan is gone (the workbench restarted, or a robot's plan ran): plan again."),
        );
    },
  );
}

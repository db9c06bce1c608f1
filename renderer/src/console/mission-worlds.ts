/** The worlds the console offers, and what choosing one sets: its models or map graphs, regions and example spec. */
import type { WorldInfo } from '../../../main/contract/api.js';
import { el } from '../app.js';
import { errorText } from '../api.js';
import { START_PLACEHOLDER } from './mission-form.js';
import { modelsLabel } from './models-label.js';
import { render, type View } from './mission-view.js';

/** `fill`: also load the world's regions and example spec (not when only the models list changed). */
export function chooseWorldFor(v: View, id: string, fill = true): void {
  const { d } = v;
  const w = v.worlds.get(id);
  if (w === undefined) return;
  d.models.replaceChildren(...w.models.map((m) => el('option', { value: m, title: m }, modelsLabel(w.id, m))));
  // A robot plans on a map graph from where it is: no models, no start, no dataset.
  const robot = w.kind === 'robot';
  const keepGraph = d.mapGraph.value;
  d.mapGraph.replaceChildren(...(w.graphs ?? []).map((g) => el('option', { value: g }, g)));
  if (keepGraph !== '' && (w.graphs ?? []).includes(keepGraph)) d.mapGraph.value = keepGraph;
  d.modelsField.hidden = robot;
  d.graphField.hidden = !robot;
  d.trainBtn.hidden = robot;
  d.start.disabled = robot;
  d.steps.disabled = robot;
  d.seed.disabled = robot;
  d.speed.disabled = robot; // a robot drives at its own pace
  d.start.placeholder = robot ? "the robot's pose when you plan" : START_PLACEHOLDER;
  if (robot && w.problem !== undefined) d.errors.textContent = w.problem;
  else if (robot && (w.graphs ?? []).length === 0)
    d.errors.textContent =
      'No map graph in the workspace: make one with `witness graph from-map MAP.yaml --regions R.json --out <workspace>/graphs/NAME.json`';
  if (!fill) return;
  if (w.regionsText !== null) d.regions.value = w.regionsText;
  if (w.exampleSpec !== null && d.spec.value.trim() === '') d.spec.value = w.exampleSpec;
  render(v);
}

export function loadWorlds(v: View, fill: boolean): Promise<void> {
  const { d } = v;
  return v.a.api.listWorlds().then(
    (ws: WorldInfo[]) => {
      const chosen = d.world.value;
      d.world.replaceChildren();
      for (const w of ws) {
        v.worlds.set(w.id, w);
        d.world.append(
          el('option', { value: w.id }, `${w.title}${w.models.length === 0 ? ' (no models: train some)' : ''}`),
        );
      }
      if (chosen !== '') d.world.value = chosen;
      const keep = d.models.value;
      chooseWorldFor(v, d.world.value, fill);
      if (keep !== '' && [...d.models.options].some((o) => o.value === keep)) d.models.value = keep;
    },
    (e: unknown) => {
      d.errors.textContent = errorText(e);
    },
  );
}

/** The node detail pane: what the planner knows about one node, and where it sits on the plan. */
import { el } from '../app.js';
import type { NodeDetail } from './view.js';
import { sortedSoft } from './model.js';

/** Plan steps listed at most (a node on a long dwell could be on hundreds). */
const MAX_STEPS = 20;

function chip(text: string, colour: string | undefined): HTMLElement {
  const c = el('span', { class: 'gd-chip' }, text);
  if (colour !== undefined) c.style.borderColor = colour;
  return c;
}

export function renderDetail(box: HTMLElement, d: NodeDetail | null, colours: ReadonlyMap<string, string>): void {
  box.replaceChildren();
  if (d === null) {
    box.dataset.node = '';
    box.append(el('p', { class: 'gd-empty' }, 'Click a node to see its support, labels and product states.'));
    return;
  }
  const n = d.node;
  box.dataset.node = n.id;
  const rows: [string, string, Node | string][] = [
    ['kind', 'kind', n.kind],
    ['position', 'position', `(${n.x.toFixed(3)}, ${n.y.toFixed(3)}) m`],
    ['support', 'support', n.support > 0 ? `${n.support} dataset state${n.support === 1 ? '' : 's'}` : '—'],
  ];
  const labels = el('span', {});
  if (n.labels.length === 0) labels.append('none');
  for (const l of n.labels) labels.append(chip(l, colours.get(l)));
  rows.push(['labels', 'labels', labels]);
  const soft = sortedSoft(n);
  const softBox = el('span', {});
  if (soft.length === 0) softBox.append('none');
  for (const [p, v] of soft) {
    const bar = el('span', { class: 'gd-bar' });
    bar.style.width = `${Math.round(v * 60)}px`;
    softBox.append(el('span', { class: 'gd-soft', 'data-prop': p }, chip(p, colours.get(p)), bar, v.toFixed(3)));
  }
  rows.push(['soft labels', 'soft', softBox]);
  if (n.anchorOf !== undefined) rows.push(['anchor of', 'anchor', chip(n.anchorOf, colours.get(n.anchorOf))]);
  rows.push([
    'product states',
    'product',
    d.productStates.length === 0 ? 'not on the plan' : d.productStates.map((q) => `(${n.id}, q${q})`).join('  '),
  ]);
  if (d.steps.length > 0) {
    const list = el('ol', { class: 'gd-steps' });
    for (const s of d.steps.slice(0, MAX_STEPS))
      list.append(el('li', { class: `gd-step-${s.part}` }, `${s.part} step ${s.index} → q${s.state}`));
    if (d.steps.length > MAX_STEPS) list.append(el('li', {}, `… and ${d.steps.length - MAX_STEPS} more`));
    rows.push(['on the plan', 'steps', list]);
  }
  const dl = el('dl', {});
  for (const [term, field, value] of rows) dl.append(el('dt', {}, term), el('dd', { 'data-field': field }, value));
  box.append(el('h4', { class: 'gd-id' }, n.id), dl);
}

/**
 * The Graph panel's elements: the open form (graph file, spec, heat map), the mission bar (follow,
 * which graph of the mission, fit, find, back), the graph with its legend, the automaton and the
 * node detail. Built once; panel.ts wires them.
 */
import { el } from '../app.js';

function openForm() {
  const pathIn = el('input', {
    id: 'graph-path',
    list: 'graph-files',
    placeholder: 'graphs/warehouse.json',
    size: '28',
    'aria-label': 'Graph file (in the workspace)',
    required: '',
  });
  const files = el('datalist', { id: 'graph-files' });
  const specIn = el('input', {
    id: 'graph-spec',
    placeholder: 'G F a & G F b & G !c',
    size: '32',
    'aria-label': 'LTL specification (optional)',
  });
  const open = el('button', { id: 'graph-open', type: 'submit' }, 'Open');
  const cancel = el('button', { id: 'graph-cancel', type: 'button', hidden: '' }, 'Cancel');
  const heat = el(
    'select',
    { id: 'graph-heat', 'aria-label': 'Heat map proposition' },
    el('option', { value: '' }, 'none'),
  );
  const status = el('span', { class: 'gp-status', id: 'graph-status', role: 'status' });
  const form = el(
    'form',
    { class: 'gp-bar' },
    el('label', {}, 'Graph ', pathIn),
    files,
    el('label', {}, 'Spec ', specIn),
    open,
    cancel,
    el('label', {}, 'Heat map ', heat),
    status,
  );
  return { pathIn, files, specIn, open, cancel, heat, status, form };
}

function missionBar() {
  // The mission: follow it, or look at its latent or product graph; fit, find a node.
  const follow = el('input', { id: 'graph-follow', type: 'checkbox', checked: '' });
  const missionView = el(
    'select',
    { id: 'graph-mission-view', 'aria-label': 'Which graph of the mission', disabled: '' },
    el('option', { value: 'console' }, 'mission (live)'),
    el('option', { value: 'latent' }, 'latent graph'),
    el('option', { value: 'product' }, 'product graph'),
  );
  const fitBtn = el('button', { id: 'graph-fit', type: 'button', title: 'Fit the whole graph in view' }, 'Fit');
  const search = el('input', {
    id: 'graph-search',
    type: 'search',
    placeholder: 'node id, e.g. c29',
    size: '16',
    'aria-label': 'Find a node by id',
  });
  const find = el('button', { id: 'graph-find', type: 'submit' }, 'Find');
  const back = el('button', { id: 'graph-back', type: 'button', hidden: '' });
  const followText = el('span', { class: 'gp-follow', id: 'graph-follow-status', role: 'status' });
  const findForm = el(
    'form',
    { class: 'gp-bar gp-bar2' },
    el(
      'label',
      { title: 'Show what the mission console plans and runs, as it happens' },
      follow,
      ' Follow the mission',
    ),
    missionView,
    fitBtn,
    el('label', {}, 'Find ', search),
    find,
    back,
    followText,
  );
  return { follow, missionView, fitBtn, search, find, back, followText, findForm };
}

/** Every element of the Graph panel, appended to `root`. */
export function graphDom(root: HTMLElement) {
  const { form, ...of } = openForm();
  const { findForm, ...mb } = missionBar();
  const error = el('div', { class: 'gp-error error', id: 'graph-error', role: 'alert', hidden: '' });
  const graphBox = el('div', { class: 'gp-graph', id: 'graph-view' });
  const legend = el('div', { class: 'gp-legend', id: 'graph-legend' });
  const autoBox = el('div', { class: 'gp-automaton', id: 'automaton-view' });
  const formula = el('div', { class: 'gp-formula', id: 'automaton-formula' });
  const detail = el('div', { class: 'gp-detail', id: 'graph-detail' });
  root.append(
    el(
      'div',
      { class: 'gp' },
      form,
      findForm,
      error,
      el(
        'div',
        { class: 'gp-main' },
        el('div', { class: 'gp-graph-wrap' }, graphBox, legend),
        el(
          'aside',
          { class: 'gp-side' },
          el('h3', {}, 'Büchi automaton'),
          formula,
          autoBox,
          el('h3', {}, 'Node'),
          detail,
        ),
      ),
    ),
  );

  return { ...of, ...mb, form, findForm, error, graphBox, legend, autoBox, formula, detail };
}

export type GraphDom = ReturnType<typeof graphDom>;

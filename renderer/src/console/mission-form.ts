/**
 * The mission console's elements: the inputs a plan is made from, the buttons, the summary, the view bar and the
 * side panel, and the layout that places them. Built once; panel.ts renders the model into them.
 */
import { MISSION_DEFAULTS, PLAN_METHODS } from '../../../main/contract/defaults.js';
import { type App, el } from '../app.js';
import { foxgloveSwitch } from './foxglove.js';
import { createLivePlots, type LivePlots } from './plots.js';
import { createLogPanel, type LogPanel } from './log.js';
import type { PlanInput } from './model.js';

const field = (label: string, input: HTMLElement, ...after: HTMLElement[]): HTMLElement =>
  el('label', { class: 'field' }, el('span', {}, label), input, ...after);

export const START_PLACEHOLDER = 'x,y (m) — default: a free cell from the seed';

/** The inputs a plan is made from (PLAN_INPUTS), by their stale-notice names. */
type PlanFields = Readonly<Record<PlanInput, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>>;

export interface MissionDom {
  readonly world: HTMLSelectElement;
  readonly models: HTMLSelectElement;
  readonly mapGraph: HTMLSelectElement;
  readonly spec: HTMLTextAreaElement;
  readonly regions: HTMLTextAreaElement;
  readonly start: HTMLInputElement;
  readonly steps: HTMLInputElement;
  readonly seed: HTMLInputElement;
  readonly method: HTMLSelectElement;
  readonly replans: HTMLInputElement;
  readonly speed: HTMLInputElement;
  readonly inputs: PlanFields;
  readonly trainBtn: HTMLButtonElement;
  readonly planBtn: HTMLButtonElement;
  readonly runBtn: HTMLButtonElement;
  readonly pauseBtn: HTMLButtonElement;
  readonly stopBtn: HTMLButtonElement;
  readonly summary: HTMLElement;
  /** Errors about the plan or run as a whole (under the buttons). */
  readonly errors: HTMLElement;
  /** Errors about one input, shown at it (until the input changes). */
  readonly specError: HTMLElement;
  readonly regionsError: HTMLElement;
  readonly stale: HTMLElement;
  readonly state: HTMLElement;
  readonly live: HTMLElement;
  readonly heat: HTMLSelectElement;
  readonly specFile: HTMLSelectElement;
  readonly regionsFile: HTMLSelectElement;
  readonly modelsField: HTMLElement;
  readonly graphField: HTMLElement;
  readonly graphRoot: HTMLElement;
  /** The legend of what the world view draws for an infeasible plan's explanation (hidden when nothing). */
  readonly whyLegend: HTMLElement;
  readonly autoRoot: HTMLElement;
  readonly logPanel: LogPanel;
  readonly plots: LivePlots;
}

const numberInput = (id: string, value: number, attrs: Record<string, string> = {}): HTMLInputElement =>
  el('input', { id, type: 'number', min: '0', value: String(value), ...attrs });

/** The inputs and buttons. */
export function missionDom(): MissionDom {
  const world = el('select', { id: 'world' });
  const models = el('select', { id: 'models' });
  const mapGraph = el('select', {
    id: 'map-graph',
    title: "the robot's map graph (workspace graphs/, from `witness graph from-map`)",
  });
  const spec = el('textarea', { id: 'spec', rows: '3', spellcheck: 'false', 'aria-describedby': 'spec-error' });
  const regions = el('textarea', {
    id: 'regions',
    rows: '6',
    spellcheck: 'false',
    'aria-describedby': 'regions-error',
  });
  const start = el('input', { id: 'start', placeholder: START_PLACEHOLDER, value: '' });
  const steps = numberInput('dataset-steps', MISSION_DEFAULTS.consoleDatasetSteps, { min: '1000', step: '1000' });
  const seed = numberInput('seed', MISSION_DEFAULTS.seed);
  const method = el('select', { id: 'method' }, ...PLAN_METHODS.map((m) => el('option', { value: m }, m)));
  const replans = numberInput('replans', MISSION_DEFAULTS.replans, { max: '100' });
  const speed = numberInput('speed', MISSION_DEFAULTS.consoleSpeed, {
    title: 'simulated steps per second; 0 = as fast as possible',
  });
  const inputs: PlanFields = {
    world,
    models,
    'map graph': mapGraph,
    spec,
    regions,
    start,
    'dataset steps': steps,
    seed,
    method,
  };
  const modelsField = field('Models (ψ, π_low)', models);
  const graphField = field('Map graph', mapGraph);
  graphField.hidden = true;
  return {
    world,
    models,
    mapGraph,
    spec,
    regions,
    start,
    steps,
    seed,
    method,
    replans,
    speed,
    inputs,
    trainBtn: el('button', { id: 'train-open', title: 'Train a model bundle for this world' }, 'Train models…'),
    planBtn: el('button', { id: 'plan', class: 'primary' }, 'Plan'),
    runBtn: el('button', { id: 'run', disabled: '' }, 'Run'),
    pauseBtn: el('button', { id: 'pause', disabled: '' }, 'Pause'),
    stopBtn: el('button', { id: 'stop', disabled: '' }, 'Stop'),
    summary: el('div', { id: 'plan-summary', class: 'summary' }, 'No plan yet.'),
    errors: el('div', { id: 'mission-error', class: 'error', role: 'alert' }),
    specError: el('div', { id: 'spec-error', class: 'error field-error', role: 'alert' }),
    regionsError: el('div', { id: 'regions-error', class: 'error field-error', role: 'alert' }),
    stale: el('div', { id: 'plan-stale', class: 'stale', role: 'status', hidden: '' }),
    state: el('div', { id: 'run-state', class: 'run-state' }, 'idle'),
    live: el('div', { id: 'run-live', class: 'live' }),
    heat: el('select', { id: 'mission-heat' }, el('option', { value: '' }, 'no heat map')),
    specFile: el('select', { id: 'spec-file', title: 'load a specification from the workspace' }),
    regionsFile: el('select', { id: 'regions-file', title: 'load regions from the workspace' }),
    modelsField,
    graphField,
    graphRoot: el('div', { id: 'mission-graph', class: 'graph' }),
    whyLegend: el('ul', { id: 'why-legend', class: 'why-legend', hidden: '' }),
    autoRoot: el('div', { id: 'mission-automaton', class: 'automaton' }),
    logPanel: createLogPanel(),
    plots: createLivePlots(),
  };
}

/** Places the elements: the controls on the left, the maze and plots in the middle, the automaton and log aside. */
export function missionLayout(d: MissionDom, a: App): HTMLElement {
  return el(
    'div',
    { class: 'console' },
    el(
      'aside',
      { class: 'controls' },
      el('div', { class: 'row' }, field('World', d.world), d.modelsField, d.graphField),
      el('div', { class: 'buttons' }, d.trainBtn),
      field('Specification (LTL)', d.spec, d.specError),
      d.specFile,
      field('Regions (JSON)', d.regions, d.regionsError),
      d.regionsFile,
      el('div', { class: 'row' }, field('Start', d.start), field('Seed', d.seed)),
      el('div', { class: 'row' }, field('Dataset steps', d.steps), field('Method', d.method)),
      el('div', { class: 'row' }, field('Replans R', d.replans), field('Speed (steps/s)', d.speed)),
      el('div', { class: 'buttons' }, d.planBtn, d.runBtn, d.pauseBtn, d.stopBtn),
      d.errors,
      foxgloveSwitch(a).element,
      d.summary,
    ),
    el(
      'section',
      { class: 'view' },
      el('div', { class: 'view-bar' }, d.state, d.live, el('span', { class: 'spacer' }), d.heat),
      d.graphRoot,
      d.whyLegend,
      d.plots.element,
    ),
    el(
      'aside',
      { class: 'side' },
      el('h3', {}, 'Büchi automaton — monitor state'),
      d.autoRoot,
      el('h3', {}, 'Events'),
      d.logPanel.element,
    ),
  );
}

/** The heat-map choices for a scene's propositions. */
export function fillHeat(heat: HTMLSelectElement, propositions: readonly string[]): void {
  heat.replaceChildren(
    el('option', { value: '' }, 'no heat map'),
    ...propositions.map((p) => el('option', { value: p }, `heat: ${p}`)),
  );
}

/** A plan's sha256 line: short, the full value in the title (and in data-sha, for tests and tools). */
export const shaLine = (id: string, what: string, sha: string, short: string): HTMLElement =>
  el(
    'div',
    {
      class: 'muted plan-sha',
      id,
      'data-sha': sha,
      title: `sha256 ${sha}: the plan document as served; the audit log's plan event records the same`,
    },
    `${what}, sha256 ${short}`,
  );

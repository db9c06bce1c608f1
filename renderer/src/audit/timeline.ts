/**
 * The timeline: scrub a run (steps for missions, seconds for the tool-use loop) with its failures,
 * replans and end marked, play it back, and see the robot, its trail, the plan in force and the
 * monitor's states on the graph views. Everything a scrub shows comes from the replay data already
 * here; only "which event is nearest" asks main, at most a few times a second.
 */
import type { AuditReplay } from '../../../main/contract/api.js';
import { el } from '../app.js';
import { rulesAt } from './model.js';
import { type AutomatonViewHandle, type GraphViewHandle, createAutomatonView, createGraphView } from '../graph/view.js';

/** A playback takes this long from start to end, whatever the run's length. */
const PLAY_MS = 15_000;
/** Trail points drawn at most (the graph view draws every point it is given). */
const TRAIL_POINTS = 2000;

export interface Timeline {
  load(replay: AuditReplay | null): void;
  /** Moves the cursor (from a table selection) without asking for the nearest event. */
  show(at: number): void;
  shown(): void;
  readonly value: number;
}

/** The last index i with xs[i] <= v (xs ascending), or -1. */
function lastAtOrBefore(xs: readonly number[], v: number): number {
  let lo = 0,
    hi = xs.length - 1,
    ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= v) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

/** What the replay shows at position `v`: the plan in force, the robot, its trail, the monitor's states in words. */
function replayFrame(
  r: AuditReplay,
  v: number,
): {
  plan: number;
  robot: { x: number; y: number } | null;
  trail: [number, number][];
  states: number[];
  monitor: string;
} {
  const plan = lastAtOrBefore(
    r.plans.map((x) => x.at),
    v,
  );
  const i = lastAtOrBefore(r.positions.at, v);
  let robot: { x: number; y: number } | null = null;
  const trail: [number, number][] = [];
  if (i >= 0) {
    robot = { x: r.positions.x[i]!, y: r.positions.y[i]! };
    const stride = Math.max(1, Math.ceil((i + 1) / TRAIL_POINTS));
    for (let k = 0; k <= i; k += stride) trail.push([r.positions.x[k]!, r.positions.y[k]!]);
    if (i % stride !== 0) trail.push([robot.x, robot.y]);
  }
  const m = lastAtOrBefore(
    r.monitor.map((x) => x.at),
    v,
  );
  const at = m >= 0 ? r.monitor[m]! : null;
  const states = at !== null ? at.states : (r.automaton?.states.filter((s) => s.initial).map((s) => s.id) ?? []);
  const monitor =
    r.automaton === null
      ? ''
      : `monitor {${states.join(', ')}}${at !== null ? `${at.viable ? '' : ' — no accepting continuation'}${at.accepting ? ' (accepting)' : ''}, labels {${at.labels.join(', ')}}` : ' (initial)'}`;
  return { plan, robot, trail, states, monitor };
}

const MARK_COLOURS: Record<string, string> = {
  failure_record: '#c92a2a',
  replan: '#e8590c',
  escalation: '#5f3dc4',
  run_end: '#2b8a3e',
  operator_decision: '#1971c2',
  rule_verdict: '#862e9c',
};

/** The play button, the scrubber over its marks, the position and monitor texts; the replay's views beside. */
function timelineDom(root: HTMLElement, side: HTMLElement) {
  const play = el('button', { id: 'audit-play', title: 'Play the run back (space)', disabled: '' }, '▶ Play');
  const range = el('input', {
    id: 'audit-scrub',
    type: 'range',
    min: '0',
    max: '0',
    step: '1',
    value: '0',
    disabled: '',
    'aria-label': 'scrub the run',
  });
  const marks = el('canvas', { id: 'audit-marks', height: '14' });
  const label = el('span', { id: 'audit-at', class: 'muted' }, 'no run');
  const monitorText = el('span', { id: 'audit-monitor', class: 'muted' });
  const rulesText = el('span', { id: 'audit-rules', class: 'muted' });
  root.append(
    el('div', { class: 'tl-row' }, play, el('div', { class: 'tl-track' }, marks, range), label),
    el('div', { class: 'tl-row' }, monitorText),
    el('div', { class: 'tl-row' }, rulesText),
  );

  const graphRoot = el('div', { class: 'audit-graph', id: 'audit-graph' });
  const autoRoot = el('div', { class: 'audit-automaton', id: 'audit-automaton' });
  const notes = el('p', { class: 'muted audit-notes', id: 'audit-replay-notes' });
  side.append(graphRoot, autoRoot, notes);
  return { play, range, marks, label, monitorText, rulesText, graphRoot, autoRoot, notes };
}

/** The replay's marks (failures, replans, escalations, the end) on the canvas over the scrubber. */
function paintMarks(marks: HTMLCanvasElement, replay: AuditReplay | null, fmt: (v: number) => string): void {
  const w = marks.clientWidth || 600;
  marks.width = w;
  const g = marks.getContext('2d');
  if (g === null) return;
  g.clearRect(0, 0, w, marks.height);
  if (replay === null || replay.max <= replay.min) return;
  // The rules' refusals last, over the upper half: a refusal and its replan share a moment and would hide each other.
  const rule = (k: string): number => (k === 'rule_verdict' ? 1 : 0);
  for (const mk of [...replay.marks].sort((a, b) => rule(a.kind) - rule(b.kind))) {
    g.fillStyle = MARK_COLOURS[mk.kind] ?? '#868e96';
    const x = ((mk.at - replay.min) / (replay.max - replay.min)) * (w - 12) + 6;
    g.fillRect(Math.round(x) - 1, 0, 3, mk.kind === 'rule_verdict' ? marks.height / 2 : marks.height);
  }
  marks.title = replay.marks.map((mk) => `${fmt(mk.at)}: ${mk.label}`).join('\n');
}

/** The replay's graph and automaton views; they refit when their box changes size (the window, the layout). */
function replayViews(graphRoot: HTMLElement, autoRoot: HTMLElement): [GraphViewHandle, AutomatonViewHandle] {
  const graph = createGraphView(graphRoot);
  const automaton = createAutomatonView(autoRoot);
  new ResizeObserver(() => {
    graph.resize();
    automaton.resize();
  }).observe(graphRoot);
  return [graph, automaton];
}

/** The rules' verdicts at a position (a tool loop run with a rules file), or nothing. */
function showRules(line: HTMLElement, replay: AuditReplay | null, v: number): void {
  const r = replay === null ? null : rulesAt(replay, v);
  line.textContent = r?.text ?? '';
  line.dataset.rule = r?.status ?? '';
}

/** A timeline position in words: seconds on a time axis, a step otherwise. */
const fmtAt = (replay: AuditReplay | null, v: number): string =>
  replay?.axis === 'time' ? `${(v / 1000).toFixed(2)} s` : `step ${Math.round(v)}`;

export function createTimeline(
  root: HTMLElement,
  side: HTMLElement,
  onScrub: (at: number, axis: 'step' | 'time') => void,
): Timeline {
  const { play, range, marks, label, monitorText, rulesText, graphRoot, autoRoot, notes } = timelineDom(root, side);
  let graph: GraphViewHandle | null = null;
  let automaton: AutomatonViewHandle | null = null;

  let replay: AuditReplay | null = null;
  let planShown = -1;
  let playing = 0;
  let lastTick = 0;
  /** The playback position: kept apart from the slider, which rounds to whole steps. */
  let playAt = 0;

  const fmt = (v: number): string => fmtAt(replay, v);

  const apply = (v: number): void => {
    if (replay === null) return;
    const f = replayFrame(replay, v);
    label.textContent = `${fmt(v)} / ${fmt(replay.max).replace(/^step /, '')}`;
    side.dataset.at = String(Math.round(v));
    if (f.plan !== planShown) {
      planShown = f.plan;
      const plan = f.plan >= 0 ? replay.plans[f.plan]!.plan : null;
      graph?.setPlan(plan);
      side.dataset.plan = String(f.plan);
      side.dataset.planStart = plan?.prefix[0] ?? '';
    }
    graph?.setRobot(f.robot);
    graph?.setTrail(f.trail);
    side.dataset.robot = f.robot === null ? '' : `${f.robot.x.toFixed(2)},${f.robot.y.toFixed(2)}`;
    automaton?.setActive(f.states);
    side.dataset.monitor = f.states.join(',');
    monitorText.textContent = f.monitor;
    showRules(rulesText, replay, v);
  };

  const drawMarks = (): void => paintMarks(marks, replay, fmt);

  const stop = (): void => {
    if (playing !== 0) cancelAnimationFrame(playing);
    playing = 0;
    play.textContent = '▶ Play';
    side.dataset.playing = 'false';
  };
  let lastAsk = 0;
  const tick = (now: number): void => {
    if (replay === null) return stop();
    const span = replay.max - replay.min;
    const v = Math.min(replay.max, playAt + (span * (now - lastTick)) / PLAY_MS);
    playAt = v;
    lastTick = now;
    range.value = String(v);
    apply(v);
    if (now - lastAsk > 150 || v >= replay.max) {
      lastAsk = now;
      onScrub(v, replay.axis);
    }
    if (v >= replay.max) return stop();
    playing = requestAnimationFrame(tick);
  };
  play.addEventListener('click', () => {
    if (playing !== 0 || replay === null) return stop();
    if (Number(range.value) >= replay.max) range.value = String(replay.min);
    playAt = Number(range.value);
    play.textContent = '❚❚ Pause';
    side.dataset.playing = 'true';
    lastTick = performance.now();
    playing = requestAnimationFrame(tick);
  });
  range.addEventListener('input', () => {
    const v = Number(range.value);
    apply(v);
    if (replay !== null) onScrub(v, replay.axis);
  });

  return {
    load(r) {
      stop();
      replay = r;
      planShown = -2;
      // Created on first use: the view measures its container, which must be laid out by then.
      if (graph === null && r !== null) [graph, automaton] = replayViews(graphRoot, autoRoot);
      graph?.setScene(r?.scene ?? null);
      automaton?.setAutomaton(r?.automaton ?? null);
      notes.textContent = r?.notes.join(' ') ?? '';
      const on = r !== null && r.max > r.min;
      range.disabled = !on;
      play.disabled = !on;
      range.min = String(r?.min ?? 0);
      range.max = String(r?.max ?? 0);
      range.step = r?.axis === 'time' ? 'any' : '1';
      range.value = String(r?.min ?? 0);
      side.dataset.axis = r?.axis ?? '';
      if (r === null) {
        label.textContent = 'no run';
        monitorText.textContent = '';
        showRules(rulesText, null, 0);
        delete side.dataset.robot;
      } else apply(r.min);
      drawMarks();
    },
    show(at) {
      if (replay === null) return;
      const v = Math.max(replay.min, Math.min(replay.max, at));
      range.value = String(v);
      apply(v);
    },
    shown() {
      graph?.resize();
      automaton?.resize();
      drawMarks();
    },
    get value() {
      return Number(range.value);
    },
  };
}

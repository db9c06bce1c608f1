/**
 * The console's live plots (uPlot): position, speed, distance to the next waypoint and the monitor's
 * automaton state against the mission step, with the run's progress (waypoint k of n, suffix
 * traversals, elapsed time) above them. Ticks are buffered (plots-model.ts) and the charts redrawn
 * at most every REDRAW_MS in an animation frame: a redraw per tick would take much of the main thread
 * under software rendering (docs/BENCHMARKS.md measures it), and a plot read by eye loses nothing at
 * that rate while the robot marker still moves with every tick.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './plots.css';
import type { MissionLiveTick } from '../../../main/contract/api.js';
import { el } from '../app.js';
import { TickSeries, clock, progressText, type SeriesName } from './plots-model.js';

/** A tick as the run sends it, or as a snapshot kept it (a window joining a run). */
type Tick = MissionLiveTick;

export interface LivePlots {
  /** The progress line and the plot strip. */
  readonly progress: HTMLElement;
  readonly element: HTMLElement;
  /** A new run: empty plots. */
  reset(): void;
  tick(m: Tick): void;
  /** The run ended after `steps` steps: the progress line says so. */
  end(steps: number, outcome: string): void;
  resize(): void;
}

interface ChartSpec {
  id: string;
  title: string;
  unit: string;
  series: { name: SeriesName; label: string; stroke: string; stepped?: boolean; dash?: number[] }[];
  /** Integer ticks (automaton states). */
  integer?: boolean;
}

const CHARTS: ChartSpec[] = [
  {
    id: 'plot-position',
    title: 'Position',
    unit: 'm',
    series: [
      { name: 'x', label: 'x', stroke: '#1c7ed6' },
      { name: 'y', label: 'y', stroke: '#e8590c' },
    ],
  },
  { id: 'plot-speed', title: 'Speed', unit: 'm/s', series: [{ name: 'speed', label: 'speed', stroke: '#2f9e44' }] },
  {
    id: 'plot-distance',
    title: 'Distance to waypoint',
    unit: 'm',
    series: [{ name: 'distance', label: 'distance', stroke: '#7048e8' }],
  },
  {
    id: 'plot-automaton',
    title: 'Automaton state',
    unit: 'q',
    integer: true,
    series: [
      { name: 'qmin', label: 'lowest q', stroke: '#c2255c', stepped: true },
      { name: 'qmax', label: 'highest q', stroke: '#868e96', stepped: true, dash: [4, 3] },
    ],
  },
];

const HEIGHT = 120;
/** Least time between two redraws of the charts. */
const REDRAW_MS = 50;

/** Narrowest a chart may be and keep its title whole; the gap between charts (plots.css). */
const MIN_WIDTH = 160;
const GAP = 8;

/**
 * Each chart's size in a strip `w` px wide: side by side when they fit at MIN_WIDTH, else in rows (lower, so two rows
 * leave the maze its room); never wider than the strip.
 */
function chartSize(w: number, n: number): { width: number; height: number } {
  const cols = Math.max(1, Math.min(n, Math.floor((w + GAP) / (MIN_WIDTH + GAP))));
  return {
    width: Math.max(1, Math.floor((w - GAP * (cols - 1)) / cols)),
    height: cols < n ? Math.round(HEIGHT * 0.75) : HEIGHT,
  };
}

interface Chart {
  readonly spec: ChartSpec;
  readonly root: HTMLElement;
  readonly plot: uPlot;
}

/** One chart of the strip: its root (with data-points, data-last) and its uPlot. */
function createChart(spec: ChartSpec, strip: HTMLElement, stepped: uPlot.Series.PathBuilder | undefined): Chart {
  const root = el('div', { id: spec.id, class: 'plot', 'data-points': '0' });
  strip.append(root);
  const plot = new uPlot(
    {
      width: 300,
      height: HEIGHT,
      title: `${spec.title} (${spec.unit})`,
      scales: {
        x: { time: false },
        ...(spec.integer
          ? { y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(1, (max ?? 0) + 0.5)] } }
          : {}),
      },
      legend: { show: true, live: false },
      cursor: { drag: { x: false, y: false } },
      axes: [
        { size: 28, label: undefined },
        { size: 44, ...(spec.integer ? { incrs: [1, 2, 5, 10] } : {}) },
      ],
      series: [
        { label: 'step' },
        ...spec.series.map((s) => ({
          label: s.label,
          stroke: s.stroke,
          width: 1.5,
          spanGaps: false,
          points: { show: false },
          ...(s.dash !== undefined ? { dash: s.dash } : {}),
          ...(s.stepped === true && stepped !== undefined ? { paths: stepped } : {}),
        })),
      ],
    },
    [[], ...spec.series.map(() => [])],
    root,
  );
  return { spec, root, plot };
}

export function createLivePlots(): LivePlots {
  const data = new TickSeries();
  const show = el('input', { id: 'plots-show', type: 'checkbox', checked: '' });
  const progress = el('div', { id: 'mission-progress', class: 'progress', 'aria-live': 'off' }, 'no run yet');
  const strip = el('div', { id: 'mission-plots', class: 'plots', 'data-points': '0' });
  const element = el(
    'div',
    { class: 'plots-box' },
    el(
      'div',
      { class: 'plots-bar' },
      el(
        'label',
        { class: 'plots-toggle', title: 'Hide the plots to give the graph view the room' },
        show,
        ' live plots',
      ),
      progress,
    ),
    strip,
  );
  const stepped = uPlot.paths.stepped?.({ align: 1 });
  const charts = CHARTS.map((spec) => createChart(spec, strip, stepped));

  let frame = 0;
  let drawn = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const draw = (now: number): void => {
    frame = 0;
    if (!show.checked) return;
    drawn = now;
    const t0 = performance.now();
    const t = data.columns.t as number[];
    for (const c of charts) {
      // batch: drawn now, not in a microtask, so the time below is the drawing's.
      c.plot.batch(() => c.plot.setData([t, ...c.spec.series.map((s) => data.columns[s.name])] as uPlot.AlignedData));
      c.root.dataset.points = String(t.length);
      const last = data.last();
      c.root.dataset.last =
        last === null
          ? ''
          : c.spec.series.map((s) => (last[s.name] === null ? 'null' : String(last[s.name]))).join(',');
    }
    strip.dataset.points = String(t.length);
    strip.dataset.received = String(data.received);
    strip.dataset.lastT = String(t[t.length - 1] ?? '');
    // What the redraws cost (the console benchmark reads it): their count and total time.
    strip.dataset.draws = String(Number(strip.dataset.draws ?? 0) + 1);
    strip.dataset.drawMs = (Number(strip.dataset.drawMs ?? 0) + performance.now() - t0).toFixed(3);
  };
  const schedule = (): void => {
    if (frame !== 0 || timer !== null || !show.checked) return;
    const wait = drawn + REDRAW_MS - performance.now();
    if (wait <= 0) frame = requestAnimationFrame(draw);
    else
      timer = setTimeout(() => {
        timer = null;
        schedule();
      }, wait);
  };
  const resize = (): void => {
    if (!show.checked) return;
    const w = strip.clientWidth;
    if (w === 0) return;
    const { width, height } = chartSize(w, charts.length);
    for (const c of charts) c.plot.setSize({ width, height });
  };
  new ResizeObserver(resize).observe(strip);
  show.addEventListener('change', () => {
    strip.hidden = !show.checked;
    element.classList.toggle('collapsed', !show.checked);
    if (show.checked) {
      resize();
      schedule();
    }
  });

  return {
    progress,
    element,
    reset() {
      data.reset();
      progress.textContent = 'starting…';
      for (const k of Object.keys(progress.dataset)) delete progress.dataset[k];
      schedule();
    },
    tick(m) {
      data.push({ t: m.t, x: m.x, y: m.y, speed_mps: m.speed_mps, distance_m: m.distance_m, states: m.states });
      const p = m.progress;
      progress.textContent = progressText(p, m.elapsed_s);
      Object.assign(progress.dataset, {
        stream: p.stream,
        index: String(p.index + 1),
        length: String(p.length),
        traversals: String(p.traversals),
        rounds: String(p.rounds),
        elapsed: clock(m.elapsed_s),
      });
      schedule();
    },
    end(steps, outcome) {
      const last = progress.dataset.elapsed;
      progress.textContent = `${outcome} after ${steps} steps${last !== undefined ? ` · elapsed ${last}` : ''}`;
      progress.dataset.ended = 'true';
      schedule();
    },
    resize,
  };
}

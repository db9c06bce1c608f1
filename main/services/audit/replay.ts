/**
 * A run replayed from its audit log alone: the plans (from their blobs), the robot's positions (the
 * world-state estimates of evidence events), the monitor's state sets, the tool loop's rule verdicts
 * and the marks of failures, replans, refusals and the end, on one axis (steps for missions, time for
 * the tool-use loop).
 *
 * The log does not record where the plan's graph nodes are. A node is placed where the robot was
 * when it reached it (checkpoint and waypoint events), an anchor not reached at the centre of its
 * proposition's region, the start at the run's start (a replan's start where the robot was then),
 * and the rest interpolated along the plan between placed neighbours; the notes say how many of
 * each, so nobody mistakes the picture for the planner's graph.
 */
import type Database from 'better-sqlite3';
import type { AuditReplay, AuditRunSummary, GraphScene, PlanView, SceneNode } from '../../contract/api.js';
import { MAZES, type MazeLayout, mazeBounds } from '../../core/world/maze.js';
import { type Region, parseRegions } from '../../core/world/regions.js';
import { parseLtl } from '../../core/ltl/parser.js';
import { translateFormula } from '../../core/ltl/translate.js';
import { automatonView, mazePicture } from '../ui/scene.js';
import { mazePath, spreadAlong } from './replay-path.js';
import { regionColours } from '../../core/world/svg.js';
import { getBlob, runStartBody } from './forensics.js';
import { planOf } from './browse.js';
import { EVENT_COLUMNS, type EventRow, bodyOf, eventOf, jsonOr } from './rows.js';
import { num, obj, text } from './body.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => text(x)) : []);
const first = (...vs: unknown[]): string => text(vs.find((v) => v !== undefined && v !== null));

const DEFAULT_MAX_POSITIONS = 20_000;

export interface ReplayOptions {
  /**
   * Only what places the plans' nodes (the Foxglove exports and the live server): the scene and the
   * plans, the robot's last position only, no monitor events, marks or automaton — so memory does
   * not grow with the run.
   */
  readonly placementOnly?: boolean;
}

/** What the replay gathers from the run's events, in order. */
interface Gathered {
  readonly placementOnly: boolean;
  readonly pos: { seq: number[]; at: number[]; x: number[]; y: number[] };
  readonly plans: AuditReplay['plans'];
  readonly monitor: AuditReplay['monitor'];
  readonly marks: AuditReplay['marks'];
  readonly rules: AuditReplay['rules'];
  /** Where the robot was each time it reached a node: sums for the mean. */
  readonly reached: Map<string, { x: number; y: number; n: number }>;
  readonly starts: Map<string, [number, number]>;
  /** The node a checkpoint or waypoint event just reached, placed by the next evidence. */
  pendingNode: string | null;
}

const REPLAY_KINDS = [
  'run_start',
  'plan',
  'checkpoint',
  'evidence',
  'monitor_event',
  'failure_record',
  'replan',
  'escalation',
  'run_end',
  'operator_decision',
  'rule_verdict',
];

export function replayRun(
  db: Database.Database,
  run: AuditRunSummary,
  maxPositions = DEFAULT_MAX_POSITIONS,
  o: ReplayOptions = {},
): AuditReplay {
  const placementOnly = o.placementOnly === true;
  const hasSteps =
    db.prepare('SELECT 1 FROM events WHERE run_id = ? AND step IS NOT NULL LIMIT 1').get(run.id) !== undefined;
  const notes: string[] = [];
  let at = 0;
  const axisOf = (e: { step: number | null; t_ms: number }): number => {
    at = hasSteps ? (e.step ?? at) : e.t_ms - run.started_ms;
    return at;
  };
  const g: Gathered = {
    placementOnly,
    pos: { seq: [], at: [], x: [], y: [] },
    plans: [],
    monitor: [],
    marks: [],
    rules: [],
    reached: new Map(),
    starts: new Map(),
    pendingNode: null,
  };
  let max = 0;
  const s0: unknown[] = Array.isArray(run.meta['start']) ? run.meta['start'] : [];
  const start = num(s0[0]),
    startY = num(s0[1]);
  const rows = db
    .prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = ? AND kind IN (${REPLAY_KINDS.map(() => '?').join(',')}) ORDER BY seq`,
    )
    .iterate(run.id, ...REPLAY_KINDS);
  for (const r of rows) {
    const e = eventOf(r);
    const a = axisOf(e);
    max = Math.max(max, a);
    const b = obj(bodyOf(e));
    if (e.kind === 'run_start') {
      if (start !== null && startY !== null) pushPosition(g, e.seq, a, start, startY);
    } else gather(g, db, e, a, b);
  }
  if (!hasSteps) max = Math.max(max, (run.ended_ms ?? run.started_ms) - run.started_ms);

  // The regions its chained run_start names (the runs table is outside the chain).
  const regionsSha = runStartBody(db, run.id)['regions_sha'];
  const regions = regionsOf(db, typeof regionsSha === 'string' ? regionsSha : null);
  const layout = mazeOf(run.world);
  const { pos, plans } = g;
  const scene = sceneOf(
    run,
    plans,
    {
      reached: g.reached,
      starts: g.starts,
      start: start !== null && startY !== null ? [start, startY] : null,
      regions,
      layout,
    },
    notes,
  );
  const total = pos.x.length;
  const positions = { ...thin(pos, maxPositions), total };
  if (total > positions.x.length)
    notes.push(
      `${total} robot positions recorded; ${positions.x.length} sent for the replay (evenly spaced, first and last kept)`,
    );
  if (total === 0)
    notes.push(
      'this run recorded no robot positions (no evidence with a state x, y): the timeline replays events only',
    );
  let automaton: AuditReplay['automaton'] = null;
  if (run.spec !== null && plans.length > 0 && !placementOnly) {
    try {
      automaton = automatonView(translateFormula(parseLtl(run.spec)).automaton);
    } catch (e) {
      notes.push(`the specification's automaton could not be rebuilt: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const axis = hasSteps ? 'step' : 'time';
  return {
    run,
    axis,
    min: 0,
    max,
    scene,
    plans,
    positions,
    monitor: g.monitor,
    marks: g.marks,
    rules: g.rules,
    automaton,
    notes,
  };
}

/** A robot position; with placementOnly only the last one is kept. */
function pushPosition(g: Gathered, seq: number, a: number, x: number, y: number): void {
  const pos = g.pos;
  if (g.placementOnly && pos.x.length > 0) {
    [pos.seq[0], pos.at[0], pos.x[0], pos.y[0]] = [seq, a, x, y];
    return;
  }
  pos.seq.push(seq);
  pos.at.push(a);
  pos.x.push(x);
  pos.y.push(y);
}

/** One event (other than run_start) at axis position `a`, its body `b`, into what the replay gathers. */
function gather(g: Gathered, db: Database.Database, e: EventRow, a: number, b: Record<string, unknown>): void {
  switch (e.kind) {
    case 'plan':
      gatherPlan(g, db, e, a);
      break;
    case 'checkpoint':
      g.pendingNode =
        (b['kind'] === 'waypoint' || b['kind'] === 'checkpoint') && typeof b['node'] === 'string' ? b['node'] : null;
      break;
    case 'evidence': {
      const s = obj(b['state']);
      const x = num(s['x']),
        y = num(s['y']);
      if (x !== null && y !== null) {
        pushPosition(g, e.seq, a, x, y);
        // The evidence right after a reached waypoint or checkpoint says where that node is.
        if (g.pendingNode !== null) {
          const r = g.reached.get(g.pendingNode) ?? { x: 0, y: 0, n: 0 };
          g.reached.set(g.pendingNode, { x: r.x + x, y: r.y + y, n: r.n + 1 });
        }
      }
      g.pendingNode = null;
      break;
    }
    case 'monitor_event':
      if (g.placementOnly) break;
      g.monitor.push({
        seq: e.seq,
        at: a,
        states: Array.isArray(b['states']) ? b['states'].flatMap((x) => num(x) ?? []) : [],
        viable: b['viable'] !== false,
        accepting: b['accepting'] === true,
        labels: strings(b['labels']),
      });
      break;
    case 'rule_verdict':
      if (!g.placementOnly) gatherVerdict(g, e, a, b);
      break;
    default:
      if (!g.placementOnly) g.marks.push({ seq: e.seq, at: a, kind: e.kind, label: markLabel(e, b) });
  }
}

/** A verdict of the rules: in the replay's list, and a mark when it refused a call or saw a rule broken. */
function gatherVerdict(g: Gathered, e: EventRow, a: number, b: Record<string, unknown>): void {
  const phase = b['phase'] === 'observed' ? 'observed' : 'predicted';
  const ok = b['ok'] === true;
  const rule = typeof b['rule'] === 'string' ? b['rule'] : undefined;
  const proposition = typeof b['proposition'] === 'string' ? b['proposition'] : undefined;
  g.rules.push({
    seq: e.seq,
    at: a,
    hash: e.hash,
    phase,
    ok,
    tool: first(b['tool'], e.tool, '?'),
    ...(rule !== undefined ? { rule } : {}),
    ...(proposition !== undefined ? { proposition } : {}),
    letter: strings(b['letter']),
    rules: (Array.isArray(b['rules']) ? b['rules'] : []).map((x) => {
      const r = obj(x);
      return {
        name: text(r['name']),
        states: Array.isArray(r['states']) ? r['states'].flatMap((s) => num(s) ?? []) : [],
        viable: r['viable'] !== false,
      };
    }),
    obligations: strings(b['obligations']),
  });
  if (!ok)
    g.marks.push({
      seq: e.seq,
      at: a,
      kind: 'rule_verdict',
      label: `${phase === 'predicted' ? 'refused' : 'violated'}: rule "${rule ?? '?'}" on ${proposition ?? '?'} (${first(b['tool'], '?')})`,
    });
}

/** The label of a mark: a failure, a replan, an escalation, an operator's decision or the run's end. */
function markLabel(e: EventRow, b: Record<string, unknown>): string {
  switch (e.kind) {
    case 'failure_record':
      return e.failure_label ?? first(b['kind'], b['label'], 'failure');
    case 'replan':
      return `replan ${text(b['replan'])} after ${first(b['trigger'], '?')}`;
    case 'run_end':
      return first(b['outcome'], 'end');
    default:
      return first(b['message'], b['reason'], b['decision'], e.kind);
  }
}

/** A plan event: its view, each replan's start node given its own id (where the robot stood). */
function gatherPlan(g: Gathered, db: Database.Database, e: EventRow, a: number): void {
  const doc = planOf(db, e);
  if (doc === null) return;
  const k = g.plans.length;
  const pos = g.pos;
  const rename = (id: string): string => (id === 'start' && k > 0 ? `start@${a}` : id);
  if (k > 0 && pos.x.length > 0) g.starts.set(`start@${a}`, [pos.x[pos.x.length - 1]!, pos.y[pos.y.length - 1]!]);
  const cert = obj(doc.document['certificate']);
  const states = (Array.isArray(cert['steps']) ? cert['steps'] : []).map((s) => num(obj(s)['state']) ?? 0);
  const view: PlanView = {
    status: doc.status === 'ok' ? 'ok' : 'infeasible',
    prefix: doc.prefix.map(rename),
    suffix: doc.suffix.map(rename),
    prefixStates: states.slice(0, doc.prefix.length),
    suffixStates: states.slice(doc.prefix.length),
    ...(doc.cost !== null ? { cost: doc.cost } : {}),
    ...(doc.status !== 'ok'
      ? {
          reason: {
            kind: text(obj(doc.document['reason'])['kind']),
            message: text(obj(doc.document['reason'])['message']),
          },
        }
      : {}),
  };
  g.plans.push({ seq: e.seq, at: a, trigger: doc.trigger, sha: doc.sha, plan: view });
}

function thin<T extends Record<string, number[]>>(cols: T, max: number): T {
  const n = Object.values(cols)[0]?.length ?? 0;
  if (n <= max) return cols;
  const keep: number[] = [];
  for (let k = 0; k < max; k++) keep.push(Math.round((k * (n - 1)) / (max - 1)));
  return Object.fromEntries(Object.entries(cols).map(([key, v]) => [key, keep.map((i) => v[i]!)])) as T;
}

export function regionsOf(db: Database.Database, sha: string | null): Region[] {
  if (sha === null) return [];
  const blob = getBlob(db, sha);
  if (blob === undefined) return [];
  try {
    return [...parseRegions(jsonOr(blob.body, null), 'regions blob').regions];
  } catch {
    return [];
  }
}

/** The maze of a point-maze or Ant-maze world (they share their layouts), or null for another world. */
export function mazeOf(world: string): MazeLayout | null {
  const m = /^(?:point|ant)maze-(.+)$/.exec(world);
  return m !== null ? ((MAZES as Record<string, MazeLayout | undefined>)[m[1]!] ?? null) : null;
}

interface Places {
  reached: Map<string, { x: number; y: number; n: number }>;
  starts: Map<string, [number, number]>;
  start: [number, number] | null;
  regions: Region[];
  layout: MazeLayout | null;
}

function regionCentre(r: Region): [number, number] {
  return r.kind === 'disk' ? [r.center[0], r.center[1]] : [(r.min[0] + r.max[0]) / 2, (r.min[1] + r.max[1]) / 2];
}

function sceneOf(run: AuditRunSummary, plans: AuditReplay['plans'], p: Places, notes: string[]): GraphScene {
  const xy = new Map<string, [number, number]>();
  let fromRobot = 0,
    fromRegion = 0,
    interpolated = 0;
  const ids = [...new Set(plans.flatMap((q) => [...q.plan.prefix, ...q.plan.suffix]))];
  for (const id of ids) {
    const r = p.reached.get(id);
    const anchor = /^anchor:(.+):\d+$/.exec(id);
    const region = anchor !== null ? p.regions.find((g) => g.name === anchor[1]) : undefined;
    if (id === 'start' && p.start !== null) xy.set(id, p.start);
    else if (p.starts.has(id)) xy.set(id, p.starts.get(id)!);
    else if (r !== undefined) {
      xy.set(id, [r.x / r.n, r.y / r.n]);
      fromRobot++;
    } else if (region !== undefined) {
      xy.set(id, regionCentre(region));
      fromRegion++;
    }
  }
  // The rest: between the nearest placed nodes before and after it along each plan.
  for (const q of plans) interpolate([...q.plan.prefix, ...q.plan.suffix], xy, p, () => interpolated++);
  const index = new Map<string, number>();
  const nodes: SceneNode[] = [];
  for (const id of ids) {
    const [x, y] = xy.get(id) ?? [0, 0];
    const anchor = /^anchor:(.+):\d+$/.exec(id);
    const node: SceneNode = {
      id,
      x,
      y,
      kind: id.startsWith('start') ? 'start' : anchor !== null ? 'anchor' : 'cluster',
      labels: anchor !== null ? [anchor[1]!] : [],
      soft: {},
      support: 0,
    };
    if (anchor !== null) node.anchorOf = anchor[1]!;
    index.set(id, nodes.length);
    nodes.push(node);
  }
  const edges = new Map<string, [number, number, number]>();
  const link = (u: string, v: string): void => {
    const a = index.get(u),
      b = index.get(v);
    if (a === undefined || b === undefined || a === b) return;
    const w = Math.round(Math.hypot(nodes[a]!.x - nodes[b]!.x, nodes[a]!.y - nodes[b]!.y) * 1000) / 1000;
    edges.set(`${a}>${b}`, [a, b, w]);
  };
  for (const q of plans) {
    const seq = [...q.plan.prefix, ...q.plan.suffix];
    for (let i = 1; i < seq.length; i++) link(seq[i - 1]!, seq[i]!);
  }
  if (ids.length > 0) {
    notes.push(
      `plan node positions are not recorded in the audit log: of ${ids.length} nodes, ${fromRobot} are placed where the robot reached them, ${fromRegion} anchors at their region's centre, ${interpolated} interpolated along the plan` +
        `${ids.length - fromRobot - fromRegion - interpolated > 0 ? `, the start(s) at the robot's position` : ''}`,
    );
  }
  const bounds = p.layout !== null ? mazeBounds(p.layout) : boundsOf(nodes);
  return {
    world: run.world,
    bounds,
    picture: p.layout !== null ? mazePicture(p.layout, run.world, p.regions) : null,
    // The maze's rows run top to bottom, as in `witness run --picture` and the console.
    ...(p.layout !== null ? { yDown: true } : {}),
    propositions: [...new Set(p.regions.map((r) => r.name))].sort(),
    nodes,
    edges: [...edges.values()],
    colours: Object.fromEntries(regionColours(p.regions)),
  };
}

/**
 * Places the nodes of `seq` that `xy` lacks: those between two placed nodes along the way between
 * them (in a maze, its corridors: see spreadAlong), those before the first or after the last at
 * the nearest placed one (or the run's start).
 */
function interpolate(seq: readonly string[], xy: Map<string, [number, number]>, p: Places, placed: () => void): void {
  for (let i = 0; i < seq.length; i++) {
    if (xy.has(seq[i]!)) continue;
    let lo = i - 1,
      hi = i + 1;
    while (lo >= 0 && !xy.has(seq[lo]!)) lo--;
    while (hi < seq.length && !xy.has(seq[hi]!)) hi++;
    const a = lo >= 0 ? xy.get(seq[lo]!)! : undefined,
      b = hi < seq.length ? xy.get(seq[hi]!)! : undefined;
    const m = hi - i;
    let points: [number, number][];
    if (a !== undefined && b !== undefined)
      points =
        p.layout !== null
          ? spreadAlong(mazePath(p.layout, a, b), m)
          : Array.from({ length: m }, (_, k) => {
              const t = (k + 1) / (m + 1);
              return [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])] as [number, number];
            });
    else {
      const at = a ?? b ?? p.start ?? undefined;
      if (at === undefined) continue;
      points = Array.from({ length: m }, () => at);
    }
    // A node met twice in the gap keeps its first place.
    points.forEach((pt, k) => {
      if (xy.has(seq[i + k]!)) return;
      xy.set(seq[i + k]!, pt);
      placed();
    });
    i = hi - 1;
  }
}

function boundsOf(nodes: readonly SceneNode[]): GraphScene['bounds'] {
  if (nodes.length === 0) return { minX: 0, minY: 0, maxX: 1, maxY: 1 };
  const xs = nodes.map((n) => n.x),
    ys = nodes.map((n) => n.y);
  return {
    minX: Math.min(...xs) - 0.5,
    minY: Math.min(...ys) - 0.5,
    maxX: Math.max(...xs) + 0.5,
    maxY: Math.max(...ys) + 0.5,
  };
}

/**
 * Offline trajectory datasets: the in-memory form shared by the generators, the file formats
 * (services/datasets) and the graph builder. Trajectories are stored back to back as rows; a row
 * whose terminal is 1 ends its trajectory (OGBench semantics), so no separate index is needed.
 */
import { WitnessError } from '../../contract/errors.js';

export interface Dataset {
  /** The world (scene or robot) the trajectories were recorded in; readers check it. */
  readonly worldId: string;
  /** N × obsDim, row-major. */
  readonly observations: Float32Array;
  /** N × actDim, row-major. */
  readonly actions: Float32Array;
  /** N entries of 0 or 1; 1 where a trajectory ends at this row. */
  readonly terminals: Uint8Array;
  readonly obsDim: number;
  readonly actDim: number;
  /** The generator's configuration, JSON-serialisable, kept so a dataset can be regenerated. */
  readonly generator: Record<string, unknown>;
  readonly seed: number;
  /**
   * What happened while it was recorded, JSON-serialisable (a body's falls and its expert's stalls,
   * counted, with their rows); absent for the point mass, which can do neither.
   */
  readonly report?: Record<string, unknown>;
}

/**
 * A dataset that is malformed or unreadable. `message` reads `<file>: <detail>`, where the detail
 * names the field (`runs/a.wds: observations[12][3] is NaN`), so a user can find the problem.
 */
export class DatasetError extends WitnessError {
  override readonly name = 'DatasetError';
  constructor(
    readonly file: string,
    readonly field: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super('invalid-input', `${file}: ${detail}`, { file, path: field }, options);
  }
}

interface DimRange {
  readonly min: number[];
  readonly max: number[];
}

export interface DatasetStats {
  readonly transitions: number;
  readonly trajectories: number;
  readonly observations: DimRange;
  readonly actions: DimRange;
}

/** Number of rows (transitions). */
function transitionCount(d: Dataset): number {
  return d.terminals.length;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);

const describe = (x: number): string => (Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity');

/** Throws a DatasetError (naming `where` and the field) for the first problem found. */
export function validateDataset(d: Dataset, where: string): void {
  const fail = (field: string, detail: string): never => {
    throw new DatasetError(where, field, detail);
  };
  if (typeof d.worldId !== 'string' || d.worldId === '') fail('worldId', 'worldId must be a non-empty string');
  for (const [field, v] of [
    ['obsDim', d.obsDim],
    ['actDim', d.actDim],
  ] as const) {
    if (!Number.isSafeInteger(v) || v <= 0) fail(field, `${field} must be a positive integer, got ${String(v)}`);
  }
  if (!(d.observations instanceof Float32Array)) fail('observations', 'observations must be a Float32Array');
  if (!(d.actions instanceof Float32Array)) fail('actions', 'actions must be a Float32Array');
  if (!(d.terminals instanceof Uint8Array)) fail('terminals', 'terminals must be a Uint8Array');
  if (!isPlainObject(d.generator)) fail('generator', 'generator must be an object');
  if (!Number.isSafeInteger(d.seed)) fail('seed', `seed must be an integer, got ${String(d.seed)}`);
  if (d.report !== undefined && !isPlainObject(d.report)) fail('report', 'report must be an object when present');

  const n = d.terminals.length;
  // An empty dataset has no last row to end its trajectory, and nothing to learn from.
  if (n === 0) fail('terminals', 'the dataset has no transitions');
  for (const [field, arr, dim] of [
    ['observations', d.observations, d.obsDim],
    ['actions', d.actions, d.actDim],
  ] as const) {
    if (arr.length !== n * dim) {
      fail(field, `${field} has ${arr.length} values, expected ${n} rows × ${dim} = ${n * dim}`);
    }
    for (let i = 0; i < arr.length; i++) {
      const x = arr[i]!;
      if (!Number.isFinite(x)) fail(field, `${field}[${Math.floor(i / dim)}][${i % dim}] is ${describe(x)}`);
    }
  }
  for (let i = 0; i < n; i++) {
    const t = d.terminals[i]!;
    if (t > 1) fail('terminals', `terminals[${i}] is ${t}, expected 0 or 1`);
  }
  // Otherwise the last trajectory would silently run into whatever is appended next.
  if (d.terminals[n - 1] !== 1) fail('terminals', `terminals[${n - 1}] (the last row) must be 1`);
}

function ranges(arr: Float32Array, dim: number): DimRange {
  const min = new Array<number>(dim).fill(Infinity);
  const max = new Array<number>(dim).fill(-Infinity);
  for (let i = 0; i < arr.length; i++) {
    const j = i % dim,
      x = arr[i]!;
    if (x < min[j]!) min[j] = x;
    if (x > max[j]!) max[j] = x;
  }
  return { min, max };
}

/** Counts and per-dimension ranges; assumes a valid dataset. */
export function datasetStats(d: Dataset): DatasetStats {
  let trajectories = 0;
  for (const t of d.terminals) trajectories += t === 1 ? 1 : 0;
  return {
    transitions: transitionCount(d),
    trajectories,
    observations: ranges(d.observations, d.obsDim),
    actions: ranges(d.actions, d.actDim),
  };
}

/** End index (inclusive) of the trajectory each row belongs to (the next terminal row, else the last row). */
export function trajectoryEnds(terminals: Uint8Array): Int32Array {
  const ends = new Int32Array(terminals.length);
  let end = terminals.length - 1;
  for (let i = terminals.length - 1; i >= 0; i--) {
    if (terminals[i] === 1) end = i;
    ends[i] = end;
  }
  return ends;
}

/**
 * OGBench-style `.npz` (a zip of `.npy` arrays) export and import, so datasets move between
 * Witness and the Python tools the SAGAS method and OGBench use. Export is deterministic (fixed
 * entry order and zip timestamps); import accepts what `np.savez` and `np.savez_compressed` write.
 */
import { basename } from 'node:path';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { DatasetError, validateDataset, type Dataset } from '../../core/data/dataset.js';
import { decodeNpy, encodeNpyF32, NpyFormatError, type NpyArray } from './npy.js';
import { errText, writeFileAtomic } from '../../platform/files.js';
import { datasetInput, readInputFile } from '../../platform/input-files.js';

/** zip stores local DOS time; a fixed local date keeps the bytes equal across runs and zones. */
const ZIP_MTIME = new Date(1980, 0, 1);

/** Observation that follows each row within its trajectory; at a terminal, the row's own. */
export function nextObservations(d: Dataset): Float32Array {
  const out = new Float32Array(d.observations.length);
  const n = d.terminals.length, k = d.obsDim;
  for (let i = 0; i < n; i++) {
    const src = d.terminals[i] === 1 || i + 1 >= n ? i : i + 1;
    out.set(d.observations.subarray(src * k, src * k + k), i * k);
  }
  return out;
}

/** The `.npz` bytes of a dataset; `where` names it in errors. */
export function encodeNpz(d: Dataset, where = 'dataset'): Uint8Array {
  validateDataset(d, where);
  const n = d.terminals.length;
  // OGBench stores flags as float32; timeouts repeat terminals because every end is a cut here.
  const flags = Float32Array.from(d.terminals);
  const files: Zippable = {
    'observations.npy': encodeNpyF32(d.observations, [n, d.obsDim]),
    'actions.npy': encodeNpyF32(d.actions, [n, d.actDim]),
    'terminals.npy': encodeNpyF32(flags, [n]),
    'next_observations.npy': encodeNpyF32(nextObservations(d), [n, d.obsDim]),
    'timeouts.npy': encodeNpyF32(flags, [n]),
  };
  return zipSync(files, { level: 6, mtime: ZIP_MTIME });
}

export async function exportNpz(path: string, d: Dataset): Promise<void> {
  await writeFileAtomic(path, encodeNpz(d, path));
}

export interface ImportOptions {
  /** An .npz carries no world; the caller says which world the trajectories belong to. */
  readonly worldId: string;
}

export async function importNpz(path: string, opts: ImportOptions): Promise<Dataset> {
  return decodeNpz(await readInputFile(path, datasetInput()), path, opts);
}

/** Parses `.npz` bytes into a validated Dataset; errors name `where` and the array key. */
export function decodeNpz(bytes: Uint8Array, where: string, opts: ImportOptions): Dataset {
  const fail = (field: string, detail: string): never => {
    throw new DatasetError(where, field, detail);
  };
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes);
  } catch (err) {
    return fail('zip', `not a readable .npz (zip) file: ${errText(err)}`);
  }
  const load = (key: string): NpyArray => {
    const entry = files[`${key}.npy`];
    if (entry === undefined) {
      const has = Object.keys(files).map((f) => f.replace(/\.npy$/, '')).join(', ') || 'none';
      return fail(key, `array ${key} is missing (arrays present: ${has})`);
    }
    try {
      return decodeNpy(entry);
    } catch (err) {
      if (err instanceof NpyFormatError) return fail(key, `${key}: ${err.message}`);
      throw err;
    }
  };
  const obs = load('observations'), act = load('actions'), term = load('terminals');

  const matrix = (key: string, a: NpyArray): [number, number] => {
    const [rows, cols] = a.shape;
    if (a.shape.length !== 2 || rows === undefined || cols === undefined || cols === 0) {
      return fail(key, `${key} has shape (${a.shape.join(', ')}), expected (N, D) with D > 0`);
    }
    return [rows, cols];
  };
  const [n, obsDim] = matrix('observations', obs);
  const [actRows, actDim] = matrix('actions', act);
  if (actRows !== n) fail('actions', `actions has ${actRows} rows, observations has ${n}`);
  if (term.shape.length !== 1 || term.shape[0] !== n) {
    fail('terminals', `terminals has shape (${term.shape.join(', ')}), expected (${n},)`);
  }

  const terminals = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const t = term.data[i]!;
    if (t !== 0 && t !== 1) fail('terminals', `terminals[${i}] is ${t}, expected 0 or 1`);
    terminals[i] = t;
  }
  const d: Dataset = {
    worldId: opts.worldId,
    // float64 values outside float32 range become ±Infinity here and are reported by validation.
    observations: Float32Array.from(obs.data),
    actions: Float32Array.from(act.data),
    terminals,
    obsDim,
    actDim,
    generator: { imported: basename(where) },
    seed: 0,
  };
  validateDataset(d, where);
  return d;
}

/**
 * OGBench-style `.npz` (a zip of `.npy` arrays) export and import, so datasets move between
 * Witness and the Python tools the SAGAS method and OGBench use. Export is deterministic (fixed
 * entry order and zip timestamps); import accepts what `np.savez` and `np.savez_compressed` write,
 * and trusts nothing in the archive: the arrays' declared sizes are checked against the dataset
 * limit before anything is inflated, an entry that inflates past its declared size is stopped
 * there, and every array read is checked against its CRC-32 (zip.ts).
 */
import { basename } from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import { DatasetError, validateDataset, type Dataset } from '../../core/data/dataset.js';
import { decodeNpy, encodeNpyF32, NpyFormatError, type NpyArray } from './npy.js';
import { listZip, readZipEntry, ZipFormatError, type ZipEntry } from './zip.js';
import { writeFileAtomic } from '../../platform/files.js';
import { datasetInput, type InputKind, readInputFile, sizeText } from '../../platform/input-files.js';

/** zip stores local DOS time; a fixed local date keeps the bytes equal across runs and zones. */
const ZIP_MTIME = new Date(1980, 0, 1);

/** Observation that follows each row within its trajectory; at a terminal, the row's own. */
export function nextObservations(d: Dataset): Float32Array {
  const out = new Float32Array(d.observations.length);
  const n = d.terminals.length,
    k = d.obsDim;
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
  /** The most bytes the file, and the arrays read from it uncompressed, may have (default: datasetInput()). */
  readonly limit?: InputKind;
}

export async function importNpz(path: string, opts: ImportOptions): Promise<Dataset> {
  const limit = opts.limit ?? datasetInput();
  return decodeNpz(await readInputFile(path, limit), path, { ...opts, limit });
}

/** The arrays a dataset is made of; the others (next_observations, timeouts) are not read. */
const ARRAYS = ['observations', 'actions', 'terminals'] as const;

/** Parses `.npz` bytes into a validated Dataset; errors name `where` and the array key. */
export function decodeNpz(bytes: Uint8Array, where: string, opts: ImportOptions): Dataset {
  const fail = (field: string, detail: string): never => {
    throw new DatasetError(where, field, detail);
  };
  const limit = opts.limit ?? datasetInput();
  let entries: Map<string, ZipEntry>;
  try {
    entries = new Map(listZip(bytes).map((e) => [e.name, e]));
  } catch (err) {
    if (err instanceof ZipFormatError)
      return fail('zip', `not a readable .npz (zip) file: ${err.entry !== null ? `${err.entry}: ` : ''}${err.message}`);
    throw err;
  }
  const present = (): string => [...entries.keys()].map((f) => f.replace(/\.npy$/, '')).join(', ') || 'none';
  for (const key of ARRAYS)
    if (!entries.has(`${key}.npy`)) fail(key, `array ${key} is missing (arrays present: ${present()})`);
  // What the arrays would take once inflated, from the headers alone, before anything is inflated.
  const declared = ARRAYS.reduce((sum, key) => sum + entries.get(`${key}.npy`)!.size, 0);
  if (declared > limit.maxBytes) {
    const sizes = ARRAYS.map((key) => `${key} ${entries.get(`${key}.npy`)!.size}`).join(', ');
    fail(
      'zip',
      `its arrays declare ${declared} bytes uncompressed (${sizes}), more than ${sizeText(limit.maxBytes)} (the limit for ${limit.what}${limit.hint !== undefined ? `; ${limit.hint}` : ''})`,
    );
  }
  const load = (key: string): NpyArray => {
    const entry = entries.get(`${key}.npy`)!;
    let raw: Uint8Array;
    try {
      raw = readZipEntry(bytes, entry);
    } catch (err) {
      if (err instanceof ZipFormatError) return fail(key, `${entry.name}: ${err.message}`);
      throw err;
    }
    try {
      return decodeNpy(raw);
    } catch (err) {
      if (err instanceof NpyFormatError) return fail(key, `${key}: ${err.message}`);
      throw err;
    }
  };
  const obs = load('observations'),
    act = load('actions'),
    term = load('terminals');

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

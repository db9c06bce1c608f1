/**
 * The `.wds` dataset file: `WDS1`, a uint32 LE header length, a UTF-8 JSON header (padded with
 * spaces so the payload starts 8-byte aligned), then the raw little-endian arrays, each 8-byte
 * aligned. Output is byte-deterministic (fixed key order, sorted generator keys, no timestamps), so
 * the header's sha256 of the payload identifies the content and equal datasets give equal files.
 */
import { createHash } from 'node:crypto';
import { DatasetError, validateDataset, type Dataset } from '../../core/data/dataset.js';
import { align8, f32ToLe, leToF32 } from './io.js';
import { writeFileAtomic } from '../../platform/files.js';
import { datasetInput, readInputFile } from '../../platform/input-files.js';
import { parseJsonText } from '../../core/input/json.js';

const WDS_MAGIC = 'WDS1';
const WDS_VERSION = 1;
/** Guards against a corrupt length field making us decode megabytes of garbage as JSON. */
const MAX_HEADER_BYTES = 64 << 20;

type Dtype = 'float32' | 'uint8';
const ITEM_BYTES: Record<Dtype, number> = { float32: 4, uint8: 1 };
const FIELD_NAMES = ['observations', 'actions', 'terminals'] as const;
type FieldName = (typeof FIELD_NAMES)[number];

interface FieldEntry {
  readonly name: FieldName;
  readonly dtype: Dtype;
  readonly shape: number[];
  /** Bytes from the start of the payload (the first byte after the padded header). */
  readonly offset: number;
  readonly bytes: number;
}

export interface ReadOptions {
  /** Fail unless the dataset was recorded in this world. */
  readonly expectWorld?: string;
}

function expectedFields(
  n: number,
  obsDim: number,
  actDim: number,
): Record<FieldName, { dtype: Dtype; shape: number[] }> {
  return {
    observations: { dtype: 'float32', shape: [n, obsDim] },
    actions: { dtype: 'float32', shape: [n, actDim] },
    terminals: { dtype: 'uint8', shape: [n] },
  };
}

function layout(d: Dataset): { fields: FieldEntry[]; payload: Uint8Array } {
  const spec = expectedFields(d.terminals.length, d.obsDim, d.actDim);
  const data: Record<FieldName, Uint8Array> = {
    observations: f32ToLe(d.observations),
    actions: f32ToLe(d.actions),
    terminals: d.terminals,
  };
  const fields: FieldEntry[] = [];
  let offset = 0;
  for (const name of FIELD_NAMES) {
    const bytes = data[name].byteLength;
    fields.push({ name, dtype: spec[name].dtype, shape: spec[name].shape, offset, bytes });
    offset = align8(offset + bytes);
  }
  const payload = new Uint8Array(offset);
  for (const f of fields) payload.set(data[f.name], f.offset);
  return { fields, payload };
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A copy of a JSON value with object keys sorted, so equal configs serialise to equal bytes. */
function canonical(v: unknown, path: string, where: string): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (Array.isArray(v)) return v.map((x, i) => canonical(x, `${path}[${i}]`, where));
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const obj = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((k) => [k, canonical(obj[k], `${path}.${k}`, where)]),
    );
  }
  // JSON.stringify would silently drop or null these, and the file would no longer say what ran.
  const what = typeof v === 'number' ? String(v) : typeof v;
  throw new DatasetError(where, 'generator', `${path} is not JSON-serialisable (${what})`);
}

/** The content hash a `.wds` file of this dataset carries (hex SHA-256 of the array payload). */
export function datasetHash(d: Dataset): string {
  validateDataset(d, 'dataset');
  return sha256(layout(d).payload);
}

/** The `.wds` bytes of a dataset; `where` names it in errors. */
export function encodeDataset(d: Dataset, where = 'dataset'): Uint8Array {
  validateDataset(d, where);
  const { fields, payload } = layout(d);
  const header = {
    format: 'witness-dataset',
    version: WDS_VERSION,
    worldId: d.worldId,
    transitions: d.terminals.length,
    obsDim: d.obsDim,
    actDim: d.actDim,
    fields,
    generator: canonical(d.generator, 'generator', where),
    seed: d.seed,
    // Only when there is one, so that datasets without a report keep their bytes.
    ...(d.report !== undefined ? { report: canonical(d.report, 'report', where) } : {}),
    sha256: sha256(payload),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerLen = align8(8 + json.length) - 8;
  const out = new Uint8Array(8 + headerLen + payload.length);
  out.set(new TextEncoder().encode(WDS_MAGIC), 0);
  new DataView(out.buffer).setUint32(4, headerLen, true);
  out.set(json, 8);
  out.fill(0x20, 8 + json.length, 8 + headerLen); // spaces: still valid JSON whitespace
  out.set(payload, 8 + headerLen);
  return out;
}

/** Writes atomically: the file at `path` is either the old one or the complete new one. */
export async function writeDataset(path: string, d: Dataset): Promise<void> {
  await writeFileAtomic(path, encodeDataset(d, path));
}

export async function readDataset(path: string, opts: ReadOptions = {}): Promise<Dataset> {
  return decodeDataset(await readInputFile(path, datasetInput()), path, opts);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** Parses and checks `.wds` bytes; every failure is a DatasetError naming `where` and the field. */
export function decodeDataset(bytes: Uint8Array, where: string, opts: ReadOptions = {}): Dataset {
  const fail = (field: string, detail: string): never => {
    throw new DatasetError(where, field, detail);
  };
  if (bytes.length < 8) fail('magic', `file is ${bytes.length} bytes, too short to be a witness dataset`);
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (magic !== WDS_MAGIC)
    fail('magic', `not a witness dataset: magic is ${JSON.stringify(magic)}, expected "${WDS_MAGIC}"`);
  const headerLen = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true);
  const payloadStart = 8 + headerLen;
  if (headerLen > MAX_HEADER_BYTES) fail('header', `header length ${headerLen} is implausibly large`);
  if (payloadStart > bytes.length) {
    fail('header', `truncated: expected at least ${payloadStart} bytes for the header, file has ${bytes.length} bytes`);
  }
  if (payloadStart % 8 !== 0) fail('header', `header length ${headerLen} leaves the payload unaligned`);

  let h: unknown;
  try {
    h = parseJsonText(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, payloadStart)));
  } catch (err) {
    fail('header', `header is not valid UTF-8 JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(h)) return fail('header', 'header is not a JSON object');
  if (h.format !== 'witness-dataset')
    fail('format', `header.format is ${JSON.stringify(h.format)}, expected "witness-dataset"`);
  if (h.version !== WDS_VERSION)
    fail('version', `unsupported version ${JSON.stringify(h.version)}, this reader knows ${WDS_VERSION}`);
  if (typeof h.worldId !== 'string' || h.worldId === '') fail('worldId', 'header.worldId must be a non-empty string');
  if (!isCount(h.transitions)) fail('transitions', 'header.transitions must be a non-negative integer');
  for (const k of ['obsDim', 'actDim'] as const) {
    if (!isCount(h[k]) || h[k] === 0) fail(k, `header.${k} must be a positive integer`);
  }
  if (!isObject(h.generator)) fail('generator', 'header.generator must be an object');
  if (!Number.isSafeInteger(h.seed)) fail('seed', 'header.seed must be an integer');
  if (h.report !== undefined && !isObject(h.report)) fail('report', 'header.report must be an object when present');
  if (typeof h.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(h.sha256))
    fail('sha256', 'header.sha256 must be 64 hex digits');
  const n = h.transitions as number,
    obsDim = h.obsDim as number,
    actDim = h.actDim as number;

  const fields = checkFields(h.fields, expectedFields(n, obsDim, actDim), fail);
  const payloadLen = align8(Math.max(...Object.values(fields).map((f) => f.offset + f.bytes)));
  const expected = payloadStart + payloadLen;
  if (bytes.length !== expected) {
    const why = bytes.length < expected ? 'truncated' : 'trailing data';
    fail('payload', `${why}: expected ${expected} bytes, file has ${bytes.length} bytes`);
  }
  const payload = bytes.subarray(payloadStart);
  const actual = sha256(payload);
  if (actual !== h.sha256)
    fail('sha256', `content hash mismatch: header says ${h.sha256 as string}, payload hashes to ${actual}`);

  const at = (f: FieldEntry): number => payloadStart + f.offset;
  const d: Dataset = {
    worldId: h.worldId as string,
    observations: leToF32(bytes, at(fields.observations), n * obsDim),
    actions: leToF32(bytes, at(fields.actions), n * actDim),
    // A copy, as a plain Uint8Array: `bytes` may be a pooled Buffer whose slice() is a view.
    terminals: new Uint8Array(bytes.subarray(at(fields.terminals), at(fields.terminals) + n)),
    obsDim,
    actDim,
    generator: h.generator as Record<string, unknown>,
    seed: h.seed as number,
    ...(h.report !== undefined ? { report: h.report as Record<string, unknown> } : {}),
  };
  validateDataset(d, where);
  if (opts.expectWorld !== undefined && d.worldId !== opts.expectWorld) {
    fail('worldId', `dataset is for world "${d.worldId}", expected world "${opts.expectWorld}"`);
  }
  return d;
}

function checkFields(
  raw: unknown,
  spec: Record<FieldName, { dtype: Dtype; shape: number[] }>,
  fail: (field: string, detail: string) => never,
): Record<FieldName, FieldEntry> {
  if (!Array.isArray(raw)) return fail('fields', 'header.fields must be an array');
  const seen = new Map<FieldName, FieldEntry>();
  for (const f of raw as unknown[]) {
    if (!isObject(f) || typeof f.name !== 'string') return fail('fields', 'each header.fields entry needs a name');
    const name = f.name as FieldName;
    const want = spec[name];
    if (!FIELD_NAMES.includes(name) || want === undefined)
      return fail('fields', `unknown field ${JSON.stringify(f.name)}`);
    if (seen.has(name)) fail(name, `field ${name} is listed twice`);
    if (f.dtype !== want.dtype) fail(name, `${name}.dtype is ${JSON.stringify(f.dtype)}, expected "${want.dtype}"`);
    if (JSON.stringify(f.shape) !== JSON.stringify(want.shape)) {
      fail(name, `${name}.shape is ${JSON.stringify(f.shape)}, expected ${JSON.stringify(want.shape)}`);
    }
    const size = want.shape.reduce((a, b) => a * b, 1) * ITEM_BYTES[want.dtype];
    if (f.bytes !== size) fail(name, `${name}.bytes is ${JSON.stringify(f.bytes)}, expected ${size}`);
    if (!isCount(f.offset) || f.offset % 8 !== 0) fail(name, `${name}.offset must be a non-negative multiple of 8`);
    seen.set(name, { name, dtype: want.dtype, shape: want.shape, offset: f.offset, bytes: size });
  }
  for (const name of FIELD_NAMES) if (!seen.has(name)) fail(name, `field ${name} is missing from header.fields`);
  const sorted = [...seen.values()].sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!,
      cur = sorted[i]!;
    if (cur.offset < prev.offset + prev.bytes) fail(cur.name, `${cur.name} overlaps ${prev.name} in the payload`);
  }
  return Object.fromEntries(seen) as Record<FieldName, FieldEntry>;
}

/**
 * The NumPy `.npy` format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html),
 * written and read by hand: we only need plain C-order numeric arrays, and owning the code keeps
 * the reader strict about what it accepts.
 */
import { WitnessError } from '../../contract/errors.js';
import { f32ToLe, leToF32, leToF64, leToI64 } from './io.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** The dtypes OGBench-style files use; everything is converted to float64 for checking. */
const DESCRS: Record<
  string,
  { itemBytes: number; read: (b: Uint8Array, off: number, n: number) => ArrayLike<number> }
> = {
  f4: { itemBytes: 4, read: leToF32 },
  f8: { itemBytes: 8, read: leToF64 },
  i8: { itemBytes: 8, read: leToI64 },
  u1: { itemBytes: 1, read: (b, off, n) => b.subarray(off, off + n) },
  b1: { itemBytes: 1, read: (b, off, n) => b.subarray(off, off + n) },
};

export interface NpyArray {
  /** As written in the file, e.g. `<f4` or `|b1`. */
  readonly descr: string;
  readonly shape: number[];
  readonly data: ArrayLike<number>;
}

/** A malformed `.npy`; the caller adds the file and array key. */
export class NpyFormatError extends WitnessError {
  override readonly name = 'NpyFormatError';
  constructor(message: string) {
    super('invalid-input', message);
  }
}

/** NPY v1.0 bytes of a float32 array of `shape` (C order). */
export function encodeNpyF32(data: Float32Array, shape: readonly number[]): Uint8Array {
  const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${dims}, }`;
  // numpy pads with spaces and ends with a newline so the data starts 64-byte aligned.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const body = f32ToLe(data);
  const out = new Uint8Array(total + body.length);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  out.set(body, total);
  return out;
}

function parseHeader(text: string): { descr: string; fortran: boolean; shape: number[] } {
  const descr = /['"]descr['"]\s*:\s*(['"])([^'"]*)\1/.exec(text)?.[2];
  if (descr === undefined) {
    if (/['"]descr['"]\s*:\s*\[/.test(text)) throw new NpyFormatError('structured dtypes are not supported');
    throw new NpyFormatError(`header has no descr: ${text.trim()}`);
  }
  const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(text)?.[1];
  if (fortran === undefined) throw new NpyFormatError(`header has no fortran_order: ${text.trim()}`);
  const shapeText = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (shapeText === undefined) throw new NpyFormatError(`header has no shape: ${text.trim()}`);
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      // numpy may write `3L` (Python 2) for longs.
      if (!/^\d+L?$/.test(s)) throw new NpyFormatError(`bad shape (${shapeText})`);
      return Number.parseInt(s, 10);
    });
  return { descr, fortran: fortran === 'True', shape };
}

/** Parses NPY v1, v2 and v3; accepts the dtypes in DESCRS, little-endian, C order only. */
export function decodeNpy(bytes: Uint8Array): NpyArray {
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b))
    throw new NpyFormatError('not an .npy array (bad magic)');
  const major = bytes[6]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let headerLen: number, start: number;
  if (major === 1) {
    headerLen = view.getUint16(8, true);
    start = 10;
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) throw new NpyFormatError(`truncated header: file has ${bytes.length} bytes`);
    headerLen = view.getUint32(8, true);
    start = 12;
  } else {
    throw new NpyFormatError(`unsupported .npy version ${major}.${bytes[7]}`);
  }
  if (start + headerLen > bytes.length) {
    throw new NpyFormatError(`truncated header: expected ${start + headerLen} bytes, found ${bytes.length}`);
  }
  // v1/v2 headers are latin-1, v3 UTF-8; the keys and values we read are ASCII either way.
  const text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, start + headerLen));
  const { descr, fortran, shape } = parseHeader(text);
  if (descr.startsWith('>'))
    throw new NpyFormatError(`big-endian dtype ${descr} is not supported; save with '<' byte order`);
  const kind = /^[<|=]?([a-z]\d+)$/.exec(descr)?.[1];
  const spec = kind === undefined ? undefined : DESCRS[kind];
  if (spec === undefined || kind === undefined) {
    throw new NpyFormatError(`dtype ${descr} is not supported (use <f4, <f8, |b1, |u1 or <i8)`);
  }
  // Fortran order would need a transpose, and numpy only writes it for arrays built that way.
  if (fortran)
    throw new NpyFormatError('fortran_order True is not supported; save a C-ordered array (np.ascontiguousarray)');
  // The shape is checked against the bytes there are before anything is allocated for it.
  const count = shape.reduce((a, b) => a * b, 1);
  const dataStart = start + headerLen;
  const need = count * spec.itemBytes,
    have = bytes.length - dataStart;
  if (!Number.isSafeInteger(need))
    throw new NpyFormatError(`shape (${shape.join(', ')}) is implausibly large: the file has ${have} bytes of data`);
  if (have < need) {
    throw new NpyFormatError(`truncated data: expected ${need} bytes for shape (${shape.join(', ')}), found ${have}`);
  }
  if (have > need)
    throw new NpyFormatError(`trailing data: expected ${need} bytes for shape (${shape.join(', ')}), found ${have}`);
  return { descr, shape, data: spec.read(bytes, dataStart, count) };
}

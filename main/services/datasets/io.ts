/** File and byte helpers shared by the dataset formats (.wds and .npz). */
import { rmSync } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { DatasetError } from '../../core/data/dataset.js';

/** Both formats store little-endian numbers; on such hosts typed arrays can be copied as bytes. */
const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Writes `bytes` to `path` so that a reader sees either the old file or the complete new one:
 * write and fsync a sibling temporary file, then rename it over `path`. The temporary file is
 * removed on any failure, so an interrupted or failed write leaves nothing half-written behind.
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  inFlight.add(tmp);
  try {
    const fh = await open(tmp, 'wx');
    try {
      await fh.writeFile(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw new DatasetError(path, 'file', `cannot write: ${errText(err)}`, { cause: err });
  } finally {
    inFlight.delete(tmp);
  }
}

/** Temporary files being written right now. */
const inFlight = new Set<string>();

/** Removes temporary files of writes still in flight; for a process that is being interrupted. */
export function removeInFlightWrites(): void {
  for (const tmp of inFlight) rmSync(tmp, { force: true });
  inFlight.clear();
}

export async function readFileOrFail(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new DatasetError(path, 'file', `cannot read: ${errText(err)}`, { cause: err });
  }
}

export const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/** Little-endian bytes of a float32 array. */
export function f32ToLe(a: Float32Array): Uint8Array {
  if (HOST_LE) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.length * 4), view = new DataView(out.buffer);
  for (let i = 0; i < a.length; i++) view.setFloat32(i * 4, a[i]!, true);
  return out;
}

/** Reads `count` little-endian float32s from any byte offset (the source need not be aligned). */
export function leToF32(bytes: Uint8Array, offset: number, count: number): Float32Array {
  const out = new Float32Array(count);
  if (HOST_LE) {
    new Uint8Array(out.buffer).set(bytes.subarray(offset, offset + count * 4));
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset + offset, count * 4);
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  }
  return out;
}

/** Reads `count` little-endian float64s as numbers. */
export function leToF64(bytes: Uint8Array, offset: number, count: number): Float64Array {
  const out = new Float64Array(count);
  if (HOST_LE) {
    new Uint8Array(out.buffer).set(bytes.subarray(offset, offset + count * 8));
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset + offset, count * 8);
    for (let i = 0; i < count; i++) out[i] = view.getFloat64(i * 8, true);
  }
  return out;
}

/** Reads `count` little-endian int64s as numbers (exact up to 2^53, plenty for 0/1 flags). */
export function leToI64(bytes: Uint8Array, offset: number, count: number): Float64Array {
  const out = new Float64Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, count * 8);
  for (let i = 0; i < count; i++) out[i] = Number(view.getBigInt64(i * 8, true));
  return out;
}

/** Byte helpers shared by the dataset formats (.wds and .npz); files are read and written through platform/files.ts. */

/** Both formats store little-endian numbers; on such hosts typed arrays can be copied as bytes. */
const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/** Little-endian bytes of a float32 array. */
export function f32ToLe(a: Float32Array): Uint8Array {
  if (HOST_LE) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.length * 4),
    view = new DataView(out.buffer);
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

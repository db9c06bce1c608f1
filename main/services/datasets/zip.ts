/**
 * Reading a ZIP archive (what `.npz` is) without trusting it: the central directory gives each
 * entry's declared sizes and CRC-32, so a caller can refuse sizes over its limit before anything is
 * inflated; an entry inflates into a buffer of exactly its declared size and is stopped as soon as
 * it produces more (an archive may lie in its headers); and the bytes are checked against the
 * declared CRC-32, so a flipped byte is reported instead of imported. Stored (0) and deflated (8)
 * entries, ZIP64 sizes; no encryption, no multi-disk archives.
 */
import * as zlib from 'node:zlib';
import { Inflate } from 'fflate';
import { WitnessError } from '../../contract/errors.js';

/** A malformed or corrupt archive; the caller adds the file (and the entry, when there is one). */
export class ZipFormatError extends WitnessError {
  override readonly name = 'ZipFormatError';
  constructor(
    readonly entry: string | null,
    message: string,
  ) {
    super('invalid-input', message);
  }
}

export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  readonly flags: number;
  readonly crc32: number;
  readonly compressedSize: number;
  /** The uncompressed size the central directory declares. */
  readonly size: number;
  readonly localOffset: number;
}

const SIG = {
  local: 0x04034b50,
  central: 0x02014b50,
  end: 0x06054b50,
  end64: 0x06064b50,
  locator64: 0x07064b50,
} as const;
const EOCD_BYTES = 22,
  CENTRAL_BYTES = 46,
  LOCAL_BYTES = 30;
const U32_MAX = 0xffffffff,
  U16_MAX = 0xffff;
/** Compressed bytes given to the inflater at once: one push makes at most ~1032× this (DEFLATE's ratio limit). */
const PUSH_BYTES = 16 * 1024;

const bad = (message: string, entry: string | null = null): never => {
  throw new ZipFormatError(entry, message);
};

function u64(v: DataView, at: number, what: string): number {
  const n = v.getBigUint64(at, true);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) bad(`${what} ${n} is implausibly large`);
  return Number(n);
}

/** The end-of-central-directory record: where the central directory is and how many entries it has. */
function endRecord(
  bytes: Uint8Array,
  v: DataView,
): { entries: number; cdOffset: number; cdSize: number; cdEnd: number } {
  if (bytes.length < EOCD_BYTES) bad(`${bytes.length} bytes, too short to be a zip archive`);
  // The record ends the file, followed only by a comment of at most 65535 bytes.
  let at = -1;
  for (let i = bytes.length - EOCD_BYTES; i >= Math.max(0, bytes.length - EOCD_BYTES - U16_MAX); i--) {
    if (v.getUint32(i, true) === SIG.end && i + EOCD_BYTES + v.getUint16(i + 20, true) === bytes.length) {
      at = i;
      break;
    }
  }
  if (at < 0) bad('no end-of-central-directory record (not a zip archive, or cut short)');
  if (v.getUint16(at + 4, true) !== 0 || v.getUint16(at + 6, true) !== 0) bad('a multi-disk archive (not supported)');
  let entries = v.getUint16(at + 10, true),
    cdSize = v.getUint32(at + 12, true),
    cdOffset = v.getUint32(at + 16, true);
  let cdEnd = at;
  if (entries === U16_MAX || cdSize === U32_MAX || cdOffset === U32_MAX) {
    const loc = at - 20;
    if (loc < 0 || v.getUint32(loc, true) !== SIG.locator64) bad('ZIP64 sizes without a ZIP64 locator');
    const end64 = u64(v, loc + 8, 'the ZIP64 record offset');
    if (end64 + 56 > loc || v.getUint32(end64, true) !== SIG.end64) bad('the ZIP64 end record is missing or misplaced');
    entries = u64(v, end64 + 32, 'the entry count');
    cdSize = u64(v, end64 + 40, 'the central directory size');
    cdOffset = u64(v, end64 + 48, 'the central directory offset');
    cdEnd = end64;
  }
  if (cdOffset + cdSize > cdEnd)
    bad(`the central directory (${cdSize} bytes at ${cdOffset}) runs past its end record at ${cdEnd}`);
  if (entries * CENTRAL_BYTES > cdSize) bad(`${entries} entries do not fit in a central directory of ${cdSize} bytes`);
  return { entries, cdOffset, cdSize, cdEnd: cdOffset + cdSize };
}

/** The ZIP64 extended-information extra field replaces the 32-bit fields that read 0xffffffff, in this order. */
function zip64Fields(
  v: DataView,
  extraStart: number,
  extraEnd: number,
  e: { size: number; compressedSize: number; localOffset: number },
  name: string,
): void {
  const want = [e.size === U32_MAX, e.compressedSize === U32_MAX, e.localOffset === U32_MAX];
  if (!want.includes(true)) return;
  for (let p = extraStart; p + 4 <= extraEnd;) {
    const id = v.getUint16(p, true),
      len = v.getUint16(p + 2, true);
    if (id === 0x0001) {
      let q = p + 4;
      const take = (what: string): number => {
        if (q + 8 > p + 4 + len) bad(`its ZIP64 field lacks ${what}`, name);
        const n = u64(v, q, what);
        q += 8;
        return n;
      };
      if (want[0]) e.size = take('the size');
      if (want[1]) e.compressedSize = take('the compressed size');
      if (want[2]) e.localOffset = take('the offset');
      return;
    }
    p += 4 + len;
  }
  bad('declares ZIP64 sizes but has no ZIP64 field', name);
}

/** The entries the central directory lists, with their declared sizes and CRC-32s; nothing is inflated. */
export function listZip(bytes: Uint8Array): ZipEntry[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { entries, cdOffset, cdEnd } = endRecord(bytes, v);
  const out: ZipEntry[] = [];
  const names = new Set<string>();
  const decoder = new TextDecoder('utf-8');
  for (let i = 0, p = cdOffset; i < entries; i++) {
    if (p + CENTRAL_BYTES > cdEnd || v.getUint32(p, true) !== SIG.central)
      bad(`central directory entry ${i + 1} of ${entries} is missing or corrupt`);
    const nameLen = v.getUint16(p + 28, true),
      extraLen = v.getUint16(p + 30, true),
      commentLen = v.getUint16(p + 32, true);
    const next = p + CENTRAL_BYTES + nameLen + extraLen + commentLen;
    if (next > cdEnd) bad(`central directory entry ${i + 1} runs past the directory`);
    const name = decoder.decode(bytes.subarray(p + CENTRAL_BYTES, p + CENTRAL_BYTES + nameLen));
    const e = {
      name,
      flags: v.getUint16(p + 8, true),
      method: v.getUint16(p + 10, true),
      crc32: v.getUint32(p + 16, true),
      compressedSize: v.getUint32(p + 20, true),
      size: v.getUint32(p + 24, true),
      localOffset: v.getUint32(p + 42, true),
    };
    zip64Fields(v, p + CENTRAL_BYTES + nameLen, p + CENTRAL_BYTES + nameLen + extraLen, e, name);
    if (names.has(name)) bad(`lists ${name} twice`, name);
    names.add(name);
    out.push(e);
    p = next;
  }
  return out;
}

const crcTable = ((): Uint32Array => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (ISO-HDLC, as ZIP uses): Node's own where it has one (20.15+), else a table. */
export function crc32(bytes: Uint8Array): number {
  const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
  if (native !== undefined) return native(bytes) >>> 0;
  let c = U32_MAX;
  for (let i = 0; i < bytes.length; i++) c = crcTable[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ U32_MAX) >>> 0;
}

const hex = (n: number): string => `0x${n.toString(16).padStart(8, '0')}`;

/** Inflates raw DEFLATE data into exactly `size` bytes; more output stops it at once, less is an error. */
function inflateExactly(data: Uint8Array, size: number, name: string): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0,
    done = false;
  const inflater = new Inflate((chunk, final) => {
    if (at + chunk.length > size)
      bad(`inflates past the ${size} bytes its header declares (stopped there): a corrupt or hostile archive`, name);
    out.set(chunk, at);
    at += chunk.length;
    if (final) done = true;
  });
  try {
    for (let p = 0; p < data.length && !done; p += PUSH_BYTES)
      inflater.push(data.subarray(p, p + PUSH_BYTES), p + PUSH_BYTES >= data.length);
    if (data.length === 0) inflater.push(data, true);
  } catch (e) {
    if (e instanceof ZipFormatError) throw e;
    bad(`corrupt compressed data: ${e instanceof Error ? e.message : String(e)}`, name);
  }
  if (at !== size) bad(`inflates to ${at} bytes, its header declares ${size}`, name);
  return out;
}

/**
 * The uncompressed bytes of an entry, inflated into its declared size at most and checked against
 * its declared CRC-32. Check `entry.size` against the caller's limit before calling.
 */
export function readZipEntry(bytes: Uint8Array, e: ZipEntry): Uint8Array {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const p = e.localOffset;
  if (e.flags & 1) bad('is encrypted (not supported)', e.name);
  if (p + LOCAL_BYTES > bytes.length || v.getUint32(p, true) !== SIG.local)
    bad(`its local header (at ${p}) is missing or corrupt`, e.name);
  const nameLen = v.getUint16(p + 26, true),
    extraLen = v.getUint16(p + 28, true);
  const start = p + LOCAL_BYTES + nameLen + extraLen,
    end = start + e.compressedSize;
  if (end > bytes.length)
    bad(
      `its data (${e.compressedSize} bytes at ${start}) runs past the end of the file (${bytes.length} bytes)`,
      e.name,
    );
  const local = new TextDecoder('utf-8').decode(bytes.subarray(p + LOCAL_BYTES, p + LOCAL_BYTES + nameLen));
  if (local !== e.name) bad(`its local header names ${JSON.stringify(local)}`, e.name);
  const data = bytes.subarray(start, end);
  let out: Uint8Array;
  if (e.method === 0) {
    if (e.compressedSize !== e.size)
      bad(`stored, but its sizes differ (${e.compressedSize} and ${e.size} bytes)`, e.name);
    out = data;
  } else if (e.method === 8) {
    out = inflateExactly(data, e.size, e.name);
  } else {
    return bad(`compression method ${e.method} is not supported (only stored and deflated)`, e.name);
  }
  const have = crc32(out);
  if (have !== e.crc32)
    bad(`CRC-32 mismatch: the header says ${hex(e.crc32)}, the data gives ${hex(have)} (the file is corrupt)`, e.name);
  return out;
}

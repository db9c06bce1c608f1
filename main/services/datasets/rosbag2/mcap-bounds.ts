/**
 * The bounds of an MCAP file, checked before @mcap/core's indexed reader trusts them. The reader
 * inflates a chunk to the size the chunk declares, holds every chunk whose time range overlaps the
 * next message's, and reads a chunk once per index entry that names it; a file of a few kilobytes
 * could so make it allocate gigabytes. Here, from the chunk indexes in the summary (read before any
 * chunk is):
 * - each chunk lies in the data section, and no two chunks (with their message indexes) overlap;
 * - each declares at most BAG_LIMITS.inflatedItem inflated, with a compression MCAP defines;
 * - the chunks whose time ranges overlap (held together) declare at most BAG_LIMITS.heldChunks;
 * - all of them take their inflated sizes from the bag's InflateBudget.
 * Before them, the summary section that holds them is at most BAG_LIMITS.summaryBytes (the reader reads
 * it whole and parses every record of it). Then, as the reader reads (GuardedReadable, the only way
 * bytes reach it): a chunk's own header says what its index says, and each message index entry lies
 * inside its chunk (time and offset), so that the time ranges above hold. Every refusal is a BagError
 * naming the file, the chunk and the limit.
 */
import type { ChunkIndex, DecompressHandlers, IReadable } from '@mcap/core';
import type { FileHandle } from 'node:fs/promises';
import { loadDecompressHandlers } from '@mcap/support';
import { BagError, fileOf } from './errors.js';
import { BAG_LIMITS, type InflateBudget, bytesText } from './limits.js';

/** The compressions MCAP defines for chunks. */
const COMPRESSIONS = ['', 'zstd', 'lz4'];
/**
 * The smallest Message record (opcode, length, channel, sequence, two times): no chunk holds more messages than its
 * size over this.
 */
const MIN_MESSAGE_RECORD = 1 + 8 + 2 + 4 + 8 + 8;
/** Memory per byte of message index while a chunk is held (its entries as JavaScript pairs of bigints). */
const INDEX_COST = 8;
/** The MCAP magic before the header. */
const MAGIC_BYTES = 8n;
/** The footer record (opcode, length, summary start, summary offset start, CRC) and the magic after it. */
const FOOTER_AND_MAGIC = 1n + 8n + 8n + 8n + 4n + MAGIC_BYTES;

const where = (c: ChunkIndex): string => `the chunk at byte ${c.chunkStartOffset}`;

/** The bytes a chunk's messages indexes start at, or null when it has none. */
function indexStart(c: ChunkIndex): bigint | null {
  let m: bigint | null = null;
  for (const o of c.messageIndexOffsets.values()) if (m === null || o < m) m = o;
  return m;
}

/** Where a chunk and its message indexes lie: [start, end). */
function span(c: ChunkIndex): [bigint, bigint] {
  const m = indexStart(c);
  const end = c.chunkStartOffset + c.chunkLength;
  return [c.chunkStartOffset, m === null ? end : m + c.messageIndexLength > end ? m + c.messageIndexLength : end];
}

/** One chunk index on its own: compression, declared sizes, and where it and its message indexes lie. */
function checkOne(bag: string, file: string, c: ChunkIndex, dataEnd: bigint): void {
  const fail = (detail: string, code: 'corrupt' | 'too-large' | 'invalid-input' = 'corrupt'): never => {
    throw new BagError(bag, `${fileOf(bag, file)}${where(c)} ${detail}`, code);
  };
  if (!COMPRESSIONS.includes(c.compression))
    fail(
      `is compressed as ${JSON.stringify(c.compression)}: MCAP chunks are zstd, lz4 or not compressed`,
      'invalid-input',
    );
  if (c.uncompressedSize > BigInt(BAG_LIMITS.inflatedItem)) {
    fail(
      `declares ${bytesText(c.uncompressedSize)} inflated, over ${bytesText(BAG_LIMITS.inflatedItem)} (the limit for one chunk)`,
      'too-large',
    );
  }
  if (c.compressedSize > BigInt(BAG_LIMITS.inflatedItem))
    fail(
      `declares ${bytesText(c.compressedSize)} compressed, over ${bytesText(BAG_LIMITS.inflatedItem)} (the limit for one chunk)`,
      'too-large',
    );
  if (c.compression === '' && c.compressedSize !== c.uncompressedSize)
    fail(`is not compressed, yet declares ${c.compressedSize} bytes stored and ${c.uncompressedSize} inflated`);
  if (
    c.chunkStartOffset < MAGIC_BYTES ||
    c.chunkStartOffset + c.chunkLength > dataEnd ||
    c.chunkLength < c.compressedSize
  ) {
    fail(
      `declares ${c.chunkLength} bytes (${c.compressedSize} of records), which do not lie in the data section (bytes ${MAGIC_BYTES} to ${dataEnd})`,
    );
  }
  if (c.messageStartTime > c.messageEndTime)
    fail(
      `declares its messages from ${c.messageStartTime} to ${c.messageEndTime} ns: its time range ends before it starts`,
    );
  const m = indexStart(c);
  if (m === null) return;
  if (m < c.chunkStartOffset + c.chunkLength || m + c.messageIndexLength > dataEnd)
    fail(
      `has its message indexes at bytes ${m} to ${m + c.messageIndexLength}, not after the chunk in the data section`,
    );
  for (const o of c.messageIndexOffsets.values())
    if (o >= m + c.messageIndexLength)
      fail(`has a message index at byte ${o}, past its message indexes' ${c.messageIndexLength} bytes`);
}

/**
 * The most memory the chunks held at once take: a sweep over their time ranges (closed: a chunk that ends when another
 * starts overlaps it).
 */
function heldAtOnce(chunks: readonly ChunkIndex[]): { bytes: number; at: bigint } {
  const cost = (c: ChunkIndex): number =>
    Number(c.chunkLength > c.uncompressedSize ? c.chunkLength : c.uncompressedSize) +
    INDEX_COST * Number(c.messageIndexLength);
  const events = chunks.flatMap((c) => [
    { t: c.messageStartTime, d: cost(c) },
    { t: c.messageEndTime, d: -cost(c) },
  ]);
  events.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : b.d - a.d));
  let now = 0,
    peak = { bytes: 0, at: 0n };
  for (const e of events) {
    now += e.d;
    if (now > peak.bytes) peak = { bytes: now, at: e.t };
  }
  return peak;
}

/**
 * Checks the chunk indexes of a file before any chunk is read, and takes what the compressed ones
 * inflate to from the bag's budget. `dataEnd`: where the data section ends (the DataEnd record).
 */
export function checkChunkIndexes(
  bag: string,
  file: string,
  chunks: readonly ChunkIndex[],
  dataEnd: bigint,
  budget: InflateBudget,
): void {
  for (const c of chunks) checkOne(bag, file, c, dataEnd);
  const spans = chunks.map((c) => ({ c, s: span(c) })).sort((a, b) => (a.s[0] < b.s[0] ? -1 : a.s[0] > b.s[0] ? 1 : 0));
  for (let i = 1; i < spans.length; i++) {
    const a = spans[i - 1]!,
      b = spans[i]!;
    if (b.s[0] === a.s[0])
      throw new BagError(
        bag,
        `${fileOf(bag, file)}${where(b.c)} is indexed more than once: each chunk is read once`,
        'corrupt',
      );
    if (b.s[0] < a.s[1]) {
      throw new BagError(
        bag,
        `${fileOf(bag, file)}${where(b.c)} overlaps ${where(a.c)} (which with its message indexes runs to byte ${a.s[1]}): each chunk is read once, from bytes of its own`,
        'corrupt',
      );
    }
  }
  const held = heldAtOnce(chunks);
  if (held.bytes > BAG_LIMITS.heldChunks) {
    throw new BagError(
      bag,
      `${fileOf(bag, file)}the chunks whose time ranges overlap at ${held.at} ns declare ${bytesText(held.bytes)} together (inflated, with their message indexes), over ${bytesText(BAG_LIMITS.heldChunks)} (the limit for the chunks held at once)`,
      'too-large',
    );
  }
  const inflated = chunks.filter((c) => c.compression !== '').reduce((n, c) => n + Number(c.uncompressedSize), 0);
  budget.take(inflated, `${fileOf(bag, file)}its ${chunks.length} chunks declare ${bytesText(inflated)} inflated`);
}

/** Reads a little-endian u64 as a bigint, or null past the end. */
const u64 = (v: DataView, at: number): bigint | null => (at + 8 <= v.byteLength ? v.getBigUint64(at, true) : null);

/** A chunk record as read: its header must say what its index says (the reader inflates to the record's own size). */
function checkChunkRecord(c: ChunkIndex, bytes: Uint8Array): void {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bad = (what: string): never => {
    throw new Error(`${where(c)}: its record ${what}, not what its index says`);
  };
  if (bytes[0] !== 0x06) bad(`has opcode ${bytes[0]}, not a chunk's`);
  const size = u64(v, 25),
    nameLen = v.byteLength >= 41 ? v.getUint32(37, true) : null;
  if (size !== c.uncompressedSize) bad(`declares ${size ?? 'no'} bytes inflated`);
  if (nameLen === null || 41 + nameLen > v.byteLength) return bad('is cut short');
  const compression = new TextDecoder().decode(bytes.subarray(41, 41 + nameLen));
  if (compression !== c.compression) bad(`is compressed as ${JSON.stringify(compression)}`);
  const records = u64(v, 41 + nameLen);
  if (records !== c.compressedSize) bad(`holds ${records ?? 'no'} bytes of records`);
}

/**
 * A chunk's message indexes as read: each entry inside the chunk's time range and records, and no more entries than the
 * records can hold.
 */
function checkMessageIndexes(c: ChunkIndex, bytes: Uint8Array): void {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const most = Number(c.uncompressedSize) / MIN_MESSAGE_RECORD;
  let at = 0,
    entries = 0;
  while (at + 9 <= v.byteLength) {
    const op = v.getUint8(at),
      len = Number(v.getBigUint64(at + 1, true)),
      body = at + 9;
    if (body + len > v.byteLength) return; // the reader refuses what is cut short
    if (op === 0x07 && len >= 6) {
      const n = v.getUint32(body + 2, true);
      for (let e = body + 6; e + 16 <= Math.min(body + 6 + n, body + len); e += 16) {
        const t = v.getBigUint64(e, true),
          off = v.getBigUint64(e + 8, true);
        if (t < c.messageStartTime || t > c.messageEndTime)
          throw new Error(
            `${where(c)}: a message index entry is stamped ${t} ns, outside the chunk's time range (${c.messageStartTime} to ${c.messageEndTime} ns)`,
          );
        if (off >= c.uncompressedSize)
          throw new Error(`${where(c)}: a message index entry points to byte ${off} of ${c.uncompressedSize} inflated`);
        if (++entries > most)
          throw new Error(
            `${where(c)}: its message indexes list more messages than its ${c.uncompressedSize} bytes can hold`,
          );
      }
    }
    at = body + len;
  }
}

/**
 * The file as @mcap/core reads it: reads stay inside the file, the summary section (the one read that
 * ends at the footer) is within its limit, and once the chunk indexes are checked (watch), a chunk's
 * record and its message indexes are checked as they are read.
 */
export class GuardedReadable implements IReadable {
  private readonly chunks = new Map<bigint, ChunkIndex>();
  private readonly indexEnds = new Map<bigint, ChunkIndex>();
  constructor(
    private readonly fh: FileHandle,
    private readonly bytes: number,
    private readonly bag: string,
    private readonly file: string,
  ) {}

  watch(chunks: readonly ChunkIndex[]): void {
    for (const c of chunks) {
      this.chunks.set(c.chunkStartOffset, c);
      const m = indexStart(c);
      if (m !== null) this.indexEnds.set(m + c.messageIndexLength, c);
    }
  }

  size(): Promise<bigint> {
    return Promise.resolve(BigInt(this.bytes));
  }

  async read(offset: bigint, size: bigint): Promise<Uint8Array> {
    if (offset < 0n || size < 0n || offset + size > BigInt(this.bytes))
      throw new Error(`a record at byte ${offset} runs ${size} bytes past the end of the file (${this.bytes} bytes)`);
    if (offset + size === BigInt(this.bytes) - FOOTER_AND_MAGIC && size > BigInt(BAG_LIMITS.summaryBytes))
      throw new BagError(
        this.bag,
        `${fileOf(this.bag, this.file)}its summary section (chunk indexes, schemas, channels, statistics) is ${bytesText(size)}, over ${bytesText(BAG_LIMITS.summaryBytes)} (the limit for an MCAP summary)`,
        'too-large',
      );
    const buf = new Uint8Array(Number(size));
    const { bytesRead } = await this.fh.read(buf, 0, buf.length, Number(offset));
    if (bytesRead !== buf.length) throw new Error(`read ${bytesRead} of ${buf.length} bytes at byte ${offset}`);
    const chunk = this.chunks.get(offset);
    if (chunk !== undefined && size === chunk.chunkLength) checkChunkRecord(chunk, buf);
    const indexed = this.indexEnds.get(offset + size);
    if (indexed !== undefined) checkMessageIndexes(indexed, buf);
    return buf;
  }
}

/**
 * zstd and lz4, as @mcap/support inflates them, refusing a size over the limit for one chunk before anything is
 * allocated.
 */
export async function boundedDecompressHandlers(): Promise<DecompressHandlers> {
  const all = await loadDecompressHandlers();
  const bounded =
    (name: string, inflate: (b: Uint8Array, size: bigint) => Uint8Array) =>
    (buffer: Uint8Array, size: bigint): Uint8Array => {
      if (size > BigInt(BAG_LIMITS.inflatedItem))
        throw new Error(
          `a ${name} chunk declares ${bytesText(size)} inflated, over ${bytesText(BAG_LIMITS.inflatedItem)} (the limit for one chunk)`,
        );
      const out = inflate(buffer, size);
      if (BigInt(out.byteLength) !== size)
        throw new Error(`a ${name} chunk inflates to ${out.byteLength} bytes, not the ${size} it declares`);
      return out;
    };
  return { zstd: bounded('zstd', all.zstd!), lz4: bounded('lz4', all.lz4!) };
}

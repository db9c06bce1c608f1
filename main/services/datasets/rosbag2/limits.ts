/**
 * What the rosbag2 readers take from a bag at most. Every size a bag declares — an MCAP chunk's
 * inflated size, an MCAP summary's size, a zstd message's content size, a CDR sequence's length, a
 * .db3 row's blob, the number of files metadata.yaml names — is checked against these before anything is allocated or
 * inflated, so that a damaged or hostile bag is refused (exit 2, naming the file and the limit) in
 * bounded time and memory rather than read until the process runs out of either.
 */
import { sizeText } from '../../../platform/input-files.js';
import { BagError } from './errors.js';

const MB = 1024 * 1024;

export const BAG_LIMITS = {
  /** One MCAP chunk, or one message of a MESSAGE-compressed bag, inflated. */
  inflatedItem: 128 * MB,
  /**
   * MCAP chunks held at once: the chunks whose time ranges overlap are held together while their messages are merged in
   * time order.
   */
  heldChunks: 256 * MB,
  /** All that one bag's chunks and messages inflate to: this many times the size of its files… */
  inflateRatio: 64,
  /** …and at least this much. */
  inflateFloor: 1024 * MB,
  /**
   * An MCAP file's summary section (chunk indexes, schemas, channels, statistics): read whole and parsed into objects
   * several times its size.
   */
  summaryBytes: 64 * MB,
  /** The storage files metadata.yaml may name. */
  files: 1024,
  /** One message as stored (a .db3 row's data). */
  messageBytes: 128 * MB,
  /** The values one decoded message may hold: elements of arrays of messages, booleans, strings and times. */
  decodedValues: 1 << 20,
  /** Topics in one storage file. */
  topics: 65_536,
  /** A topic's name, type or serialization format, a definition's type and encoding (characters). */
  nameChars: 4096,
  /** One message definition as a .db3 stores it (bytes). */
  definitionBytes: 1 * MB,
} as const;

const INFLATE_RULE = `${BAG_LIMITS.inflateRatio} times the size of its files, at least ${sizeText(BAG_LIMITS.inflateFloor)}`;

/**
 * How much one bag may still inflate (its MCAP chunks and zstd messages together); each inflation
 * takes its declared size first, so that a bag of a few kilobytes cannot make gigabytes of work.
 */
export class InflateBudget {
  private used = 0;
  readonly limit: number;
  constructor(
    private readonly bag: string,
    fileBytes: number,
  ) {
    this.limit = Math.max(BAG_LIMITS.inflateFloor, BAG_LIMITS.inflateRatio * fileBytes);
  }

  /** Takes `bytes` for `what` (which names the file and the record), or refuses past the limit. */
  take(bytes: number, what: string): void {
    if (this.used + bytes > this.limit) {
      throw new BagError(
        this.bag,
        `${what}: that takes the bag past ${sizeText(this.limit)} inflated (the limit for a bag: ${INFLATE_RULE})`,
        'too-large',
      );
    }
    this.used += bytes;
  }
}

/** `n` bytes, in MB when it is a whole number of them (as the other input limits say theirs). */
export const bytesText = (n: number | bigint): string =>
  typeof n === 'bigint' ? (n <= BigInt(Number.MAX_SAFE_INTEGER) ? sizeText(Number(n)) : `${n} bytes`) : sizeText(n);

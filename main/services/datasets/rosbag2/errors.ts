/** The one error of the rosbag2 readers: the bag is named first, then the topic and time where there is one. */
import { WitnessError, type ErrorCode } from '../../../contract/errors.js';

export class BagError extends WitnessError {
  override readonly name = 'BagError';
  constructor(
    readonly bag: string,
    detail: string,
    code: ErrorCode = 'invalid-input',
    options?: { cause?: unknown },
  ) {
    super(code, `${bag}: ${detail}`, { file: bag }, options);
  }
}

/** A stamp in nanoseconds since the epoch as seconds with all nine decimals: `1700000000.250000000 s`. */
export function stampText(ns: bigint): string {
  const neg = ns < 0n,
    a = neg ? -ns : ns;
  return `${neg ? '-' : ''}${a / 1_000_000_000n}.${(a % 1_000_000_000n).toString().padStart(9, '0')} s`;
}

export const errText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * `file: ` before a detail about one file of a bag, or nothing when the bag is that file (its message starts with it).
 */
export const fileOf = (bag: string, file: string): string => (file === bag ? '' : `${file}: `);

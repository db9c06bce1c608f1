/** How the CLI reports failures: one line on stderr, the exit code of the error's code (contract/errors.ts). */
import { EXIT, type ErrorCode, WitnessError, exitCodeOf, pathError } from '../contract/errors.js';
import { printable } from './printable.js';

export { EXIT };

/** A failure of the command line itself (a flag, a combination of flags); exit 2 unless told. */
export class CliError extends WitnessError {
  override name = 'CliError';
  constructor(message: string, exitCode: number = EXIT.usage) {
    super(CODE_OF_EXIT[exitCode] ?? 'invalid-input', message);
  }
}

const CODE_OF_EXIT: Readonly<Record<number, ErrorCode>> = {
  [EXIT.negative]: 'negative',
  [EXIT.budget]: 'budget',
  [EXIT.unavailable]: 'unavailable',
  [EXIT.internal]: 'internal',
};

export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** Where a command may ask the operator (default: process.stdin); tests pass their own. */
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
}

export const processOutput: Output = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/**
 * Maps an error to its one-line report and exit code. `where` prefixes positions (a file name): a
 * syntax error reads `error: FILE:LINE:COL: …`, a budget `error: budget: FILE: …`.
 */
export function report(e: unknown, io: Output, where?: string): number {
  // A file-system error about a path that no reader named (a folder that cannot be created) is still the path's
  // problem, not a bug.
  e = pathError(e) ?? e;
  if (!(e instanceof WitnessError) || e.code === 'internal') {
    const msg = e instanceof Error ? e.message : String(e);
    io.err(`error: internal: ${printable(clipMessage(msg))}\n`);
    return EXIT.internal;
  }
  // Messages quote what was read (a value, a server's reply): shown with its control characters escaped.
  const msg = printable(clipMessage(e.message));
  if (e.code === 'budget') io.err(`error: budget: ${where !== undefined ? `${where}: ` : ''}${msg}\n`);
  else if (e.code === 'invalid-spec' && e.at.line !== undefined && where !== undefined)
    io.err(`error: ${where}:${msg}\n`);
  else io.err(`error: ${msg}\n`);
  return exitCodeOf(e.code);
}

/** The longest error message shown whole; a longer one (quoting a hostile value) keeps its start and end. */
export const MAX_MESSAGE = 2000;

export function clipMessage(m: string): string {
  if (m.length <= MAX_MESSAGE) return m;
  return `${m.slice(0, MAX_MESSAGE - 500)}… (${m.length - MAX_MESSAGE} characters not shown) …${m.slice(-500)}`;
}

/**
 * Error codes: one table that says, for every kind of failure Witness reports, what it means and
 * which exit code the `witness` command gives it. The API reports the same codes (ApiError.code),
 * so the CLI, the web UI and the desktop app name a failure alike. Errors raised anywhere in main
 * carry their code (WitnessError); whatever carries none is an internal error.
 */

/** Exit codes of the `witness` command (docs/CLI.md). */
export const EXIT = {
  ok: 0,
  /** The answer is "no" (a word violates a formula, a check failed, a mission failed). */
  negative: 1,
  /** Malformed input: formula syntax, flags, files, fields. */
  usage: 2,
  /** A budget (length, nesting, states, time) was exceeded, or the task is infeasible. */
  budget: 3,
  /** ROS 2 cannot be used here: not sourced, rclnodejs not installed or not loading (the message says the fix). */
  unavailable: 4,
  /** A safety stop: the robot entered a region its specification forbids, and the mission stopped it. */
  safety: 5,
  /** A bug: the message says what failed. */
  internal: 70,
  /** Interrupted by Ctrl-C. */
  interrupted: 130,
} as const;

/** Every error code, what it means, and its exit code. */
const ERROR_CODES = {
  'invalid-input': {
    exit: EXIT.usage,
    means: 'a file, a field of it, or a flag is malformed (the message names the file and the JSON path)',
  },
  'invalid-params': {
    exit: EXIT.usage,
    means: 'an API request does not match its schema (the message names the parameter)',
  },
  'invalid-spec': {
    exit: EXIT.usage,
    means: 'the LTL specification does not parse, or names what the task does not define',
  },
  'invalid-regions': { exit: EXIT.usage, means: 'the regions document is malformed' },
  'invalid-graph': { exit: EXIT.usage, means: 'the graph document is malformed' },
  'invalid-path': { exit: EXIT.usage, means: 'a path is not allowed (absolute, or climbing out of the workspace)' },
  'unknown-method': { exit: EXIT.usage, means: 'the API has no such method' },
  'not-found': { exit: EXIT.usage, means: 'a file, world, run or model bundle does not exist' },
  'not-a-file': { exit: EXIT.usage, means: 'a path names a folder or a device, not a file' },
  'not-text': { exit: EXIT.usage, means: 'a file is not UTF-8 text' },
  'too-large': { exit: EXIT.usage, means: 'a file is larger than the limit for what it is used for' },
  forbidden: { exit: EXIT.usage, means: 'the request reaches outside what it may (the workspace, the app page)' },
  conflict: { exit: EXIT.usage, means: 'the target changed or exists already' },
  busy: { exit: EXIT.usage, means: 'the same work is already running' },
  'estop-latched': {
    exit: EXIT.usage,
    means: 'the emergency stop is latched: nothing starts, resumes or retries until an operator resets it',
  },
  'not-sqlite': { exit: EXIT.usage, means: 'the file is not an SQLite database' },
  'not-audit-database': { exit: EXIT.usage, means: 'the SQLite database is not a Witness audit log' },
  'schema-version': { exit: EXIT.usage, means: 'the audit database has a schema version this build does not read' },
  tampered: {
    exit: EXIT.usage,
    means:
      'the audit database is not as Witness writes it (a schema Witness does not create, or rows that did not land as written): it was altered, and `witness audit verify` says where',
  },
  corrupt: { exit: EXIT.usage, means: 'the file is corrupt or truncated' },
  locked: { exit: EXIT.usage, means: 'another process holds the database locked' },
  unreadable: { exit: EXIT.usage, means: 'the file cannot be read (permissions, I/O)' },
  world: {
    exit: EXIT.usage,
    means: 'the world refused or failed a call (timeout, rejected goal, disconnected robot; the message says which)',
  },
  negative: { exit: EXIT.negative, means: 'the answer is no' },
  budget: { exit: EXIT.budget, means: 'a size or time budget was exceeded' },
  infeasible: { exit: EXIT.budget, means: 'no plan satisfies the specification on this graph' },
  unavailable: {
    exit: EXIT.unavailable,
    means: 'ROS 2 or rclnodejs is not available in this process (the message says the fix)',
  },
  cancelled: { exit: EXIT.interrupted, means: 'the operator cancelled the work' },
  internal: { exit: EXIT.internal, means: 'a bug; the message says what failed' },
} as const satisfies Record<string, { readonly exit: number; readonly means: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (x: unknown): x is ErrorCode => typeof x === 'string' && Object.hasOwn(ERROR_CODES, x);

/** The exit code of an error code; unknown codes are internal errors. */
export function exitCodeOf(code: string): number {
  return isErrorCode(code) ? ERROR_CODES[code].exit : EXIT.internal;
}

/** Where a problem is: a file, a JSON path (or a flag), a 1-based line and column. */
export interface ErrorLocation {
  readonly file?: string;
  readonly path?: string;
  readonly line?: number;
  readonly column?: number;
}

/**
 * A failure Witness reports on purpose: its code decides the exit code and the API error code, its
 * message is what the person reads (it names what and where), `at` locates it for editors and forms.
 */
export class WitnessError extends Error {
  override name = 'WitnessError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly at: ErrorLocation = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * File-system failures (their errno codes) that are about the path a person gave, not a bug: what
 * each means in words, and the code it is reported with. A dangling link is told apart where the
 * path can be looked at (platform/files.ts fsFailure).
 */
export const PATH_ERRNO: Readonly<Record<string, { readonly code: ErrorCode; readonly means: string }>> = {
  ENOENT: { code: 'not-found', means: 'no such file or folder' },
  ENAMETOOLONG: {
    code: 'invalid-input',
    means: 'the name is too long for the file system (a name over 255 bytes, or a path over 4095)',
  },
  ELOOP: { code: 'invalid-input', means: 'too many levels of symbolic links (links that lead back to themselves)' },
  ENOTDIR: { code: 'invalid-input', means: 'a part of the path is not a folder' },
  EEXIST: { code: 'invalid-input', means: 'a file is in the way where a folder is needed' },
  EISDIR: { code: 'not-a-file', means: 'is a folder, not a file' },
  EACCES: { code: 'unreadable', means: 'permission denied' },
  EPERM: { code: 'unreadable', means: 'operation not permitted' },
  EROFS: { code: 'invalid-input', means: 'the file system is read-only' },
  ENOSPC: { code: 'invalid-input', means: 'no space left on the device' },
  EDQUOT: { code: 'invalid-input', means: 'the disk quota is exceeded' },
  EFBIG: { code: 'too-large', means: 'the file is too large for the file system' },
  EXDEV: { code: 'invalid-input', means: 'the target is on another file system' },
  ENXIO: { code: 'invalid-input', means: 'no such device or address (a FIFO with no reader, a socket)' },
  EIO: { code: 'unreadable', means: 'an input/output error on the device' },
};

/**
 * A file-system error about a path (Node's errors carry `code` and `path`) as the WitnessError it is; null for anything
 * else.
 */
export function pathError(e: unknown): WitnessError | null {
  if (e instanceof WitnessError || !(e instanceof Error)) return null;
  const { code, path, syscall } = e as Error & { code?: unknown; path?: unknown; syscall?: unknown };
  const known = typeof code === 'string' ? PATH_ERRNO[code] : undefined;
  if (known === undefined || typeof path !== 'string') return null;
  return new WitnessError(
    known.code,
    `${path}: ${typeof syscall === 'string' ? `cannot ${syscall}: ` : ''}${code as string}: ${known.means}`,
    { file: path },
    { cause: e },
  );
}

/** A failure as the API reports it, and as every front end reads it: code, message, location. */
export interface ErrorReport {
  code: ErrorCode;
  message: string;
  line?: number;
  column?: number;
  /** A JSON path (or flag) in the request or file, else the file. */
  path?: string;
}

/**
 * The one mapping from a thrown value to its report: a WitnessError keeps its code and location, a file-system error
 * about a path is one (pathError); anything else is internal.
 */
export function errorReport(e: unknown): ErrorReport {
  e = pathError(e) ?? e;
  if (e instanceof WitnessError) {
    const where = e.at.path ?? e.at.file;
    return {
      code: e.code,
      message: e.message,
      ...(e.at.line !== undefined ? { line: e.at.line } : {}),
      ...(e.at.column !== undefined ? { column: e.at.column } : {}),
      ...(where !== undefined ? { path: where } : {}),
    };
  }
  return { code: 'internal', message: `internal error: ${e instanceof Error ? e.message : String(e)}` };
}

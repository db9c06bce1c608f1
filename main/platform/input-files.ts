/**
 * The one reader of files a person names: every input given on the command line or in the app (a
 * graph, regions, a formula file, tool files, datasets, models, maps, configurations and the files
 * they name) is read here, with a size limit for what it is used for. A folder is refused, a file
 * over its limit is refused before it is read (by its size when it is a regular file, by a running
 * count when it is a pipe or a device, whose size says nothing: /dev/zero has size 0), and the
 * reading never holds the process: a FIFO that nobody writes to is waited on in the event loop (a
 * pipe handle, not a blocked thread), so Ctrl-C and SIGTERM still end the process.
 *
 * Readers for synchronous callers (world configurations resolved while a world is looked up) take
 * regular files only: a pipe read synchronously would hold the process until it ends.
 */
import { close, closeSync, constants, fstat, fstatSync, open, openSync, read, readSync, type Stats } from 'node:fs';
import { Socket } from 'node:net';
import { promisify } from 'node:util';
import { WitnessError } from '../contract/errors.js';
import { FileError, errText, errno, fsFailure } from './files.js';

const MB = 1024 * 1024;

/** What an input is used for, and the most bytes it may have. */
export interface InputKind {
  readonly maxBytes: number;
  /** In words, for the message: "the limit for <what>". */
  readonly what: string;
  /** How to raise the limit, when it can be raised. */
  readonly hint?: string;
}

/** The limits of the text and small binary inputs; datasets have their own (datasetInput). */
export const INPUT = {
  graph: { maxBytes: 64 * MB, what: 'a graph' },
  regions: { maxBytes: 16 * MB, what: 'a regions file' },
  tools: { maxBytes: 16 * MB, what: 'a tool file' },
  plan: { maxBytes: 16 * MB, what: 'a scripted plan' },
  rules: { maxBytes: 16 * MB, what: 'a rules file' },
  formula: { maxBytes: 1 * MB, what: 'a formula file' },
  config: { maxBytes: 16 * MB, what: 'a configuration file' },
  layout: { maxBytes: 16 * MB, what: 'a maze layout' },
  scene: { maxBytes: 64 * MB, what: 'an MJCF scene' },
  map: { maxBytes: 16 * MB, what: 'a map YAML file' },
  mapImage: { maxBytes: 256 * MB, what: 'a map image' },
  model: { maxBytes: 512 * MB, what: 'an ONNX model' },
  checkpoint: { maxBytes: 256 * MB, what: 'a training checkpoint' },
  results: { maxBytes: 256 * MB, what: 'a benchmark results file' },
} as const satisfies Record<string, InputKind>;

/** The environment variable that sets the dataset limit in MB. */
export const DATASET_LIMIT_ENV = 'WITNESS_MAX_DATASET_MB';
const DEFAULT_DATASET_MB = 1024;

/**
 * The limit of a dataset file (.wds, .npz) and of what an .npz inflates to: 1024 MB unless
 * WITNESS_MAX_DATASET_MB says otherwise (a whole number of MB; up to 4096, what one buffer holds).
 */
export function datasetInput(env: NodeJS.ProcessEnv = process.env): InputKind {
  const raw = env[DATASET_LIMIT_ENV];
  let mb = DEFAULT_DATASET_MB;
  if (raw !== undefined && raw !== '') {
    if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > 4096) {
      throw new WitnessError(
        'invalid-input',
        `${DATASET_LIMIT_ENV}=${raw}: expected a whole number of MB from 1 to 4096`,
        { path: DATASET_LIMIT_ENV },
      );
    }
    mb = Number(raw);
  }
  return { maxBytes: mb * MB, what: 'a dataset', hint: `set ${DATASET_LIMIT_ENV} to raise it` };
}

/** A size in words: whole MB when it is one, else bytes. */
export function sizeText(bytes: number): string {
  return bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes} bytes`;
}

/**
 * An input refused for what it is (a folder, a pipe where a file is needed) or its size: reported as is, never
 * rewrapped.
 */
export class InputRefused extends FileError {
  override name = 'InputRefused';
  constructor(file: string, detail: string, code: 'too-large' | 'not-a-file') {
    super(file, detail, { code });
  }
}

const tooLarge = (file: string, k: InputKind): InputRefused =>
  new InputRefused(
    file,
    `larger than ${sizeText(k.maxBytes)} (the limit for ${k.what}${k.hint !== undefined ? `; ${k.hint}` : ''})`,
    'too-large',
  );

/** The system's short reason a read failed (ENOENT, EACCES…), for messages that name the file themselves. */
export function readFailure(e: unknown): string {
  return (e instanceof FileError ? errno(e.cause) : errno(e)) ?? errText(e);
}

const folder = (file: string): InputRefused => new InputRefused(file, 'is a folder, not a file', 'not-a-file');
const cannotRead = (file: string, e: unknown): FileError => {
  const f = fsFailure(file, e);
  return new FileError(file, `cannot read: ${f.detail}`, { cause: e, code: f.code });
};

/**
 * Opened without waiting for a FIFO's writer (O_NONBLOCK; a regular file reads as usual). Windows has
 * no such flag and no FIFOs of this kind.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** Reads of pipes and devices, and of regular files past their size (a file that grows). */
const CHUNK = MB;
/** fs.read takes at most this many bytes at once. */
const MAX_READ = 1024 * MB;
/** How long a device that has nothing yet (EAGAIN: a terminal) is left before it is read again. */
const RETRY_MS = 20;

const openAsync = promisify(open),
  fstatAsync = promisify(fstat),
  closeAsync = promisify(close);
const readAsync = (fd: number, buf: Buffer): Promise<number> =>
  new Promise((resolve, reject) => read(fd, buf, 0, buf.length, null, (e, n) => (e ? reject(e) : resolve(n))));

/** Collects chunks with a running count; past the limit it refuses. */
class Collected {
  private readonly chunks: Buffer[] = [];
  total = 0;
  constructor(
    private readonly file: string,
    private readonly k: InputKind,
  ) {}
  /**
   * A buffer for the next read: the rest of a regular file's size (so a file read whole is one
   * buffer, never copied), then a chunk; one byte past the limit at most.
   */
  next(sizeHint: number): Buffer {
    const want = this.total < sizeHint ? sizeHint - this.total : CHUNK;
    return Buffer.allocUnsafeSlow(Math.min(want, this.k.maxBytes + 1 - this.total, MAX_READ));
  }
  add(buf: Buffer, n: number): void {
    this.total += n;
    if (this.total > this.k.maxBytes) throw tooLarge(this.file, this.k);
    if (n > 0) this.chunks.push(n === buf.length ? buf : buf.subarray(0, n));
  }
  bytes(): Uint8Array {
    const only = this.chunks[0];
    if (this.chunks.length === 1 && only !== undefined && only.byteLength === only.buffer.byteLength) return only;
    return Buffer.concat(this.chunks, this.total);
  }
}

/** Checks what was opened: a folder is refused, a regular file over the limit is refused before reading. */
function admit(file: string, st: Stats, k: InputKind): void {
  if (st.isDirectory()) throw folder(file);
  if (st.isFile() && st.size > k.maxBytes) throw tooLarge(file, k);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A FIFO or socket, through a pipe handle: waiting for data (or for a writer) holds no thread. The handle owns `fd`.
 */
function readPipe(fd: number, file: string, k: InputKind): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const c = new Collected(file, k);
    let s: Socket;
    try {
      s = new Socket({ fd, readable: true, writable: false });
    } catch (e) {
      closeSync(fd);
      reject(cannotRead(file, e));
      return;
    }
    s.on('data', (b: Buffer) => {
      if (c.total + b.length > k.maxBytes) {
        s.destroy();
        reject(tooLarge(file, k));
      } else {
        c.add(b, b.length);
      }
    });
    s.once('end', () => {
      s.destroy();
      resolve(c.bytes());
    });
    s.once('error', (e) => {
      s.destroy();
      reject(cannotRead(file, e));
    });
  });
}

/**
 * The bytes of a file a person named, at most `k.maxBytes` of them. Refusals (a folder, too large)
 * are InputRefused with code 'not-a-file' or 'too-large'; a missing file is a FileError with code
 * 'not-found'; other failures a FileError naming the file and the system's reason.
 */
export async function readInputFile(file: string, k: InputKind): Promise<Uint8Array> {
  let fd: number;
  try {
    fd = await openAsync(file, OPEN_FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EISDIR') throw folder(file);
    throw cannotRead(file, e);
  }
  let st: Stats;
  try {
    st = await fstatAsync(fd);
    admit(file, st, k);
  } catch (e) {
    await closeAsync(fd).catch(() => undefined);
    throw e instanceof WitnessError ? e : cannotRead(file, e);
  }
  if (st.isFIFO() || st.isSocket()) return readPipe(fd, file, k);
  try {
    const c = new Collected(file, k);
    const sizeHint = st.isFile() ? st.size : 0;
    for (;;) {
      const buf = c.next(sizeHint);
      let n: number;
      try {
        n = await readAsync(fd, buf);
      } catch (e) {
        // A device opened non-blocking that has nothing yet (a terminal): ask again shortly.
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
          await sleep(RETRY_MS);
          continue;
        }
        throw cannotRead(file, e);
      }
      c.add(buf, n);
      if (n === 0) return c.bytes();
    }
  } finally {
    await closeAsync(fd).catch(() => undefined);
  }
}

/** The file's text (UTF-8; a byte-order mark is dropped). */
export async function readInputText(file: string, k: InputKind): Promise<string> {
  return new TextDecoder('utf-8').decode(await readInputFile(file, k));
}

/**
 * The bytes of a regular file, synchronously. A pipe or a device is refused: read at once, it would
 * hold the process (Ctrl-C included) until its writer ends it.
 */
export function readInputFileSync(file: string, k: InputKind): Uint8Array {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EISDIR') throw folder(file);
    throw cannotRead(file, e);
  }
  try {
    let st: Stats;
    try {
      st = fstatSync(fd);
    } catch (e) {
      throw cannotRead(file, e);
    }
    admit(file, st, k);
    if (!st.isFile())
      throw new InputRefused(
        file,
        `is not a regular file (a pipe or a device): ${k.what} is read at once; give a regular file`,
        'not-a-file',
      );
    const c = new Collected(file, k);
    for (;;) {
      const buf = c.next(st.size);
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        throw cannotRead(file, e);
      }
      c.add(buf, n);
      if (n === 0) return c.bytes();
    }
  } finally {
    try {
      closeSync(fd);
    } catch {
      /* already closed */
    }
  }
}

/** The text of a regular file, synchronously (UTF-8; a byte-order mark is dropped). */
export function readInputTextSync(file: string, k: InputKind): string {
  return new TextDecoder('utf-8').decode(readInputFileSync(file, k));
}

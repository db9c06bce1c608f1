/**
 * The one atomic file writer. A reader (or a crash) sees either the old file or the complete new one,
 * never a half-written file: the content goes into a sibling temporary file (or folder), is flushed
 * to disk (fsync), and is then renamed over the target. A failure or an interruption removes the
 * temporary, and errors name the file and what went wrong. Everything Witness writes for a person
 * to keep — datasets, graphs, model bundles, checkpoints, exports, pictures, workspace files — goes
 * through here. It writes only to a regular file or a new name: a folder, a device node, a FIFO or a
 * socket (or a symbolic link to one) is refused, never replaced. (What Witness reads from a person goes through
 * platform/input-files.ts.) It is also the only module of main/ that writes files with node:fs (lint
 * refuses its writing functions elsewhere): the durable journal line (appendLineDurable) and the
 * private copy of a file to read (privateCopy) are here too. The audit log's SQLite database is written
 * by SQLite, not here.
 */
import {
  type Stats,
  appendFileSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { type FileHandle, lstat, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { type ErrorCode, PATH_ERRNO, WitnessError } from '../contract/errors.js';
import { holdSignals } from './interrupt.js';

/**
 * A file could not be read or written; `file` is the path the person gave. Its code is 'not-found'
 * when the cause is ENOENT, the given code when there is one, else 'invalid-input'.
 */
export class FileError extends WitnessError {
  override name = 'FileError';
  constructor(
    readonly file: string,
    readonly detail: string,
    options?: ErrorOptions & { readonly code?: ErrorCode },
  ) {
    super(
      options?.code ??
        (options?.cause !== undefined && errno(options.cause) === 'ENOENT' ? 'not-found' : 'invalid-input'),
      `${file}: ${detail}`,
      { file },
      options,
    );
  }
}

export const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;
export const errText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The first of `p` and its ancestors that is a symbolic link to nothing, with where it points; null when none is. */
function danglingLink(p: string): { link: string; to: string } | null {
  for (let at = path.resolve(p); ; at = path.dirname(at)) {
    try {
      if (lstatSync(at).isSymbolicLink()) {
        try {
          statSync(at);
        } catch (e) {
          if (errno(e) === 'ENOENT') return { link: at, to: readlinkSync(at) };
        }
      }
    } catch {
      /* not there: look further up */
    }
    if (path.dirname(at) === at) return null;
  }
}

/**
 * Why a file-system call on `file` failed, in words a person can act on, and the code to report it
 * with: the errno code and what it means (contract/errors.ts PATH_ERRNO: a name too long, a loop of
 * links, a part of the path that is not a folder, …), a dangling link named with where it points,
 * never the path twice (Node's messages repeat it, and a 4000-byte name would fill the screen).
 */
export function fsFailure(file: string, e: unknown): { code: ErrorCode; detail: string } {
  const code = errno(e);
  const known = code !== undefined ? PATH_ERRNO[code] : undefined;
  if (known === undefined) return { code: 'invalid-input', detail: errText(e) };
  if (code === 'ENOENT') {
    const d = danglingLink(file);
    if (d !== null)
      return {
        code: 'invalid-input',
        detail: `ENOENT: ${d.link === path.resolve(file) ? 'it' : d.link} is a symbolic link to ${d.to}, which does not exist`,
      };
  }
  return { code: known.code, detail: `${code}: ${known.means}` };
}

/**
 * Temporary files and folders being written right now (removed when the process is interrupted),
 * each with its hold on the signals: while one exists, Ctrl-C and SIGTERM are handled by the process
 * (which removes them) rather than by their default action.
 */
const inFlight = new Map<string, () => void>();

const startWrite = (tmp: string): void => void inFlight.set(tmp, holdSignals());
const endWrite = (tmp: string): void => {
  inFlight.get(tmp)?.();
  inFlight.delete(tmp);
};

/** Removes what a terminated writer of `target` (a worker stopped mid-write) left behind: its temporary siblings. */
export async function removeTempSiblings(target: string): Promise<void> {
  const dir = path.dirname(target),
    prefix = `.${path.basename(target)}.tmp-`;
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names.filter((f) => f.startsWith(prefix)).map((f) => rm(path.join(dir, f), { recursive: true, force: true })),
  );
}

/** Removes the temporaries of writes still in flight; for a process that is being interrupted. */
export function removeInFlightWrites(): void {
  for (const tmp of [...inFlight.keys()]) {
    rmSync(tmp, { recursive: true, force: true });
    endWrite(tmp);
  }
}

/**
 * The folder of `target` could not be created (a part of its path a file, a dangling link, a name too long): a
 * FileError naming `target`.
 */
export function folderFailure(target: string, e: unknown): FileError {
  const f = fsFailure(target, e);
  return new FileError(target, `cannot create its folder: ${f.detail}`, { cause: e, code: f.code });
}

/** What a path that is there but is not a regular file is, in words; null for a regular file. */
function kindOf(st: Stats): string | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/**
 * Why `target` may not be written: it is (or a symbolic link leads to) a folder, a device, a FIFO or
 * a socket; null when it is a regular file or a new name (nothing there, or a link to nothing).
 * Renaming a file over a device node (as root, /dev/null) would replace the device: never done.
 */
export function notWritable(target: string): string | null {
  let st: Stats;
  try {
    st = statSync(target);
  } catch {
    return null;
  }
  const kind = kindOf(st);
  if (kind === null) return null;
  const link = (() => {
    try {
      return lstatSync(target).isSymbolicLink();
    } catch {
      return false;
    }
  })();
  return link ? `is a symbolic link to ${kind}` : `is ${kind}`;
}

async function refuseSpecial(target: string): Promise<void> {
  const st = await stat(target).catch(() => null);
  const kind = st === null ? null : kindOf(st);
  if (kind === null) return;
  const link = await lstat(target).then(
    (l) => l.isSymbolicLink(),
    () => false,
  );
  throw new FileError(
    target,
    `${link ? `is a symbolic link to ${kind}` : `is ${kind}`}, not a regular file; only a regular file or a new name is written, and ${kind} is never replaced`,
    { code: 'not-a-file' },
  );
}

/** A sibling of `target` that no one else uses: hidden, tagged with the process and random bytes. */
function tempSibling(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`,
  );
}

export interface WriteOptions {
  /** File mode of a new file (an existing file keeps its own). */
  readonly mode?: number;
  /** Create the parent folder when it is missing. */
  readonly mkdir?: boolean;
}

/**
 * Streams into a temporary sibling through `fill`, then fsyncs and renames it over `target`.
 * `fill` writes with the handle it is given; when it throws, nothing is left behind.
 */
export async function writeAtomicWith(
  target: string,
  fill: (fh: FileHandle) => Promise<void>,
  o: WriteOptions = {},
): Promise<void> {
  if (o.mkdir === true)
    await mkdir(path.dirname(target), { recursive: true }).catch((e: unknown) => {
      throw folderFailure(target, e);
    });
  await refuseSpecial(target);
  const mode = await stat(target).then(
    (s) => s.mode & 0o777,
    () => o.mode ?? 0o644,
  );
  const tmp = tempSibling(target);
  startWrite(tmp);
  try {
    const fh = await open(tmp, 'wx', mode);
    try {
      await fill(fh);
      await fh.sync();
    } finally {
      await fh.close();
    }
    // Again at the end: what was a new name may have become a FIFO or a device meanwhile.
    await refuseSpecial(target);
    await rename(tmp, target);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    if (e instanceof WitnessError) throw e;
    const f = fsFailure(target, e);
    throw new FileError(target, `cannot write: ${f.detail}`, { cause: e, code: f.code });
  } finally {
    endWrite(tmp);
  }
}

/** Where a streaming writer puts its bytes: `write` resolves once the file stream can take more (back-pressure). */
export interface ByteSink {
  write(chunk: Uint8Array | string): Promise<void>;
  /** Bytes written so far. */
  readonly bytes: number;
}

/**
 * Streams into a temporary sibling, then fsyncs and renames it over `target` (as writeAtomicWith).
 * What `fill` writes is gathered into blocks of about `blockBytes` (so many small writes, one per
 * line, stay cheap) and written with back-pressure: one block is in flight at a time, and `write`
 * waits for it before it hands over the next. So what is held at any time is about two blocks,
 * whatever the file's size. (Not an fs.WriteStream over the handle: ending one closes the handle
 * before the fsync, and FileHandle.close waits on a stream that is kept open.) When `fill` throws,
 * or a write fails, nothing is left behind; an error of `fill`'s own is thrown as it is, a failed
 * write as a FileError naming the target.
 */
export async function writeAtomicStream(
  target: string,
  fill: (sink: ByteSink) => Promise<void>,
  o: WriteOptions & { readonly blockBytes?: number } = {},
): Promise<void> {
  const blockBytes = o.blockBytes ?? 1 << 16;
  // What `fill` throws of its own (a database it reads failing, a cancel) passes through as it is;
  // only a failed write is a FileError naming the target.
  let failed: { readonly error: unknown } | null = null,
    own: { readonly error: unknown } | null = null;
  await writeAtomicWith(
    target,
    async (fh) => {
      let inFlight: Promise<void> = Promise.resolve();
      let pending: (Uint8Array | string)[] = [],
        pendingBytes = 0,
        bytes = 0;
      const settle = async (): Promise<void> => {
        await inFlight;
        if (failed !== null) throw failed.error;
      };
      const flush = async (): Promise<void> => {
        await settle();
        if (pendingBytes === 0) return;
        const block = pending.every((c) => typeof c === 'string')
          ? pending.join('')
          : Buffer.concat(pending.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
        pending = [];
        pendingBytes = 0;
        inFlight = (typeof block === 'string' ? fh.write(block) : fh.write(block)).then(
          () => undefined,
          (e: unknown) => {
            failed ??= { error: e };
          },
        );
      };
      const sink: ByteSink = {
        get bytes() {
          return bytes;
        },
        async write(chunk) {
          const n = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
          bytes += n;
          pending.push(chunk);
          pendingBytes += n;
          if (pendingBytes >= blockBytes) await flush();
        },
      };
      try {
        await fill(sink);
        await flush();
      } catch (e) {
        if (failed === null || e !== failed.error) own = { error: e };
        throw e;
      } finally {
        await inFlight; // never rejects: a failure is in `failed`
      }
      await settle();
    },
    o,
  ).catch((e: unknown) => {
    throw own !== null ? own.error : e;
  });
}

/** Writes bytes (or text, as UTF-8) atomically. */
export async function writeFileAtomic(
  target: string,
  content: Uint8Array | string,
  o: WriteOptions = {},
): Promise<void> {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  await writeAtomicWith(
    target,
    async (fh) => {
      await fh.writeFile(bytes);
    },
    o,
  );
}

export interface FolderOptions {
  /**
   * What may already be in the target folder: it is replaced only when every entry it holds is one
   * of these names (so `--out .` can never delete a person's files). Default: only what is written.
   */
  readonly replaceable?: readonly string[];
  /** Keep the target's other entries and only add or replace the files written (no folder swap). */
  readonly merge?: boolean;
}

/**
 * Writes a folder of files atomically: every file is written and fsynced into a temporary sibling
 * folder, which then replaces the target (or, with `merge`, whose files are renamed into it one by
 * one: each file atomic, the set not). Refuses a target that holds anything else, naming it.
 */
export async function writeFolderAtomic(
  target: string,
  files: Readonly<Record<string, Uint8Array | string>>,
  o: FolderOptions = {},
): Promise<void> {
  const names = Object.keys(files);
  for (const n of names)
    if (n === '' || n.includes('/') || n.includes('\\') || n === '.' || n === '..')
      throw new FileError(target, `"${n}" is not a file name`);
  const existing = await readdir(target).catch((e: unknown) => {
    if (errno(e) === 'ENOENT') return null;
    const f = fsFailure(target, e);
    throw new FileError(target, `cannot read the folder: ${f.detail}`, { cause: e, code: f.code });
  });
  if (existing !== null && o.merge !== true) {
    const allowed = new Set([...names, ...(o.replaceable ?? [])]);
    const extra = existing.filter((f) => !allowed.has(f));
    if (extra.length > 0)
      throw new FileError(
        target,
        `exists and holds other files (${extra.slice(0, 3).join(', ')}${extra.length > 3 ? ', …' : ''}); give a new folder or one that holds only ${[...allowed].join(', ')}`,
      );
  }
  await mkdir(path.dirname(path.resolve(target)), { recursive: true }).catch((e: unknown) => {
    throw folderFailure(target, e);
  });
  const tmp = tempSibling(target);
  startWrite(tmp);
  try {
    await mkdir(tmp);
    for (const [name, content] of Object.entries(files)) {
      const fh = await open(path.join(tmp, name), 'wx', 0o644);
      try {
        await fh.writeFile(typeof content === 'string' ? new TextEncoder().encode(content) : content);
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
    if (o.merge === true) {
      await mkdir(target, { recursive: true });
      for (const name of names) await rename(path.join(tmp, name), path.join(target, name));
    } else {
      if (existing !== null) await rm(target, { recursive: true, force: true });
      await rename(tmp, target);
    }
  } catch (e) {
    if (e instanceof WitnessError) throw e;
    const f = fsFailure(target, e);
    throw new FileError(target, `cannot write: ${f.detail}`, { cause: e, code: f.code });
  } finally {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    endWrite(tmp);
  }
}

/**
 * Appends one line (a newline is added) to a journal file, created when missing, and flushes it to
 * disk (fsync) before returning: a line returned from is kept through a crash. A line cut by one is
 * the reader's to drop.
 */
export function appendLineDurable(file: string, line: string): void {
  const fd = openSync(file, 'a');
  try {
    appendFileSync(fd, `${line}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * A private copy of `file` to read, in a new temporary folder named from `prefix`, with those of its
 * companion files (`file` + suffix, e.g. a SQLite database's `-wal`) that exist. Returns the folder
 * (the caller removes it) and the copy's path. The folder is removed again when the copying fails.
 */
export function privateCopy(file: string, suffixes: readonly string[], prefix: string): { dir: string; copy: string } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  try {
    const copy = path.join(dir, path.basename(file));
    copyFileSync(file, copy);
    for (const s of suffixes) if (existsSync(`${file}${s}`)) copyFileSync(`${file}${s}`, `${copy}${s}`);
    return { dir, copy };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

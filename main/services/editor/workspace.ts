/**
 * The workspace folder the editors open and save in. Every path is relative to it and stays in
 * it: absolute paths, '..' and symbolic links that lead outside are refused. Only UTF-8 text files
 * up to MAX_FILE_BYTES are read or written. Writes are atomic (a temporary file in the same folder,
 * flushed, renamed over the target) and guarded by the content's SHA-256, so a file changed on
 * disk since the editor read it is never overwritten without the user saying so.
 */
import { WitnessError } from '../../contract/errors.js';
import { createHash } from 'node:crypto';
import { type Stats } from 'node:fs';
import { lstat, mkdir, readFile, readdir, realpath, stat } from 'node:fs/promises';
import { errno, writeFileAtomic } from '../../platform/files.js';
import path from 'node:path';
import type { WorkspaceFile } from '../../contract/api.js';

export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Most files one listing returns. */
const MAX_LIST_FILES = 5000;

export type WorkspaceErrorCode =
  'forbidden' | 'invalid-path' | 'not-found' | 'not-a-file' | 'not-text' | 'too-large' | 'conflict';

export class WorkspaceError extends WitnessError {
  override readonly name = 'WorkspaceError';
  declare readonly code: WorkspaceErrorCode;
  constructor(
    code: WorkspaceErrorCode,
    readonly path: string,
    detail: string,
  ) {
    super(code, `${path}: ${detail}`, { file: path });
  }
}

export const contentVersion = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const inside = (root: string, p: string): boolean => p === root || p.startsWith(root + path.sep);

export class Workspace {
  /** Saves to one file run one after another, so the version check and the rename are not interleaved. */
  private readonly writing = new Map<string, Promise<unknown>>();

  constructor(readonly root: string) {}

  /** The workspace's real path, created when missing. */
  private async realRoot(): Promise<string> {
    await mkdir(this.root, { recursive: true });
    return realpath(this.root);
  }

  /** Segments of a relative path, or a WorkspaceError saying why it is not one. */
  private segments(rel: string): string[] {
    if (rel.includes('\0')) throw new WorkspaceError('invalid-path', rel, 'a path may not contain NUL characters');
    if (path.posix.isAbsolute(rel) || path.win32.isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) {
      throw new WorkspaceError(
        'forbidden',
        rel,
        'absolute paths are refused: give a path relative to the workspace folder',
      );
    }
    const segs = rel.split(/[\\/]/).filter((s) => s !== '' && s !== '.');
    if (segs.includes('..'))
      throw new WorkspaceError(
        'forbidden',
        rel,
        "a path may not contain '..': only files inside the workspace folder are opened",
      );
    if (segs.length === 0)
      throw new WorkspaceError('invalid-path', rel, 'expected the path of a file inside the workspace folder');
    return segs;
  }

  /** The real path of an existing file, checked to be a regular file inside the workspace. */
  private async existing(rel: string): Promise<{ file: string; stats: Stats } | null> {
    const root = await this.realRoot();
    const target = path.join(root, ...this.segments(rel));
    let real: string;
    try {
      real = await realpath(target);
    } catch (e) {
      if (errno(e) === 'ENOENT') {
        // A dangling link still must not point outside.
        const link = await lstat(target).catch(() => null);
        if (link?.isSymbolicLink()) throw new WorkspaceError('forbidden', rel, 'a symbolic link to a missing file');
        return null;
      }
      if (errno(e) === 'ENOTDIR') return null;
      throw e;
    }
    if (!inside(root, real))
      throw new WorkspaceError(
        'forbidden',
        rel,
        'the path leads outside the workspace folder (through a symbolic link)',
      );
    const stats = await stat(real);
    if (!stats.isFile()) throw new WorkspaceError('not-a-file', rel, 'not a file');
    return { file: real, stats };
  }

  /**
   * The real path and stats of an existing regular file inside the workspace, for readers with
   * their own limits (graph files); refusals as for read, and 'not-found' when it does not exist.
   */
  async file(rel: string): Promise<{ file: string; stats: Stats }> {
    const found = await this.existing(rel);
    if (found === null) throw new WorkspaceError('not-found', rel, `no file "${rel}" in the workspace`);
    return found;
  }

  async list(): Promise<{ root: string; files: WorkspaceFile[]; truncated?: boolean }> {
    const root = await this.realRoot();
    const files: WorkspaceFile[] = [];
    let truncated = false;
    const walk = async (dir: string, prefix: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const d of entries) {
        if (d.name.startsWith('.') || d.name === 'node_modules') continue;
        if (files.length >= MAX_LIST_FILES) {
          truncated = true;
          return;
        }
        const full = path.join(dir, d.name);
        const rel = prefix + d.name;
        if (d.isDirectory()) {
          await walk(full, `${rel}/`);
        } else if (d.isFile() || d.isSymbolicLink()) {
          // A link is listed when it leads to a file inside the workspace; linked folders are not followed.
          const real = d.isSymbolicLink() ? await realpath(full).catch(() => null) : full;
          if (real === null || !inside(root, real)) continue;
          const s = await stat(real).catch(() => null);
          if (s?.isFile()) files.push({ path: rel, size: s.size, mtime_ms: Math.round(s.mtimeMs) });
        }
      }
    };
    await walk(root, '');
    return truncated ? { root, files, truncated } : { root, files };
  }

  async read(rel: string): Promise<{ text: string; version: string }> {
    const found = await this.existing(rel);
    if (found === null) throw new WorkspaceError('not-found', rel, 'no such file in the workspace');
    if (found.stats.size > MAX_FILE_BYTES)
      throw new WorkspaceError(
        'too-large',
        rel,
        `${found.stats.size} bytes; the editors open files up to ${MAX_FILE_BYTES} bytes`,
      );
    const bytes = await readFile(found.file);
    return { text: decodeText(bytes, rel), version: contentVersion(bytes) };
  }

  async write(rel: string, text: string, baseVersion?: string | null): Promise<{ version: string }> {
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > MAX_FILE_BYTES)
      throw new WorkspaceError(
        'too-large',
        rel,
        `${bytes.length} bytes; the editors save files up to ${MAX_FILE_BYTES} bytes`,
      );
    const target = await this.writeTarget(rel);
    const previous = this.writing.get(target) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => this.writeNow(rel, target, bytes, baseVersion));
    this.writing.set(target, run);
    try {
      return await run;
    } finally {
      if (this.writing.get(target) === run) this.writing.delete(target);
    }
  }

  /** Where a write goes: the real file when it exists, else a new path whose existing folders are inside. */
  private async writeTarget(rel: string): Promise<string> {
    const found = await this.existing(rel);
    if (found !== null) return found.file;
    const root = await this.realRoot();
    const segs = this.segments(rel);
    let dir = root;
    for (const seg of segs.slice(0, -1)) {
      const next = path.join(dir, seg);
      let real: string;
      try {
        real = await realpath(next);
      } catch (e) {
        if (errno(e) !== 'ENOENT') throw e;
        dir = next;
        continue;
      }
      if (!inside(root, real))
        throw new WorkspaceError(
          'forbidden',
          rel,
          'the path leads outside the workspace folder (through a symbolic link)',
        );
      if (!(await stat(real)).isDirectory())
        throw new WorkspaceError('invalid-path', rel, `${path.relative(root, next)} is a file, not a folder`);
      dir = real;
    }
    return path.join(dir, segs[segs.length - 1]!);
  }

  private async writeNow(
    rel: string,
    target: string,
    bytes: Buffer,
    baseVersion: string | null | undefined,
  ): Promise<{ version: string }> {
    const current = await readFile(target).catch((e: unknown) => {
      if (errno(e) === 'ENOENT') return null;
      throw e;
    });
    if (baseVersion === null && current !== null) {
      throw new WorkspaceError('conflict', rel, 'a file with this name already exists');
    }
    if (typeof baseVersion === 'string' && (current === null || contentVersion(current) !== baseVersion)) {
      throw new WorkspaceError(
        'conflict',
        rel,
        current === null
          ? 'the file was deleted on disk since it was opened'
          : 'the file changed on disk since it was opened',
      );
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFileAtomic(target, bytes);
    return { version: contentVersion(bytes) };
  }
}

function decodeText(bytes: Buffer, rel: string): string {
  if (bytes.includes(0))
    throw new WorkspaceError('not-text', rel, 'a binary file (it contains NUL bytes); the editors open text files');
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new WorkspaceError('not-text', rel, 'not UTF-8 text; the editors open UTF-8 text files');
  }
}

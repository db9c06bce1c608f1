/**
 * Scratch folders a command works in (a benchmark's logs and caches): removed when it is done, and
 * also when the process ends any other way — Ctrl-C or SIGTERM in the middle of a synchronous
 * verification (the signal's default action ends the process at once: no handler of ours runs), or
 * SIGKILL. A reaper process, started with the first folder, keeps the list of those still in use; the
 * end of this process closes the pipe to it, and it removes what is still listed, then exits. It runs
 * in a process group of its own, so the Ctrl-C that ends this process does not end it first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The reaper: one JSON line per change (`{"add": DIR}` or `{"drop": DIR}`); at the end of its input it removes. */
const REAPER = `
const { rmSync } = require('node:fs');
const dirs = new Set();
let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  text += d;
  for (let i = text.indexOf('\\n'); i >= 0; i = text.indexOf('\\n')) {
    const m = JSON.parse(text.slice(0, i));
    text = text.slice(i + 1);
    if (m.add !== undefined) dirs.add(m.add);
    else dirs.delete(m.drop);
  }
});
process.stdin.on('end', () => {
  for (const d of dirs) {
    try {
      rmSync(d, { recursive: true, force: true });
    } catch {}
  }
});
`;

let reaper: ChildProcess | null = null;

function tell(m: { add: string } | { drop: string }): void {
  if (reaper === null) {
    reaper = spawn(process.execPath, ['-e', REAPER], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      // Under Electron its binary runs the script as Node would.
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    // It must not keep this process alive, nor die with it.
    reaper.on('error', () => undefined);
    reaper.stdin!.on('error', () => undefined);
    reaper.unref();
    (reaper.stdin as unknown as { unref?: () => void }).unref?.();
  }
  reaper.stdin!.write(`${JSON.stringify(m)}\n`);
}

export interface ScratchFolder {
  readonly dir: string;
  /** Removes the folder and everything in it (once; later calls do nothing). */
  remove(): void;
}

/** A new folder in the temporary folder (`prefix` then random characters), removed however this process ends. */
export function scratchFolder(prefix: string): ScratchFolder {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tell({ add: dir });
  let removed = false;
  return {
    dir,
    remove: () => {
      if (removed) return;
      removed = true;
      rmSync(dir, { recursive: true, force: true });
      tell({ drop: dir });
    },
  };
}

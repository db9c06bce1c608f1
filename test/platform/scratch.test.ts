/**
 * Scratch folders are removed however the process ends: SIGTERM or Ctrl-C during synchronous work
 * (the signals' default action: no handler runs), SIGKILL, or an ordinary exit that forgot one; a
 * folder removed by its owner is left alone. The reaper that does it ends with them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./scratch-child.js', import.meta.url));

/** Polls `done` every 10 ms for up to `ms`; whether it came true. */
async function within(ms: number, done: () => boolean): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 10)))
    if (done()) return true;
  return done();
}

/** Processes whose environment names `dir` as TMPDIR (the child and its reaper). */
function processesOf(dir: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`TMPDIR=${dir}\0`)) n++;
    } catch {
      // Gone, or not ours to read.
    }
  }
  return n;
}

test('a scratch folder is removed when the process ends by SIGTERM, Ctrl-C or SIGKILL during synchronous work, or exits without removing it', async () => {
  for (const [how, workMs] of [
    ['SIGTERM', 60_000],
    ['SIGINT', 60_000],
    ['SIGKILL', 60_000],
    ['exit', 0],
  ] as const) {
    const tmp = mkdtempSync(join(tmpdir(), 'witness-scratch-'));
    const child = spawn(process.execPath, [CHILD, String(workMs)], {
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      assert.ok(await within(10_000, () => out.endsWith('\n')), `${how}: the child said its folder`);
      const dir = out.trim();
      assert.ok(dir.startsWith(join(tmp, 'witness-scratch-test-')) && existsSync(join(dir, 'work.sqlite')));
      if (how !== 'exit') child.kill(how);
      await exited;
      assert.ok(await within(2000, () => readdirSync(tmp).length === 0), `${how}: left ${readdirSync(tmp).join(', ')}`);
      assert.ok(await within(2000, () => processesOf(tmp) === 0), `${how}: the reaper ended`);
    } finally {
      child.kill('SIGKILL');
      rmSync(tmp, { recursive: true, force: true });
    }
  }
});

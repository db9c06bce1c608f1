/**
 * `./witness`, the launcher at the repository root: it runs the checkout it sits in, whichever folder
 * it is called from, and passes the CLI's output and exit code through unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LAUNCHER = join(ROOT, 'witness');
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function launch(cwd: string, ...argv: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(LAUNCHER, argv, { cwd, encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test('./witness from another folder runs this checkout: its version, exit 0', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'witness-launcher-'));
  try {
    const r = launch(elsewhere, '--version');
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out.trim(), version);
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

test("./witness passes the CLI's exit codes through: 0 satisfied, 1 violated, 2 malformed", () => {
  assert.equal(launch(ROOT, 'ltl', 'check', 'G F a', '--cycle', 'a').status, 0);
  const no = launch(ROOT, 'ltl', 'check', 'G F a', '--cycle', 'b');
  assert.equal(no.status, 1);
  assert.match(no.out, /G F a/);
  const bad = launch(ROOT, 'ltl', 'check', 'G F (a', '--cycle', 'a');
  assert.equal(bad.status, 2);
  assert.match(bad.err, /^error: /);
});

#!/usr/bin/env node
// Runs every compiled test (dist/test/**/*.test.js, sorted) in one `node --test` invocation.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testRoot = path.join(root, 'dist', 'test');

/** @returns {string[]} */
function findTests(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (err && typeof err === 'object' && 'code' in err && err.code === 'ENOENT') return [];
    throw err;
  }
  return entries.flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.isFile() && entry.name.endsWith('.test.js') ? [full] : [];
  });
}

const files = findTests(testRoot)
  .map((file) => path.relative(root, file))
  .sort();

if (files.length === 0) {
  console.error(
    `run-tests: no *.test.js files under ${path.relative(root, testRoot) || testRoot}; ` + 'run `npm run build` first.',
  );
  process.exit(1);
}

// The tests' scratch folders (os.tmpdir() in the tests and in every process they start) go into a
// folder of this run's own, removed when the run ends: a run leaves nothing behind in /tmp.
const scratch = mkdtempSync(path.join(tmpdir(), 'witness-test-'));
// Open to every user, sticky, as /tmp is: tests run as root start the CLI as another user (uid 65534).
chmodSync(scratch, 0o1777);
// Generated backbones go to a cache of this run's own, not the user's ($XDG_CACHE_HOME/witness),
// unless the caller names one.
const cache = process.env.WITNESS_CACHE ?? path.join(scratch, 'cache');
const cleanUp = () => {
  rmSync(scratch, { recursive: true, force: true });
};
const child = spawn(process.execPath, ['--test', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: scratch, WITNESS_CACHE: cache },
});
// Ctrl-C or a CI time-out: the test runner stops, and the scratch folder goes with it on exit.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('error', (err) => {
  cleanUp();
  console.error(`run-tests: could not start node: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  cleanUp();
  if (signal) {
    console.error(`run-tests: node --test was killed by ${signal}`);
    process.exit(1);
  }
  process.exit(code ?? 1);
});

#!/usr/bin/env node
// Runs the compiled tests (dist/test/**/*.test.js, sorted) in one `node --test` invocation, then prints
// the run's wall time, its ten slowest files and a last line `N passed, N failed, N skipped`.
//
//   node scripts/run-tests.js            every test (`npm test`)
//   node scripts/run-tests.js --quick    unit and property tests only (`npm run test:quick`): leaves out
//                                        the folders in QUICK_SKIPS_FOLDERS (browser tests, spawned CLI runs)
//                                        and every file with a line starting `// @slow` (training, long
//                                        simulation, deadlines that must run out); the line says why.
// Files outside test/e2e run as many at once as the machine has cores (WITNESS_TEST_CONCURRENCY=N
// sets another number; 1 runs one file at a time), the browser tests in test/e2e one at a time after them.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
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

const QUICK_SKIPS_FOLDERS = ['e2e', 'cli'];
const SLOW_MARKER = /^\/\/ @slow\b/m;

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--quick');
if (unknown.length > 0) {
  console.error(`run-tests: unknown argument ${unknown[0]} (usage: node scripts/run-tests.js [--quick])`);
  process.exit(2);
}
const quick = args.includes('--quick');

/** @param {string} file a path under dist/test */
function inQuick(file) {
  const [folder] = path.relative(testRoot, file).split(path.sep);
  if (folder !== undefined && QUICK_SKIPS_FOLDERS.includes(folder)) return false;
  return !SLOW_MARKER.test(readFileSync(file, 'utf8'));
}

const files = findTests(testRoot)
  .filter((file) => !quick || inQuick(file))
  .map((file) => path.relative(root, file))
  .sort();

if (files.length === 0) {
  console.error(
    `run-tests: no *.test.js files${quick ? ' for --quick' : ''} under ${path.relative(root, testRoot) || testRoot}; ` +
      'run `npm run build` first.',
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
// Two phases, one after the other: every file but the browser tests, as many at once as the machine
// has cores (node --test's default leaves one idle, and much of the suite waits on child processes);
// then the browser tests one at a time (each drives a Chromium and a web server of its own).
const parallel = Number(process.env.WITNESS_TEST_CONCURRENCY ?? availableParallelism());
if (!Number.isInteger(parallel) || parallel < 1) {
  console.error(
    `run-tests: WITNESS_TEST_CONCURRENCY must be an integer ≥ 1, got '${process.env.WITNESS_TEST_CONCURRENCY}'`,
  );
  process.exit(2);
}
const browser = (file) => file.startsWith(path.join('dist', 'test', 'e2e') + path.sep);
const phases = [
  { files: files.filter((f) => !browser(f)), concurrency: parallel },
  { files: files.filter(browser), concurrency: 1 },
].filter((phase) => phase.files.length > 0);

const started = Date.now();
/** @type {import('node:child_process').ChildProcess | null} */
let child = null;
let stopping = false;
// Ctrl-C or a CI time-out: the test runner stops, and the scratch folder goes with it on exit.
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    stopping = true;
    child?.kill(sig);
  });

/** Runs one phase; resolves with its exit code (1 when killed by a signal). */
function runPhase(phase, summaryFile) {
  const reporters = [
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'scripts', 'test-summary-reporter.js')}`,
    `--test-reporter-destination=${summaryFile}`,
  ];
  return new Promise((resolve) => {
    child = spawn(
      process.execPath,
      ['--test', `--test-concurrency=${phase.concurrency}`, ...reporters, ...phase.files],
      { cwd: root, stdio: 'inherit', env: { ...process.env, TMPDIR: scratch, WITNESS_CACHE: cache } },
    );
    child.on('error', (err) => {
      console.error(`run-tests: could not start node: ${err.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      if (signal) console.error(`run-tests: node --test was killed by ${signal}`);
      resolve(signal ? 1 : (code ?? 1));
    });
  });
}

let exitCode = 0;
const summaries = [];
for (const [i, phase] of phases.entries()) {
  if (stopping) break;
  const summaryFile = path.join(scratch, `summary-${i}.json`);
  exitCode = Math.max(exitCode, await runPhase(phase, summaryFile));
  try {
    summaries.push(JSON.parse(readFileSync(summaryFile, 'utf8')));
  } catch {
    // the runner was killed before its reporters finished: its counts are missing
  }
}
printSummary(summaries);
cleanUp();
process.exit(stopping && exitCode === 0 ? 1 : exitCode);

/** @param {{ files: { file: string, ms: number }[], counts: Record<string, number> }[]} summaries */
function printSummary(summaries) {
  const seconds = (Date.now() - started) / 1000;
  const minutes = Math.floor(seconds / 60);
  const what = `${files.length} files${quick ? ' (--quick)' : ''}, up to ${parallel} at once outside the browser tests`;
  console.log(`\nrun-tests: ${what}: ${minutes}m ${(seconds % 60).toFixed(1)}s wall time`);
  const slowest = summaries
    .flatMap((s) => s.files)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10);
  console.log(`run-tests: the ${slowest.length} slowest files:`);
  for (const { file, ms } of slowest) {
    console.log(`${(ms / 1000).toFixed(1).padStart(8)} s  ${path.relative(root, file)}`);
  }
  /** @param {string} key */
  const sum = (key) => summaries.reduce((n, s) => n + (s.counts[key] ?? 0), 0);
  const [cancelled, todo] = [sum('cancelled'), sum('todo')];
  const also = [cancelled ? `, ${cancelled} cancelled` : '', todo ? `, ${todo} todo` : ''].join('');
  const complete = summaries.length === phases.length ? '' : ' (the run was stopped: counts are incomplete)';
  console.log(`${sum('pass')} passed, ${sum('fail')} failed, ${sum('skipped')} skipped${also}${complete}`);
}

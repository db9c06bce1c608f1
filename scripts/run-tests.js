#!/usr/bin/env node
// Runs the compiled tests (dist/test/**/*.test.js, sorted) in one `node --test` invocation, then prints
// the run's wall time, its ten slowest files and a last line `N passed, N failed, N skipped`.
//
//   node scripts/run-tests.js            every test (`npm test`)
//   node scripts/run-tests.js --quick    unit and property tests only (`npm run test:quick`): leaves out
//                                        the folders in QUICK_SKIPS_FOLDERS (browser tests, spawned CLI runs)
//                                        and every file with a line starting `// @slow` (training, long
//                                        simulation, deadlines that must run out); the line says why.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
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
const summaryFile = path.join(scratch, 'summary.json');
const reporters = [
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  `--test-reporter=${path.join(root, 'scripts', 'test-summary-reporter.js')}`,
  `--test-reporter-destination=${summaryFile}`,
];
const started = Date.now();
const child = spawn(process.execPath, ['--test', ...reporters, ...files], {
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
  printSummary();
  cleanUp();
  if (signal) {
    console.error(`run-tests: node --test was killed by ${signal}`);
    process.exit(1);
  }
  process.exit(code ?? 1);
});

function printSummary() {
  const seconds = (Date.now() - started) / 1000;
  /** @type {{ files: { file: string, ms: number }[], counts: Record<string, number> } | undefined} */
  let summary;
  try {
    summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
  } catch {
    summary = undefined; // the runner was killed before its reporters finished
  }
  const minutes = Math.floor(seconds / 60);
  console.log(
    `\nrun-tests: ${files.length} files${quick ? ' (--quick)' : ''} in ${minutes}m ${(seconds % 60).toFixed(1)}s wall time`,
  );
  if (!summary) return;
  const slowest = [...summary.files].sort((a, b) => b.ms - a.ms).slice(0, 10);
  console.log(`run-tests: the ${slowest.length} slowest files:`);
  for (const { file, ms } of slowest) {
    console.log(`${(ms / 1000).toFixed(1).padStart(8)} s  ${path.relative(root, file)}`);
  }
  const { pass = 0, fail = 0, skipped = 0, cancelled = 0, todo = 0 } = summary.counts;
  const also = [cancelled ? `, ${cancelled} cancelled` : '', todo ? `, ${todo} todo` : ''].join('');
  console.log(`${pass} passed, ${fail} failed, ${skipped} skipped${also}`);
}

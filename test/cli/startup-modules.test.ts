/**
 * What the CLI loads to answer `--version` and `--help`: the command table and nothing heavy. The
 * process runs with module hooks that record every module it loads (test/cli/loads), and the set
 * holds no SQLite (better-sqlite3, the audit store), no ONNX runtime and no MuJoCo.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RECORD = pathToFileURL(fileURLToPath(new URL('./loads/record.js', import.meta.url))).href;

const HEAVY: readonly { readonly what: string; readonly match: RegExp }[] = [
  { what: 'SQLite (better-sqlite3)', match: /\/node_modules\/better-sqlite3\// },
  { what: 'the audit store', match: /\/dist\/main\/services\/audit\// },
  { what: 'the ONNX runtime', match: /\/node_modules\/onnxruntime-node\// },
  { what: 'MuJoCo', match: /\/node_modules\/mujoco-js\// },
  { what: 'TensorFlow.js', match: /\/node_modules\/@tensorflow\// },
];

/** Runs `node bin/witness.js …args` and returns its output and the URLs of every module it loaded. */
function loadsOf(args: readonly string[]): { status: number | null; stdout: string; modules: string[] } {
  const log = path.join(mkdtempSync(path.join(tmpdir(), 'witness-loads-')), 'modules.txt');
  const r = spawnSync(process.execPath, ['--import', RECORD, path.join(ROOT, 'bin/witness.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, WITNESS_TEST_MODULE_LOG: log },
  });
  return { status: r.status, stdout: r.stdout, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

for (const args of [['--version'], ['--help'], ['ltl', '--help']]) {
  test(`witness ${args.join(' ')} loads the command table and no SQLite, ONNX, MuJoCo or TensorFlow module`, () => {
    const { status, stdout, modules } = loadsOf(args);
    assert.equal(status, 0);
    assert.ok(stdout.length > 0);
    // The recorder saw the process: the CLI's own modules and commander are in the set.
    assert.ok(modules.some((m) => m.endsWith('/dist/main/cli/main.js')));
    assert.ok(modules.some((m) => m.includes('/node_modules/commander/')));
    for (const { what, match } of HEAVY) {
      const found = modules.filter((m) => match.test(m));
      assert.deepEqual(found, [], `witness ${args.join(' ')} loaded ${what}`);
    }
  });
}

test("witness world ls reads the bundles' manifests without loading the ONNX runtime", () => {
  const { status, stdout, modules } = loadsOf(['world', 'ls']);
  assert.equal(status, 0);
  assert.match(stdout, /pointmaze-medium/);
  assert.deepEqual(
    modules.filter((m) => /\/node_modules\/onnxruntime-node\//.test(m)),
    [],
    'world ls loaded the ONNX runtime',
  );
});

test('the module recorder sees a heavy module when a command loads one (so the checks above can fail)', () => {
  const { modules } = loadsOf(['audit', 'verify', path.join(tmpdir(), 'witness-loads-none.db')]);
  assert.ok(modules.some((m) => /\/node_modules\/better-sqlite3\//.test(m)));
});

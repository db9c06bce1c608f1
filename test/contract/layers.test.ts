// The layer table is enforced by lint (eslint.config.js, witness/imports): a wrong import fails
// `npm test`. These cases run the real configuration on sources that break the table, and on ones
// that keep it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The layering messages for `code` as if it were the file `rel` (JavaScript: no type information needed). */
async function layering(rel: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: path.join(ROOT, rel) });
  return r!.messages
    .filter((m) =>
      ['witness/imports', 'witness/fs-writes', '@typescript-eslint/no-restricted-imports'].includes(m.ruleId ?? ''),
    )
    .map((m) => m.message);
}

test('a wrong import is a lint error naming both layers and what the importer may use', async () => {
  const cli = await layering(
    'main/cli/probe.js',
    "import { parseLtl } from '../core/ltl/parser.js';\nexport const f = parseLtl;\n",
  );
  assert.deepEqual(cli, [
    'main/cli may not import main/core (../core/ltl/parser.js): it may use main/contract, main/app, main/bench, main/cli (the layer table in eslint.config.js, docs/ARCHITECTURE.md)',
  ]);
  assert.match(
    (await layering('main/core/probe.js', "export { x } from '../services/audit/store.js';\n"))[0]!,
    /^main\/core may not import main\/services/,
  );
  assert.match(
    (
      await layering(
        'main/contract/probe.js',
        "import { VERSION } from '../core/ltl/parser.js';\nexport const v = VERSION;\n",
      )
    )[0]!,
    /^main\/contract may not import main\/core/,
  );
  assert.match(
    (
      await layering(
        'main/api/probe.js',
        "import { AuditLog } from '../services/audit/store.js';\nexport const a = AuditLog;\n",
      )
    )[0]!,
    /^main\/api may not import main\/services/,
  );
  assert.match(
    (
      await layering(
        'main/services/probe.js',
        "const m = await import('../backends/catalogue.js');\nexport const c = m;\n",
      )
    )[0]!,
    /^main\/services may not import main\/backends/,
  );
  assert.match(
    (
      await layering('renderer/src/probe.js', "import { run } from '../../main/cli/main.js';\nexport const r = run;\n")
    )[0]!,
    /^renderer may not import main\/cli/,
  );
  assert.match(
    (await layering('main/app/probe.js', "import { fmt } from '../bench/stats.js';\nexport const f = fmt;\n"))[0]!,
    /^main\/app may not import main\/bench/,
  );
  assert.match(
    (
      await layering('main/api/probe.js', "const b = await import('../bench/benchmarks.js');\nexport const x = b;\n")
    )[0]!,
    /^main\/api may not import main\/bench/,
  );
  assert.match(
    (await layering('main/core/probe.js', "import fs from 'node:fs';\nexport const f = fs;\n")).join('\n'),
    /main\/core and main\/contract are pure: no Node builtins/,
  );
});

test('the application layer opens worlds through the backend catalogue and imports no other backend module', async () => {
  assert.deepEqual(
    await layering(
      'main/app/probe.js',
      "import { loadModel } from '../backends/mujoco/runtime.js';\nexport const l = loadModel;\n",
    ),
    [
      'main/app may not import ../backends/mujoco/runtime.js: worlds open through the backend catalogue: main/app may import main/backends/catalogue.ts and no other module of main/backends (add what a workflow needs of a backend to the catalogue) (the layer table in eslint.config.js, docs/ARCHITECTURE.md)',
    ],
  );
  assert.match(
    (await layering('main/app/probe.js', "const w = await import('../backends/ros2/world.js');\nexport { w };\n"))[0]!,
    /^main\/app may not import \.\.\/backends\/ros2\/world\.js: worlds open through the backend catalogue/,
  );
});

test('a package is imported only in the layers the package table names', async () => {
  const refused: [string, string, RegExp][] = [
    [
      'main/app/probe.js',
      'better-sqlite3',
      /^better-sqlite3 may be imported only in main\/services\/audit, main\/services\/datasets\/rosbag2/,
    ],
    [
      'main/services/probe.js',
      'electron',
      /^electron may be imported only in main\/electron, preload, not in main\/services\/probe\.js/,
    ],
    [
      'main/app/probe.js',
      'onnxruntime-node',
      /^onnxruntime-node may be imported only in main\/services\/models, main\/services\/training/,
    ],
    ['main/backends/ros2/probe.js', 'mujoco-js', /^mujoco-js may be imported only in main\/backends\/mujoco,/],
    ['main/backends/mujoco/probe.js', 'rclnodejs', /^rclnodejs may be imported only in main\/backends\/ros2,/],
    [
      'main/services/models/probe.js',
      '@tensorflow/tfjs-node',
      /^@tensorflow\/tfjs-node may be imported only in main\/services\/training,/,
    ],
    ['main/app/probe.js', 'commander', /^commander may be imported only in main\/cli,/],
    ['main/api/ipc/probe.js', 'ws', /^ws may be imported only in main\/api\/web,/],
  ];
  for (const [file, pkg, message] of refused) {
    const found = await layering(file, `import x from '${pkg}';\nexport const y = x;\n`);
    assert.ok(
      found.some((m) => message.test(m)),
      `${pkg} in ${file}: ${JSON.stringify(found)}`,
    );
  }
  const allowed: [string, string][] = [
    ['main/services/audit/probe.js', 'better-sqlite3'],
    ['main/services/datasets/rosbag2/probe.js', 'better-sqlite3'],
    ['main/services/models/probe.js', 'onnxruntime-node'],
    ['main/backends/mujoco/probe.js', 'mujoco-js'],
    ['main/backends/ros2/probe.js', 'rclnodejs'],
    ['main/services/training/probe.js', '@tensorflow/tfjs'],
    ['main/cli/probe.js', 'commander'],
    ['main/api/web/probe.js', 'ws'],
    ['test/probe.js', 'better-sqlite3'],
  ];
  for (const [file, pkg] of allowed)
    assert.deepEqual(await layering(file, `import x from '${pkg}';\nexport const y = x;\n`), [], `${pkg} in ${file}`);
});

test("node:fs's writing functions are refused in main/ outside platform/files.ts; reading ones and tests pass", async () => {
  const code =
    "import { readFileSync, writeFileSync } from 'node:fs';\nimport { rename } from 'node:fs/promises';\nexport const x = [readFileSync, writeFileSync, rename];\n";
  const found = await layering('main/services/probe.js', code);
  assert.equal(found.length, 2);
  assert.match(
    found[0]!,
    /^writeFileSync of node:fs is not for main\/services\/probe\.js: write files through main\/platform\/files\.ts/,
  );
  assert.match(found[1]!, /^rename of node:fs\/promises is not for main\/services\/probe\.js/);
  assert.match(
    (await layering('main/app/probe.js', "import fs from 'fs';\nexport const f = fs;\n"))[0]!,
    /^import named functions of fs, not the whole module/,
  );
  assert.deepEqual(await layering('main/platform/files.ts', code), []);
  assert.deepEqual(await layering('test/probe.js', code), []);
  assert.deepEqual(
    await layering(
      'main/app/probe.js',
      "import { readFileSync, mkdirSync } from 'node:fs';\nexport const x = [readFileSync, mkdirSync];\n",
    ),
    [],
  );
});

test('imports the table allows pass', async () => {
  assert.deepEqual(
    await layering(
      'main/cli/probe.js',
      "import { MAZE_WORLDS } from '../contract/defaults.js';\nconst app = await import('../app/ltl.js');\nexport const x = [MAZE_WORLDS, app];\n",
    ),
    [],
  );
  assert.deepEqual(
    await layering(
      'main/app/probe.js',
      "import { worldEntry } from '../backends/catalogue.js';\nimport { readDataset } from '../services/datasets/format.js';\nexport const x = [worldEntry, readDataset];\n",
    ),
    [],
  );
  assert.deepEqual(
    await layering(
      'main/bench/probe.js',
      "import { openAuditLog } from '../app/audit-log.js';\nimport { ShortestPaths } from '../core/plan/shortest-path.js';\nimport { AuditLog } from '../services/audit/store.js';\nexport const x = [openAuditLog, ShortestPaths, AuditLog];\n",
    ),
    [],
  );
  assert.deepEqual(
    await layering('main/cli/probe.js', "const b = await import('../bench/benchmarks.js');\nexport const x = b;\n"),
    [],
  );
  assert.deepEqual(
    await layering(
      'renderer/src/probe.js',
      "import { PLAN_METHODS } from '../../main/contract/defaults.js';\nexport const m = PLAN_METHODS;\n",
    ),
    [],
  );
});

test("the package version and the contract's VERSION are the same", async () => {
  const { VERSION } = await import('../../main/contract/version.js');
  assert.equal(
    VERSION,
    (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
  );
});

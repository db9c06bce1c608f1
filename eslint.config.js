// ESLint flat config. Besides typescript-eslint's recommended (type-checked) rules it enforces the
// layering: the import table below (a local rule), pure core and contract (no Node builtins), only
// main/electron and preload touch Electron, and the renderer runs without Node.
import { builtinModules } from 'node:module';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const TS_FILES = ['**/*.ts', '**/*.mts', '**/*.cts'];
const JS_FILES = ['**/*.js', '**/*.mjs', '**/*.cjs'];
const ALL_FILES = [...TS_FILES, ...JS_FILES];
const EXT = '{ts,mts,cts,js,mjs,cjs}';

const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'structuredClone',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'fetch',
    'performance',
  ].map((name) => [name, 'readonly']),
);

const builtinPaths = (message) => builtinModules.filter((m) => !m.startsWith('_')).map((name) => ({ name, message }));

/**
 * Options for @typescript-eslint/no-restricted-imports. Flat config replaces (does not merge) a
 * rule's options when several config objects match a file, so each group states its full set.
 */
function restrictImports({ node = null, electron = null }) {
  const paths = [];
  const allPatterns = [];
  if (node) {
    paths.push(...builtinPaths(node));
    allPatterns.push({ regex: '^node:', message: node });
  }
  if (electron) {
    paths.push({ name: 'electron', message: electron });
    allPatterns.push({ regex: '^electron/', message: electron });
  }
  return ['error', { paths, patterns: allPatterns }];
}

const ELECTRON_ONLY_IN_SHELL =
  "Only main/electron/** and preload/** may import 'electron'; everything else must run without it.";
const PURE_NO_IO =
  'main/core and main/contract are pure: no Node builtins or I/O. Put I/O in main/platform, main/services or main/backends and pass data in.';
const RENDERER_NO_NODE = 'The renderer runs without Node: no Node builtins.';
const PRELOAD_SANDBOXED = "The preload is sandboxed: it may require only 'electron'.";

/**
 * The layers, and what each may import of ours (VS Code's layering rules, in our own words):
 * contract ← core ← platform/services/backends ← app ← api/cli. The contract and the core are pure;
 * the renderer sees the contract only; the preload may only name the contract's types. The process
 * entries (main/witness.ts, main/electron/) compose front ends. A file outside every layer (tests,
 * scripts) may import anything. The application layer sees the backends through their catalogue
 * only (main/backends/catalogue.ts: worlds open by id, and what the workflows need of a backend
 * without naming one); the benchmarks (main/bench, a front end beside main/cli), which measure the
 * backends themselves, may use them directly.
 * The first layer a file falls in is its own. docs/ARCHITECTURE.md shows the same table.
 */
const LAYERS = [
  { layer: 'main/contract', may: ['main/contract'] },
  { layer: 'main/core', may: ['main/contract', 'main/core'] },
  { layer: 'main/platform', may: ['main/contract', 'main/platform'] },
  { layer: 'main/services', may: ['main/contract', 'main/core', 'main/platform', 'main/services'] },
  { layer: 'main/backends', may: ['main/contract', 'main/core', 'main/platform', 'main/backends'] },
  {
    layer: 'main/app',
    may: ['main/contract', 'main/core', 'main/platform', 'main/services', 'main/backends/catalogue.ts', 'main/app'],
    why: {
      'main/backends':
        'worlds open through the backend catalogue: main/app may import main/backends/catalogue.ts and no other module of main/backends (add what a workflow needs of a backend to the catalogue)',
    },
  },
  { layer: 'main/api', may: ['main/contract', 'main/app', 'main/api'] },
  {
    layer: 'main/bench',
    may: ['main/contract', 'main/core', 'main/platform', 'main/services', 'main/backends', 'main/app', 'main/bench'],
  },
  { layer: 'main/cli', may: ['main/contract', 'main/app', 'main/bench', 'main/cli'] },
  { layer: 'main/electron', may: ['main/contract', 'main/api', 'main/electron'] },
  { layer: 'main/witness.ts', may: ['main/cli', 'main/api', 'main/platform'] },
  { layer: 'preload', may: ['main/contract', 'preload'], typesOnly: ['main/contract'] },
  { layer: 'renderer', may: ['main/contract', 'renderer'] },
];

/**
 * The packages a layer's file may import, where it is not every layer: each package only in the
 * folders (or files) named, so a heavy or native module stays where it belongs and a front end
 * loads it only when it runs that code. Files outside every layer (tests, scripts) may import any.
 * `@tensorflow/` stands for every package of that scope. docs/ARCHITECTURE.md shows the same table.
 */

const PACKAGES = [
  { pkg: 'better-sqlite3', only: ['main/services/audit', 'main/services/datasets/rosbag2'] },
  { pkg: 'electron', only: ['main/electron', 'preload'] },
  { pkg: 'onnxruntime-node', only: ['main/services/models', 'main/services/training'] },
  { pkg: 'mujoco-js', only: ['main/backends/mujoco'] },
  { pkg: 'rclnodejs', only: ['main/backends/ros2'] },
  { pkg: '@tensorflow/', only: ['main/services/training'] },
  { pkg: 'commander', only: ['main/cli'] },
  { pkg: 'ws', only: ['main/api/web', 'main/services/audit/foxglove-live.ts'] },
  { pkg: 'pg', only: ['main/services/fleet'] },
];

/**
 * platform/files is the only durable writer: outside it, main/ imports none of node:fs's functions
 * that write, rename, copy or flush a file (and no node:fs object whole, whose methods would). The
 * audit log's SQLite database is written by SQLite, not through node:fs.
 */
const FS_WRITER = 'main/platform/files.ts';
const FS_MODULES = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'];
const FS_WRITES = new Set(
  [
    'writeFile',
    'appendFile',
    'rename',
    'copyFile',
    'cp',
    'createWriteStream',
    'fsync',
    'fdatasync',
    'write',
    'writev',
    'truncate',
    'ftruncate',
    'link',
    'symlink',
  ].flatMap((f) => [f, `${f}Sync`]),
);

const within = (rel, dir) => rel === dir || rel.startsWith(`${dir}/`);
const layerOf = (rel) => LAYERS.find((l) => within(rel, l.layer)) ?? null;
/** The PACKAGES row of an import specifier (a bare one: a package, or a path inside one), or null. */
const packageOf = (spec) =>
  PACKAGES.find((p) =>
    p.pkg.endsWith('/') ? spec.startsWith(p.pkg) : spec === p.pkg || spec.startsWith(`${p.pkg}/`),
  ) ?? null;
const ROOT = import.meta.dirname;

/**
 * A local rule: every relative import must land in a layer the importing file's layer may use, and a
 * package of the PACKAGES table is imported only where the table allows it.
 */
const layersPlugin = {
  rules: {
    'fs-writes': {
      meta: {
        type: 'problem',
        schema: [],
        docs: { description: 'main/ writes files through main/platform/files.ts only' },
      },
      create(context) {
        const from = path.relative(ROOT, context.filename).split(path.sep).join('/');
        if (!within(from, 'main') || from === FS_WRITER) return {};
        const why = `write files through ${FS_WRITER} (atomic writes, streams, durable journal lines, private copies): it is the only durable writer (eslint.config.js, docs/ARCHITECTURE.md)`;
        const check = (node, spec, specifiers) => {
          if (!FS_MODULES.includes(spec)) return;
          for (const sp of specifiers) {
            if (sp.type !== 'ImportSpecifier') {
              context.report({ node: sp, message: `import named functions of ${spec}, not the whole module: ${why}` });
              continue;
            }
            const name = sp.imported.type === 'Identifier' ? sp.imported.name : sp.imported.value;
            if (FS_WRITES.has(name))
              context.report({ node: sp, message: `${name} of ${spec} is not for ${from}: ${why}` });
          }
        };
        return {
          ImportDeclaration: (n) =>
            check(
              n,
              n.source.value,
              n.importKind === 'type' ? [] : n.specifiers.filter((sp) => sp.importKind !== 'type'),
            ),
          ImportExpression: (n) =>
            n.source.type === 'Literal' &&
            FS_MODULES.includes(n.source.value) &&
            context.report({ node: n, message: `no dynamic import of ${n.source.value}: ${why}` }),
        };
      },
    },
    imports: {
      meta: {
        type: 'problem',
        schema: [],
        docs: { description: 'imports follow the layer table in eslint.config.js' },
      },
      create(context) {
        const from = path.relative(ROOT, context.filename).split(path.sep).join('/');
        const own = layerOf(from);
        if (own === null) return {};
        const check = (node, spec, typeOnly) => {
          if (typeof spec !== 'string') return;
          if (!spec.startsWith('.')) {
            const p = packageOf(spec);
            if (p !== null && !p.only.some((m) => within(from, m)))
              context.report({
                node,
                message: `${spec} may be imported only in ${p.only.join(', ')}, not in ${from} (the package table in eslint.config.js, docs/ARCHITECTURE.md)`,
              });
            return;
          }
          const target = path
            .relative(ROOT, path.resolve(path.dirname(context.filename), spec))
            .split(path.sep)
            .join('/')
            .replace(/\.js$/, '.ts');
          const to = layerOf(target);
          const allowed = own.may.some((m) => within(target, m));
          if (!allowed) {
            const why = Object.entries(own.why ?? {}).find(([dir]) => within(target, dir))?.[1];
            context.report({
              node,
              message:
                why !== undefined
                  ? `${own.layer} may not import ${spec}: ${why} (the layer table in eslint.config.js, docs/ARCHITECTURE.md)`
                  : `${own.layer} may not import ${to ? to.layer : target} (${spec}): it may use ${own.may.join(', ')} (the layer table in eslint.config.js, docs/ARCHITECTURE.md)`,
            });
          } else if (own.typesOnly?.some((m) => within(target, m)) && !typeOnly) {
            context.report({ node, message: `${own.layer} may use ${spec} through \`import type\` only` });
          }
        };
        return {
          ImportDeclaration: (n) => check(n, n.source.value, n.importKind === 'type'),
          ExportNamedDeclaration: (n) => n.source && check(n, n.source.value, n.exportKind === 'type'),
          ExportAllDeclaration: (n) => check(n, n.source.value, n.exportKind === 'type'),
          ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value, false),
          TSImportType: (n) => check(n, n.argument?.literal?.value ?? n.argument?.value, true),
        };
      },
    },
  },
};

/**
 * Functions a screen or two long: none in main/, renderer/ or preload/ over 120 lines, blank lines and
 * comments counted. LONG_FUNCTIONS lists the files allowed an exception, at most five, each with the
 * reason it reads better whole beside it ({ file, why }). Today none needs one.
 */
const LONG_FUNCTIONS = [];
if (LONG_FUNCTIONS.length > 5 || LONG_FUNCTIONS.some((f) => typeof f.why !== 'string' || f.why.length < 20)) {
  throw new Error('eslint.config.js: LONG_FUNCTIONS allows at most five files, each with its reason');
}

export default tseslint.config(
  {
    name: 'witness/ignores',
    ignores: ['dist/', 'node_modules/', 'renderer/dist/', 'coverage/', 'out/', '.bench/'],
  },
  {
    name: 'witness/base',
    files: ALL_FILES,
    extends: [js.configs.recommended],
    // Registered for JavaScript too, so the layering rules below apply to every file.
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Prettier wraps code at 120; this catches what it leaves: comments and code it cannot break.
      'max-len': [
        'error',
        {
          code: 120,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
        },
      ],
    },
  },
  {
    name: 'witness/typescript',
    files: TS_FILES,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      // Warn, not error: `new Map()` without type arguments infers Map<any, any> and trips it.
      '@typescript-eslint/no-unsafe-assignment': 'warn',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  {
    name: 'witness/javascript',
    files: JS_FILES,
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: NODE_GLOBALS },
    rules: {
      'no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  // Layering. The base rule is replaced by the TypeScript-aware one, which understands
  // `import type` and `import x = require()`.
  {
    name: 'witness/layering/electron-only-in-shell',
    files: ALL_FILES,
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': restrictImports({
        electron: ELECTRON_ONLY_IN_SHELL,
      }),
    },
  },
  {
    name: 'witness/layering/electron-shell',
    files: [`main/electron/**/*.${EXT}`],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    name: 'witness/layering/preload',
    files: [`preload/**/*.${EXT}`],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrictImports({ node: PRELOAD_SANDBOXED }),
    },
  },
  {
    name: 'witness/layering/pure',
    files: [`main/core/**/*.${EXT}`, `main/contract/**/*.${EXT}`],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrictImports({
        node: PURE_NO_IO,
        electron: ELECTRON_ONLY_IN_SHELL,
      }),
    },
  },
  {
    name: 'witness/layering/renderer',
    files: [`renderer/**/*.${EXT}`],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrictImports({
        node: RENDERER_NO_NODE,
        electron: ELECTRON_ONLY_IN_SHELL,
      }),
    },
  },
  {
    name: 'witness/function-length',
    files: [`main/**/*.${EXT}`, `renderer/**/*.${EXT}`, `preload/**/*.${EXT}`],
    ignores: LONG_FUNCTIONS.map((f) => f.file),
    rules: {
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    name: 'witness/layering/table',
    files: ALL_FILES,
    plugins: { witness: layersPlugin },
    rules: { 'witness/imports': 'error', 'witness/fs-writes': 'error' },
  },
);

// ESLint flat config. Besides typescript-eslint's recommended (type-checked) rules it enforces the
// layering from DESIGN.md: main/core is pure, only main/electron and preload touch Electron, and the
// renderer uses main/ only through `import type`.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const TS_FILES = ['**/*.ts', '**/*.mts', '**/*.cts'];
const JS_FILES = ['**/*.js', '**/*.mjs', '**/*.cjs'];
const ALL_FILES = [...TS_FILES, ...JS_FILES];
const EXT = '{ts,mts,cts,js,mjs,cjs}';
/** Deepest folder level under main/core and renderer that the depth-specific rules cover. */
const MAX_DEPTH = 8;

const NODE_GLOBALS = Object.fromEntries(
  [
    'process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'setTimeout', 'clearTimeout',
    'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'structuredClone',
    'AbortController', 'AbortSignal', 'TextEncoder', 'TextDecoder', 'fetch', 'performance',
  ].map((name) => [name, 'readonly']),
);

const builtinPaths = (message) =>
  builtinModules.filter((m) => !m.startsWith('_')).map((name) => ({ name, message }));

/**
 * Options for @typescript-eslint/no-restricted-imports. Flat config replaces (does not merge) a
 * rule's options when several config objects match a file, so each group states its full set.
 */
function restrictImports({ node = null, electron = null, patterns = [] }) {
  const paths = [];
  const allPatterns = [...patterns];
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
const CORE_NO_IO =
  'main/core is pure: no Node builtins or I/O. Put I/O in main/services and pass data in.';
const CORE_NO_ELECTRON = "main/core is pure: it may not import 'electron'.";
const CORE_STAYS_INSIDE =
  'main/core is pure: imports must stay inside main/core (no services, backends, api, cli, electron).';
const RENDERER_NO_NODE = 'The renderer runs without Node: no Node builtins.';
const RENDERER_TYPE_ONLY =
  "The renderer may use main/ only through `import type` (the API contract); call it via window.witness.";
const PRELOAD_SANDBOXED =
  "The preload is sandboxed: it may require only 'electron'.";

/** Glob for files exactly `depth` folders below `root`. */
const atDepth = (root, depth) => `${root}/${'*/'.repeat(depth)}*.${EXT}`;
/** Regex for a relative specifier climbing at least `levels` folders. */
const climbs = (levels) => `^(\\.\\./){${levels}}`;

const depths = Array.from({ length: MAX_DEPTH + 1 }, (_, d) => d);

const coreLayering = depths.map((d) => ({
  name: `witness/layering/core-depth-${d}`,
  files: [atDepth('main/core', d)],
  rules: {
    '@typescript-eslint/no-restricted-imports': restrictImports({
      node: CORE_NO_IO,
      electron: CORE_NO_ELECTRON,
      patterns: [{ regex: climbs(d + 1), message: CORE_STAYS_INSIDE }],
    }),
  },
}));

const rendererLayering = depths.map((d) => ({
  name: `witness/layering/renderer-depth-${d}`,
  files: [atDepth('renderer', d)],
  rules: {
    '@typescript-eslint/no-restricted-imports': restrictImports({
      node: RENDERER_NO_NODE,
      electron: ELECTRON_ONLY_IN_SHELL,
      patterns: [
        { regex: `${climbs(d + 1)}main(/|$)`, allowTypeImports: true, message: RENDERER_TYPE_ONLY },
      ],
    }),
  },
}));

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
  ...coreLayering,
  ...rendererLayering,
);

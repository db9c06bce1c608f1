/**
 * Deep formulas through the command line: every `witness ltl` command and
 * `witness plan --spec` ends with exit 3 and a one-line message, within its budget, never 70.
 * A few runs spawn the real binary (an "ends at all" bound 10× the budget); the sweep over every
 * hostile shape runs the same CLI in-process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { chain, hostileShapes } from '../core/ltl/hostile.js';
import { cli } from './harness.js';

const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));
const WAREHOUSE = fileURLToPath(new URL('../../../assets/graphs/warehouse.json', import.meta.url));

function witness(
  args: string[],
  timeout_ms: number,
): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: timeout_ms });
}

const ISSUE = chain('<->', 700);
const TOO_DEEP = 'error: budget: 1:3504: formula nests deeper than 500 levels\n';

test("the issue's 8 KB <-> chain: translate, check, parse, monitor and plan --spec refuse it at once with exit 3", () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-ltl-deep-'));
  const file = join(dir, 'deep.ltl');
  writeFileSync(file, ISSUE);
  const runs: [string[], string][] = [
    [['ltl', 'translate', '--time-limit-ms', '2000', ISSUE], TOO_DEEP],
    [['ltl', 'check', '--cycle', 'p0;p1', ISSUE], TOO_DEEP],
    [['ltl', 'parse', ISSUE], TOO_DEEP],
    [['ltl', 'monitor', '--word', 'p0;p1', ISSUE], TOO_DEEP],
    [['ltl', 'translate', '--file', file], `error: budget: ${file}: 1:3504: formula nests deeper than 500 levels\n`],
    [
      ['plan', '--graph', WAREHOUSE, '--spec', ISSUE],
      'error: budget: --spec:1:3504: formula nests deeper than 500 levels\n',
    ],
  ];
  for (const [args, message] of runs) {
    const r = witness(args, 20_000);
    assert.equal(r.signal, null, `${args[1]} ended`);
    assert.equal(r.status, 3, `${args.slice(0, 2).join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, message);
  }
});

test('a formula within the nesting limit whose automaton is far too large ends with its time budget, naming the stage', () => {
  // 499 right-associative U: a minute and more of work; --time-limit-ms 2000 ends it (10× bound)
  const text = chain('U', 499);
  for (const command of [
    ['ltl', 'translate'],
    ['ltl', 'check', '--cycle', 'p0'],
    ['ltl', 'monitor', '--word', 'p0;p1'],
  ]) {
    const r = witness([...command, '--time-limit-ms', '2000', text], 20_000);
    assert.equal(r.signal, null, `${command[1]} ended within 20 s`);
    assert.equal(r.status, 3, `${command[1]}: ${r.stderr}`);
    assert.match(r.stderr, /^error: budget: translation exceeded its time budget of 2000 ms during [a-zA-Zü ]+\n$/);
  }
});

test('every hostile shape through ltl translate, check, monitor and parse: exit 0, 1 or 3 with a message, never 2 or 70', async () => {
  for (const shape of hostileShapes()) {
    for (const args of [
      ['ltl', 'translate', '--time-limit-ms', '200', shape.text],
      ['ltl', 'check', '--time-limit-ms', '200', '--prefix', 'p0', '--cycle', 'p1;a', shape.text],
      ['ltl', 'monitor', '--time-limit-ms', '200', '--word', 'p0;p1;a', shape.text],
      ['ltl', 'parse', shape.text],
    ]) {
      const r = await cli(...args);
      const what = `${shape.name}: ${args[1]}`;
      if (shape.refused) {
        assert.equal(r.code, 3, what);
        assert.match(
          r.err,
          /^error: budget: (\d+:\d+: formula nests deeper than 500 levels|formula is \d+ characters long; the limit is 10000)\n$/,
          what,
        );
        continue;
      }
      assert.ok([0, 1, 3].includes(r.code), `${what}: exit ${r.code} ${r.err}`);
      if (r.code === 3) assert.match(r.err, /^error: budget: translation exceeded its [^\n]+ during [^\n]+\n$/, what);
      else assert.equal(r.err, '', what);
    }
  }
});

test('property: random deep chains (50 to 5000 operators) through ltl translate and check exit 0, 1 or 3, never 2 or 70', async () => {
  const ops = ['&', '|', '->', '<->', 'U', 'R', 'W'];
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.integer({ min: 50, max: 500 }), fc.integer({ min: 50, max: 5000 })),
      fc.array(fc.tuple(fc.constantFrom(...ops), fc.constantFrom('', '!', 'F ', 'G '), fc.boolean()), {
        minLength: 1,
        maxLength: 8,
      }),
      async (n, pattern) => {
        let text = 'p0';
        for (let i = 0; i < n; i++) {
          const [op, wrap, paren] = pattern[i % pattern.length]!;
          text = paren ? `(${text} ${op} ${wrap}p${i % 5})` : `${text} ${op} ${wrap}p${i % 5}`;
        }
        for (const args of [
          ['translate', '--time-limit-ms', '100', text],
          ['check', '--time-limit-ms', '100', '--cycle', 'p0;p1', text],
        ]) {
          const r = await cli('ltl', ...args);
          assert.ok([0, 1, 3].includes(r.code), `exit ${r.code}: ${r.err}`);
          if (r.code === 3) assert.match(r.err, /^error: budget: [^\n]+\n$/);
        }
      },
    ),
    { seed: 6, numRuns: 25 },
  );
});

/**
 * The CLI's numeric and URL flags are strict: plain decimal, finite, every part given, no hex, no
 * trailing junk — a bad value exits 2 naming the flag and the value, in every command.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CliError } from '../../main/cli/errors.js';
import {
  durationFlag,
  httpUrlFlag,
  intFlag,
  numberFlag,
  pointFlag,
  strictInteger,
  strictNumber,
} from '../../main/cli/flags.js';
import { cli, asset } from './harness.js';

const BAD_NUMBERS = [
  '',
  ' ',
  '0x10',
  '0b1',
  '0o7',
  '1e400',
  '-1e400',
  'NaN',
  'Infinity',
  '-Infinity',
  '1.2.3',
  '5x',
  '1_000',
  '--1',
  '1e',
  '.',
  '+',
  '١٢',
];

test('strictNumber / strictInteger: decimal only, finite, nothing else', () => {
  for (const v of BAD_NUMBERS) {
    assert.equal(strictNumber(v), null, JSON.stringify(v));
    assert.equal(strictInteger(v), null, JSON.stringify(v));
  }
  assert.deepEqual(
    ['0', '-2', '+3', ' 4 ', '1.5', '.5', '5.', '1e3', '-2.5E-3'].map(strictNumber),
    [0, -2, 3, 4, 1.5, 0.5, 5, 1000, -0.0025],
  );
  assert.deepEqual(['0', '-2', '+3', ' 4 '].map(strictInteger), [0, -2, 3, 4]);
  for (const v of ['1.0', '1e3', '9007199254740993']) assert.equal(strictInteger(v), null, v);
  // Every finite double's own decimal text reads back as itself; every integer's as itself.
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => strictNumber(String(x)) === x),
    { seed: 18, numRuns: 500 },
  );
  fc.assert(
    fc.property(fc.maxSafeInteger(), (n) => strictInteger(String(n)) === n),
    { seed: 18, numRuns: 500 },
  );
  // Junk appended to a number is never accepted.
  fc.assert(
    fc.property(
      fc.integer(),
      fc.constantFrom('x', 'e', ',', '0x', ' 1', '#', 'n'),
      (n, junk) => strictNumber(`${n}${junk}`) === null,
    ),
    { seed: 18, numRuns: 200 },
  );
});

test('intFlag / numberFlag / pointFlag / httpUrlFlag: a usage error (exit 2) naming the flag and the value', () => {
  const usage = (f: () => unknown, msg: RegExp): void =>
    assert.throws(f, (e: unknown) => e instanceof CliError && e.code === 'invalid-input' && msg.test(e.message));
  usage(() => intFlag('--seed', 0)('0x10'), /^--seed must be an integer ≥ 0, got '0x10'$/);
  usage(() => intFlag('--seed', 0)('-1'), /^--seed must be an integer ≥ 0, got '-1'$/);
  usage(() => intFlag('--replans', 0, 20)('21'), /^--replans must be an integer in 0\.\.20, got '21'$/);
  usage(() => numberFlag('--lambda', 0, 1)('1e400'), /^--lambda must be a number in \[0, 1\], got '1e400'$/);
  usage(() => numberFlag('--lambda', 0, 1)(''), /got ''$/);
  assert.equal(numberFlag('--lambda', 0, 1)('0.25'), 0.25);
  for (const [v, why] of [
    [',', 'x is ""'],
    ['0x4,20', 'x is "0x4"'],
    ['4,', 'y is ""'],
    ['4,20,1', '3 part(s)'],
    ['4', '1 part(s)'],
    ['4,1e400', 'y is "1e400"'],
    ['', '1 part(s)'],
  ] as const) {
    usage(
      () => pointFlag(v),
      new RegExp(
        `^--start must be x,y in metres \\(two decimal numbers\\), got '${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' \\(${why.replace(/[()]/g, '\\$&')}\\)$`,
      ),
    );
  }
  assert.deepEqual(pointFlag(' 4.5 , -2 '), [4.5, -2]);
  usage(() => httpUrlFlag('--llm-url')('not a url'), /^--llm-url must be an http:\/\/ or https:\/\/ URL/);
  usage(() => httpUrlFlag('--llm-url')('file:///etc/passwd'), /scheme file:/);
  assert.equal(httpUrlFlag('--llm-url')('https://llm.example:8443/base'), 'https://llm.example:8443/base');
});

test('the commands read their numeric flags strictly: plan, run, graph, audit, bench (exit 2, nothing runs)', async () => {
  const graph = asset('graphs/warehouse.json');
  for (const [args, msg] of [
    [
      ['plan', '--graph', graph, '--spec', 'F pack', '--start', ','],
      /^error: --start must be x,y in metres \(two decimal numbers\), got ',' \(x is ""\)\n/,
    ],
    [
      ['plan', '--graph', graph, '--spec', 'F pack', '--start', '0x4,20'],
      /^error: --start must be x,y in metres .*got '0x4,20' \(x is "0x4"\)\n/,
    ],
    [
      ['plan', '--graph', graph, '--spec', 'F pack', '--seed', '0x10'],
      /^error: --seed must be an integer ≥ 0, got '0x10'\n/,
    ],
    [
      ['plan', '--graph', graph, '--spec', 'F pack', '--time-limit-ms', '1e400'],
      /^error: --time-limit-ms must be an integer ≥ 1, got '1e400'\n/,
    ],
    [
      ['plan', '--graph', graph, '--spec', 'F pack', '--lambda', 'NaN'],
      /^error: --lambda must be a number in \[0, 1\], got 'NaN'\n/,
    ],
    [['run', '--spec', 'F e1', '--regions', 'r.json', '--start', ','], /^error: --start must be x,y in metres/],
    [['run', '--spec', 'F e1', '--regions', 'r.json', '--start', '0x4,20'], /^error: --start must be x,y in metres/],
    [
      ['run', '--spec', 'F e1', '--regions', 'r.json', '--max-steps', ''],
      /^error: --max-steps must be an integer ≥ 1, got ''\n/,
    ],
    [
      ['graph', 'build', '--data', 'd', '--models', 'm', '--out', 'o', '--te-threshold', 'Infinity'],
      /^error: --te-threshold must be a number in \[-1, 1\], got 'Infinity'\n/,
    ],
    [['graph', 'from-map', 'm.yaml', '--out', 'o', '--spacing', '0x1'], /^error: --spacing must be a number in/],
    [['demo', '--steps', '2e4x'], /^error: --steps must be an integer in 1\.\.100000000, got '2e4x'\n/],
    [
      ['audit', 'query', 'db.sqlite', '--from', '0x10'],
      /^error: --from must be a time: a span back from now \(7d, 12h, 30m, 45s, 2w\), an ISO 8601 date or date-time \(2025-01-31T12:00:00Z\), or milliseconds since 1970; got '0x10'\n/,
    ],
    [['audit', 'query', 'db.sqlite', '--limit', '-5'], /^error: --limit must be an integer in 1\.\.100000, got '-5'\n/],
    [['bench', 'plan', '--seed', '1.5'], /^error: --seed must be an integer in 0\.\.2147483647, got '1\.5'\n/],
  ] as const) {
    const r = await cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, msg, args.join(' '));
    assert.equal(r.out, '', args.join(' '));
  }
});

test('durations: ms, s, m, h or bare seconds, within the bounds; anything else names the flag and the value', () => {
  const d = durationFlag('--interval', 10, 3_600_000);
  assert.equal(d('2s'), 2000);
  assert.equal(d('500ms'), 500);
  assert.equal(d('1.5m'), 90_000);
  assert.equal(d('1h'), 3_600_000);
  assert.equal(d('3'), 3000);
  assert.equal(d(' 0.25 s '), 250);
  for (const bad of ['', 's', '2x', '5ms', '2h', '-1s', 'NaNs', '1e400s', '0x10s', '2 s s'])
    assert.throws(() => d(bad), /--interval must be a duration from 10 ms to 3600 s .*got '/, bad);
});

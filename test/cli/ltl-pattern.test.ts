/**
 * `witness ltl pattern`: the catalogue listed with its parameters, a pattern printed instantiated (and read back by
 * `ltl parse` as the same formula), and bad input refused with exit 2 and a message that says what is wrong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PATTERNS, patternUsage } from '../../main/core/ltl/patterns.js';
import { cli } from './harness.js';

test('ltl pattern --list shows every pattern with its parameters and description', async () => {
  const r = await cli('ltl', 'pattern', '--list');
  assert.equal(r.code, 0, r.err);
  for (const p of PATTERNS) {
    const line = r.out.split('\n').find((l) => l.trim().startsWith(patternUsage(p) + ' '));
    assert.ok(line !== undefined, `${p.name} listed`);
    assert.ok(line.endsWith(p.description), line);
  }
  assert.match(r.out, /^ {2}response-between P S Q R +S responds to P/m);
  assert.match(r.out, /^ {2}ordered-patrolling l… +/m);
  const j = await cli('ltl', 'pattern', '--list', '--json');
  assert.equal(j.code, 0, j.err);
  const rows = JSON.parse(j.out) as { name: string; params: { name: string; kind: string }[] }[];
  assert.equal(rows.length, PATTERNS.length);
  assert.deepEqual(
    rows.find((x) => x.name === 'reaction-within')!.params.map((x) => [x.name, x.kind]),
    [
      ['c', 'formula'],
      ['p', 'formula'],
      ['n', 'count'],
    ],
  );
});

test('ltl pattern prints the instantiated formula, arguments being formulas', async () => {
  const cases: [string[], string][] = [
    [['response', 'req', 'ack'], 'G (req -> F ack)'],
    [['absence-before', 'crash', 'done'], 'F done -> !crash U done'],
    [['precedence-after-until', 'open', 'unlock', 'start', 'stop'], 'G (start & !stop -> !open W (unlock | stop))'],
    [['ordered-visit', 'a', 'b', 'c'], 'F (a & F (b & F c)) & !b U a & !c U b'],
    [['delayed-reaction', 'alarm', 'home | dock'], 'G (alarm -> F (home | dock))'],
    [['upper-restricted-avoidance', 'door', '1'], '!F (door & F (!door & F door))'],
  ];
  for (const [args, want] of cases) {
    const r = await cli('ltl', 'pattern', ...args);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, want + '\n', args.join(' '));
    const back = await cli('ltl', 'parse', want);
    assert.equal(back.out, want + '\n', 'canonical');
  }
  const j = await cli('ltl', 'pattern', '--json', 'response', 'req', 'ack');
  assert.equal(j.code, 0, j.err);
  assert.deepEqual(JSON.parse(j.out), { pattern: 'response', args: ['req', 'ack'], formula: 'G (req -> F ack)' });
});

test('ltl pattern: bad input is an error with exit 2', async () => {
  const cases: [string[], RegExp][] = [
    [['respnse', 'a', 'b'], /^error: no pattern "respnse" \(did you mean response\?\)/],
    [['zzzzzzzz'], /^error: no pattern "zzzzzzzz"; `witness ltl pattern --list` lists them\n$/],
    [['response', 'a'], /^error: response takes 2 arguments \(response P S\), got 1\n$/],
    [['absence-between', 'a', 'b', 'c', 'd'], /takes 3 arguments \(absence-between P Q R\), got 4/],
    [['visit'], /^error: visit takes 1 to 8 arguments \(visit l…\), got 0\n$/],
    [['visit', ...'abcdefghi'.split('')], /takes 1 to 8 arguments .*got 9/],
    [['response', 'a', 'b &'], /^error: response: argument 2 \(S\) is not a formula: 1:4: /],
    [['patrolling', 'a', 'b c'], /argument 2 \(l…\) is not a formula/],
    [['reaction-within', 'c', 'p', '0'], /argument 3 \(n\) must be an integer from 1 to 16, got "0"/],
    [['exact-restricted-avoidance', 'l', '2.5'], /must be an integer from 1 to 16, got "2.5"/],
    [[], /^error: missing pattern name/],
    [['--list', 'visit'], /--list takes no pattern name/],
  ];
  for (const [args, err] of cases) {
    const r = await cli('ltl', 'pattern', ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, err);
    assert.equal(r.out, '');
  }
});

/**
 * Issue 22: the LTL tools (`witness ltl translate|parse|check|monitor` and the API's ltlTranslate)
 * read Spot's whole syntax, X included; every mission path (plan, run, the console, the API's
 * planGraph and automatonView, the editor's check) still refuses X with the stutter-invariance
 * message at its position.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  automatonOf,
  checkLasso,
  monitorWord,
  parseFormula,
  translate,
  translateRequest,
  TOOL_SYNTAX,
} from '../../main/app/ltl.js';
import { specOf } from '../../main/app/task-inputs.js';
import { automatonViewOf, planLabelledGraph } from '../../main/app/plan.js';
import { checkLtl } from '../../main/services/editor/ltl-check.js';
import { LtlSyntaxError } from '../../main/core/ltl/errors.js';
import { WitnessError } from '../../main/contract/errors.js';
import { cli } from './harness.js';

const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));
const NEXT_MESSAGE =
  'the next operator X is not supported: specifications must be stutter-invariant (LTL without next)';

test('the real binary translates G (a -> X b)', () => {
  const r = spawnSync(process.execPath, [BIN, 'ltl', 'translate', 'G (a -> X b)'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^HOA: v1\nname: "G \(a -> X b\)"\n/);
  assert.match(r.stdout, /--END--\n$/);
  assert.equal(r.stderr, '');
});

test('ltl parse: X, M, xor and 1/0 in canonical form (read the same way by Spot)', async () => {
  const cases: [string, string][] = [
    ['X X a', 'X X a'],
    ['a M b', 'a M b'],
    ['a xor b', 'a ^ b'],
    ['1 & F 0', 'true & F false'],
    ['a -> b <-> c', '(a -> b) <-> c'],
    ['a <-> b <-> c', '(a <-> b) <-> c'],
  ];
  for (const [src, printed] of cases) {
    const r = await cli('ltl', 'parse', src);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `${printed}\n`, src);
  }
  const json = JSON.parse((await cli('ltl', 'parse', '--json', 'X a')).out) as unknown;
  assert.deepEqual(json, { kind: 'X', arg: { kind: 'ap', name: 'a' } });
  assert.equal((await cli('ltl', 'parse', '--syntax', 'spin', 'a M X b')).out, 'X b U (a && X b)\n');
});

test('ltl check with X: exact on the lasso (exit 0 satisfied, 1 violated)', async () => {
  const yes = await cli('ltl', 'check', 'X a', '--prefix', ';a', '--cycle', '{}');
  assert.equal(yes.code, 0, yes.err);
  assert.equal(yes.out, 'satisfied: {} {a} ({})^ω ⊨ X a\n');
  const no = await cli('ltl', 'check', 'X X a', '--prefix', ';a', '--cycle', '{}', '--json');
  assert.equal(no.code, 1);
  assert.deepEqual(JSON.parse(no.out), { formula: 'X X a', satisfied: false });
  // the cycle wraps: the successor of its last letter is its first
  assert.equal((await cli('ltl', 'check', 'G (a -> X b)', '--cycle', 'a;b')).code, 0);
  assert.equal((await cli('ltl', 'check', 'G (a -> X b)', '--cycle', 'a;a,b')).code, 1);
  assert.equal((await cli('ltl', 'check', 'a M b', '--prefix', 'b', '--cycle', 'a,b')).code, 0);
  assert.equal((await cli('ltl', 'check', 'a ^ b', '--cycle', 'a,b')).code, 1);
});

test('ltl monitor with X: G (a -> X b) is violated at the letter after an a without b', async () => {
  const r = await cli('ltl', 'monitor', 'G (a -> X b)', '--word', 'a;b;a;;b', '--json');
  assert.equal(r.code, 1);
  const viable = r.out
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { viable: boolean }).viable);
  assert.deepEqual(viable, [true, true, true, false, false]);
  const ok = await cli('ltl', 'monitor', 'X X a', '--word', ';;a');
  assert.equal(ok.code, 0, ok.out);
});

test('the app functions behind the tools accept X; automatonOf does only when asked', () => {
  assert.deepEqual(parseFormula('X a'), { kind: 'X', arg: { kind: 'ap', name: 'a' } });
  assert.match(translate('X a').output, /^HOA: v1/);
  assert.equal(checkLasso('X a', ';a', '{}').satisfied, true);
  assert.equal(monitorWord('X a', ';').steps.length, 2);
  assert.equal(automatonOf('X a', {}, TOOL_SYNTAX).states.length, 3);
  assert.throws(
    () => automatonOf('X a'),
    (e: unknown) => e instanceof LtlSyntaxError && e.detail === NEXT_MESSAGE,
  );
  const api = translateRequest({ formula: 'G (a -> X b)' });
  assert.equal(api.ok, true);
});

test('mission paths refuse X with the stutter-invariance message at its position', () => {
  // run / plan / the console / bench missions: app/mission.ts
  assert.throws(
    () => specOf('F dock & G (dock -> X pack)'),
    (e: unknown) =>
      e instanceof WitnessError && e.code === 'invalid-spec' && e.message === `--spec:1:21: ${NEXT_MESSAGE}`,
  );
  // the API's planGraph and automatonView (app/plan.ts)
  const g = { nodes: [{ id: 'a', labels: ['dock'] }], edges: [], start: 'a' };
  const p = planLabelledGraph({ graph: g, spec: 'X dock' });
  assert.equal(p.ok, false);
  assert.deepEqual(!p.ok && { message: p.error.message, line: p.error.line, column: p.error.column }, {
    message: NEXT_MESSAGE,
    line: 1,
    column: 1,
  });
  assert.throws(
    () => automatonViewOf('G X dock'),
    (e: unknown) => e instanceof WitnessError && e.message === `spec: 1:3: ${NEXT_MESSAGE}`,
  );
  // the editor's check of a specification
  const d = checkLtl('F a U X b', null).diagnostics;
  assert.equal(d.length, 1);
  assert.equal(d[0]!.message, NEXT_MESSAGE);
  assert.equal(d[0]!.startColumn, 7);
  // the other new syntax is stutter-invariant and accepted there
  assert.doesNotThrow(() => specOf('dock M F pack & (dock ^ pack | 1)'));
});

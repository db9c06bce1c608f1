import { test } from 'node:test';
import assert from 'node:assert/strict';
import { translateLtl } from '../../../main/core/ltl/translate.js';
import { StateSetMonitor, monitorWord } from '../../../main/core/ltl/monitor.js';

const L = (...names: string[]): Set<string> => new Set(names);

test('the monitor flags the step where ¬e5 U e7 is broken, and not before', () => {
  const a = translateLtl('G (F (e1 & F (e2 & F e3))) & F (e4 & F (e5 & F e6)) & (!e5 U e7)').automaton;
  const steps = monitorWord(a, [L(), L('e1'), L('e5'), L('e7')]);
  assert.deepEqual(
    steps.map((s) => s.viable),
    [true, true, false, false],
  );
  assert.deepEqual(steps[2]!.states, []);
  assert.equal(steps[2]!.position, 3);
});

test('the monitor keeps every state some run can be in, and reports acceptance', () => {
  const a = translateLtl('F a').automaton;
  const m = new StateSetMonitor(a);
  assert.deepEqual(m.snapshot().states, [...a.initial]);
  const s1 = m.step(L('b'));
  assert.equal(s1.accepting, false);
  const s2 = m.step(L('a'));
  assert.equal(s2.accepting, true);
  assert.equal(s2.viable, true);
  // after a, anything is fine
  assert.equal(m.step(L()).viable, true);
});

test('safety: G !b dies on the first b; names the automaton does not know are ignored', () => {
  const a = translateLtl('G !b').automaton;
  const steps = monitorWord(a, [L('zzz'), L('a'), L('b')]);
  assert.deepEqual(
    steps.map((s) => s.viable),
    [true, true, false],
  );
});

test('a monitor can start from a given state set (replanning resumes logical progress)', () => {
  const a = translateLtl('F (a & F b)').automaton;
  const m = new StateSetMonitor(a);
  const after = m.step(L('a'));
  const resumed = new StateSetMonitor(a, after.states);
  assert.equal(resumed.step(L('b')).accepting, true);
  assert.throws(() => new StateSetMonitor(a, [99]), /monitor start state 99 is not a state of the automaton/);
});

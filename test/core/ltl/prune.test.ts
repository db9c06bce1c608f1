import { test } from 'node:test';
import assert from 'node:assert/strict';
import { translateLtl } from '../../../main/core/ltl/translate.js';
import { pruneAutomaton } from '../../../main/core/ltl/prune.js';
import { counts } from '../../../main/core/ltl/automaton.js';
import { toJson } from '../../../main/core/ltl/formats.js';

test('pruning works on a copy: the unpruned automaton is frozen and unchanged', () => {
  const a = translateLtl('F (a & b) | G F c').automaton;
  const before = JSON.stringify(toJson(a));
  assert.ok(Object.isFrozen(a) && Object.isFrozen(a.edges) && Object.isFrozen(a.edges[0]!.guard));
  const p = pruneAutomaton(a, { disjoint: true, unavailable: ['c'] });
  assert.equal(JSON.stringify(toJson(a)), before);
  assert.notEqual(p.automaton, a);
});

test('disjoint mode drops terms with two positive literals and says which', () => {
  const a = translateLtl('F (a & b)').automaton;
  const p = pruneAutomaton(a, { disjoint: true });
  assert.ok(p.report.droppedTerms.length > 0);
  assert.ok(p.report.droppedTerms.every((d) => d.reason === 'disjoint' && d.propositions.join() === 'a,b'));
  assert.equal(p.report.empty, true, 'F (a & b) needs two regions at once');
});

test('unavailable propositions: terms that need them go, the rest stays', () => {
  const a = translateLtl('F (a | b)').automaton;
  const p = pruneAutomaton(a, { unavailable: ['a', 'nope'] });
  assert.equal(p.report.empty, false);
  assert.deepEqual(p.report.unknownPropositions, ['nope']);
  assert.ok(p.report.droppedTerms.some((d) => d.reason === 'unavailable' && d.propositions.join() === 'a'));
  for (const e of p.automaton.edges) for (const t of e.guard) assert.equal(t.pos & 1n, 0n);
  const q = pruneAutomaton(a, { unavailable: ['a', 'b'] });
  assert.equal(q.report.empty, true);
  assert.equal(q.automaton.edges.length, 0);
});

test('accepting targets that cannot lie on a cycle or cannot be reached stop being targets', () => {
  // After dropping every term that needs b, the accepting loop of G F b is gone.
  const a = translateLtl('F a & G F b').automaton;
  const p = pruneAutomaton(a, { unavailable: ['b'] });
  assert.equal(p.report.empty, true);
  assert.ok(p.report.droppedTargets.length + p.report.removedStates.length > 0);
  const kept = pruneAutomaton(a, {});
  assert.deepEqual(counts(kept.automaton), counts(a));
  assert.deepEqual(
    kept.origin,
    a.states.map((_, i) => i),
  );
});

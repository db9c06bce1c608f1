import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { translateFormula, translateLtl } from '../../../main/core/ltl/translate.js';
import { toDot, toHoa, toJson } from '../../../main/core/ltl/formats.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import type { BuchiAutomaton } from '../../../main/core/ltl/automaton.js';
import { lassoArb, letterArb, temporalArb } from './arbitraries.js';

/**
 * A reader for the HOA v1 subset we write (explicit labels, Buchi, state or transition
 * acceptance), written from the format's grammar, to check that the text means the automaton.
 */
function readHoa(text: string): BuchiAutomaton {
  const [header, body] = text.split('--BODY--\n') as [string, string];
  assert.ok(body.endsWith('--END--\n'), 'ends with --END--');
  const lines = header.trim().split('\n');
  assert.equal(lines[0], 'HOA: v1');
  const field = (name: string): string[] =>
    lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).trim());
  const nStates = Number(field('States')[0]);
  const start = field('Start').map(Number);
  const apLine = field('AP')[0]!;
  const apCount = Number(apLine.split(' ')[0]);
  const aps = [...apLine.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
  assert.equal(aps.length, apCount);
  assert.deepEqual(field('Acceptance'), ['1 Inf(0)']);
  assert.deepEqual(field('acc-name'), ['Buchi']);
  const props = field('properties')[0]!.split(/\s+/);
  const transAcc = props.includes('trans-acc');
  const states: { accepting: boolean; name: string }[] = [];
  const edges: { from: number; to: number; guard: { pos: bigint; neg: bigint }[] }[] = [];
  let cur = -1;
  for (const line of body
    .replace('--END--\n', '')
    .split('\n')
    .filter((l) => l !== '')) {
    const st = /^State: (\d+)(?: "((?:[^"\\]|\\.)*)")?( \{0\})?$/.exec(line);
    if (st) {
      cur = Number(st[1]);
      assert.equal(cur, states.length, 'states in order');
      states.push({ accepting: st[3] !== undefined, name: st[2] ?? '' });
      continue;
    }
    const ed = /^\[([^\]]+)\] (\d+)( \{0\})?$/.exec(line);
    assert.ok(ed, `edge line: ${line}`);
    const guard = ed[1]!.split(' | ').map((termText) => {
      let pos = 0n,
        neg = 0n;
      if (termText !== 't') {
        for (const lit of termText.split(' & ')) {
          const m = /^(!?)(\d+)$/.exec(lit);
          assert.ok(m, `literal ${lit}`);
          assert.ok(Number(m[2]) < apCount);
          if (m[1]) neg |= 1n << BigInt(m[2]!);
          else pos |= 1n << BigInt(m[2]!);
        }
      }
      return { pos, neg };
    });
    if (transAcc && ed[3]) states[cur]!.accepting = true;
    edges.push({ from: cur, to: Number(ed[2]), guard });
  }
  assert.equal(states.length, nStates);
  return { aps, states, initial: start, edges, formula: '' };
}

test('HOA output carries the header Spot reads and the automaton itself', () => {
  const a = translateLtl('G F a & (!b U c)').automaton;
  const hoa = toHoa(a);
  for (const h of [
    'HOA: v1',
    `States: ${a.states.length}`,
    'Start: 0',
    'AP: 3 "a" "b" "c"',
    'Acceptance: 1 Inf(0)',
    'acc-name: Buchi',
  ]) {
    assert.ok(hoa.includes(`${h}\n`), h);
  }
  assert.match(hoa, /\[[0-9!& |t]+\] \d+/);
  assert.match(hoa, /properties: trans-labels explicit-labels state-acc/);
  assert.match(toHoa(a, 'transition'), /trans-acc/);
});

test('reading the HOA back gives an automaton with the same language, state- or transition-based (500 cases)', () => {
  fc.assert(
    fc.property(temporalArb(), fc.array(lassoArb(letterArb()), { minLength: 6, maxLength: 6 }), (f, words) => {
      const a = translateFormula(f).automaton;
      const fromState = readHoa(toHoa(a, 'state'));
      const fromTrans = readHoa(toHoa(a, 'transition'));
      for (const w of words) {
        const want = acceptsLasso(a, w);
        assert.equal(acceptsLasso(fromState, w), want);
        assert.equal(acceptsLasso(fromTrans, w), want);
      }
    }),
    { numRuns: 500, seed: 21 },
  );
});

test('names with quotes are escaped in HOA and DOT; JSON lists guards by proposition name', () => {
  const a = translateLtl('F "say \\"hi\\"" & G !"x\\\\y"').automaton;
  const hoa = toHoa(a);
  assert.match(hoa, /AP: 2 "say \\"hi\\"" "x\\\\y"/);
  const dot = toDot(a);
  assert.match(dot, /^digraph buchi \{/);
  assert.match(dot, /doublecircle/);
  const j = toJson(a);
  assert.equal(j.format, 'witness-buchi');
  assert.deepEqual(j.aps, ['say "hi"', 'x\\y']);
  assert.ok(j.edges.every((e) => e.guard.every((t) => t.pos.every((p) => j.aps.includes(p)))));
  assert.equal(j.counts.states, a.states.length);
});

test('the empty language is one non-accepting state with no edges', () => {
  const a = translateLtl('F a & G !a').automaton;
  assert.equal(a.states.length, 1);
  assert.equal(a.edges.length, 0);
  assert.equal(a.states[0]!.accepting, false);
  const back = readHoa(toHoa(a));
  assert.equal(back.states.length, 1);
});

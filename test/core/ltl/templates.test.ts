/** Every Table E.1 template and the paper's case-study formulas: automaton and semantics agree. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  TEMPLATE_NAMES,
  generateTask,
  instantiate,
  templateArity,
  DIFFICULTY,
} from '../../../main/core/ltl/templates.js';
import { CASE_STUDIES } from '../../../main/core/ltl/case-studies.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { pruneAutomaton } from '../../../main/core/ltl/prune.js';
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import { createRng } from '../../../main/core/random/rng.js';
import { disjointLetterArb, lassoArb, letterArb, showLasso } from './arbitraries.js';

const REGIONS = ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8'];

function checkAgainstWords(f: Formula, runs: number, seed: number): void {
  const props = atomicPropositions(f);
  const a = translateFormula(f).automaton;
  const disjoint = pruneAutomaton(a, { disjoint: true }).automaton;
  // Words biased towards the formula's own propositions, plus an unrelated one.
  const pool = [...props, 'zz'];
  fc.assert(
    fc.property(lassoArb(letterArb(pool), 6, 6), lassoArb(disjointLetterArb(pool), 8, 6), (w, d) => {
      assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      assert.equal(acceptsLasso(a, d), evaluateLasso(f, d), `${printLtl(f)} on ${showLasso(d)}`);
      assert.equal(acceptsLasso(disjoint, d), evaluateLasso(f, d), `pruned ${printLtl(f)} on ${showLasso(d)}`);
    }),
    { numRuns: runs, seed },
  );
}

test('every Table E.1 template at every arity agrees with the semantics', () => {
  let seed = 100;
  for (const name of TEMPLATE_NAMES) {
    const [lo, hi] = templateArity(name);
    for (let m = lo; m <= hi; m++) checkAgainstWords(instantiate(name, REGIONS.slice(0, m)), 150, seed++);
  }
});

test('the case-study formulas (Eq. 6, I.1, I.2, the hard giant) agree with the semantics', () => {
  CASE_STUDIES.forEach((cs, i) => checkAgainstWords(parseLtl(cs.formula), 400, 200 + i));
});

test("hand-made witnesses for Eq. 6: the satisfying and violating lassos of the paper's story", () => {
  const f = parseLtl(CASE_STUDIES[0]!.formula);
  const a = translateFormula(f).automaton;
  const L = (...xs: string[][]) => xs.map((x) => new Set(x));
  const ok = { prefix: L([], ['e7'], ['e4'], ['e5'], ['e6']), cycle: L(['e1'], ['e2'], ['e3']) };
  const early = { prefix: L(['e5'], ['e7'], ['e4'], ['e5'], ['e6']), cycle: L(['e1'], ['e2'], ['e3']) };
  const noPatrol = { prefix: L(['e7'], ['e4'], ['e5'], ['e6'], ['e1'], ['e2'], ['e3']), cycle: L([]) };
  assert.equal(acceptsLasso(a, ok), true);
  assert.equal(acceptsLasso(a, early), false);
  assert.equal(acceptsLasso(a, noPatrol), false);
});

test('generated suites follow Table E.2 and are deterministic from the seed', () => {
  for (const d of ['easy', 'medium', 'hard'] as const) {
    const a = createRng(5),
      b = createRng(5);
    for (let i = 0; i < 50; i++) {
      const x = generateTask(a, d),
        y = generateTask(b, d);
      assert.equal(printLtl(x.formula), printLtl(y.formula));
      const { templates, regions } = DIFFICULTY[d];
      assert.ok(x.templates.length >= templates[0] && x.templates.length <= templates[1]);
      for (const p of atomicPropositions(x.formula)) assert.ok(Number(p.slice(1)) < regions, p);
    }
  }
});

test('generated Hard tasks agree with the semantics (40 tasks)', () => {
  const rng = createRng(9);
  for (let i = 0; i < 40; i++) checkAgainstWords(generateTask(rng, 'hard').formula, 25, 300 + i);
});

/**
 * Every pattern of the catalogue, in every scope, is proved equal to its published LTL: instantiated with fresh
 * propositions, translated with our engine, and compared with a reference formula written here from the published
 * tables (the property pattern mappings of Dwyer, Avrunin and Corbett, their revised LTL page; the robotic mission
 * patterns of Menghi et al., written out for three locations) by containment both ways. The references are texts in
 * the tables' own notation ([] <> W), read by our parser; none calls the catalogue's builders.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PATTERNS, instantiatePattern } from '../../../main/core/ltl/patterns.js';
import { languageContained, languageEquivalent } from '../../../main/core/ltl/equivalence.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import type { Formula } from '../../../main/core/ltl/ast.js';

const read = (t: string): Formula => parseLtl(t, { allowNext: true });

/** The published mappings, by pattern name, with the tables' placeholders P S T Q R. */
const PROPERTY: Record<string, string> = {
  absence: '[](!P)',
  'absence-before': '<>R -> (!P U R)',
  'absence-after': '[](Q -> [](!P))',
  'absence-between': '[]((Q & !R & <>R) -> (!P U R))',
  'absence-after-until': '[](Q & !R -> (!P W R))',
  existence: '<>(P)',
  'existence-before': '!R W (P & !R)',
  'existence-after': '[](!Q) | <>(Q & <>P)',
  'existence-between': '[](Q & !R -> (!R W (P & !R)))',
  'existence-after-until': '[](Q & !R -> (!R U (P & !R)))',
  'bounded-existence': '(!P W (P W (!P W (P W []!P))))',
  'bounded-existence-before':
    '<>R -> ((!P & !R) U (R | ((P & !R) U (R | ((!P & !R) U (R | ((P & !R) U (R | (!P U R)))))))))',
  'bounded-existence-after': '<>Q -> (!Q U (Q & (!P W (P W (!P W (P W []!P))))))',
  'bounded-existence-between':
    '[]((Q & <>R) -> ((!P & !R) U (R | ((P & !R) U (R | ((!P & !R) U (R | ((P & !R) U (R | (!P U R))))))))))',
  'bounded-existence-after-until':
    '[](Q -> ((!P & !R) U (R | ((P & !R) U (R | ((!P & !R) U (R | ((P & !R) U (R | (!P W R) | []P)))))))))',
  universality: '[](P)',
  'universality-before': '<>R -> (P U R)',
  'universality-after': '[](Q -> [](P))',
  'universality-between': '[]((Q & !R & <>R) -> (P U R))',
  'universality-after-until': '[](Q & !R -> (P W R))',
  precedence: '!P W S',
  'precedence-before': '<>R -> (!P U (S | R))',
  'precedence-after': '[]!Q | <>(Q & (!P W S))',
  'precedence-between': '[]((Q & !R & <>R) -> (!P U (S | R)))',
  'precedence-after-until': '[](Q & !R -> (!P W (S | R)))',
  response: '[](P -> <>S)',
  'response-before': '<>R -> (P -> (!R U (S & !R))) U R',
  'response-after': '[](Q -> [](P -> <>S))',
  'response-between': '[]((Q & !R & <>R) -> (P -> (!R U (S & !R))) U R)',
  'response-after-until': '[](Q & !R -> ((P -> (!R U (S & !R))) W R))',
  'precedence-chain': '<>P -> (!P U (S & !P & X(!P U T)))',
  'response-chain': '[](P -> <>(S & X<>T))',
};

/** The placeholders filled with fresh propositions (parenthesised, as a formula argument would be). */
function fill(template: string, names: Record<string, string>): string {
  return template.replace(/\b[PSTQR]\b/g, (k) => `(${names[k]!})`);
}

/** Robotic mission patterns over the locations a b c (the catalogue's l1 l2 l3), counts as given. */
const ROBOTIC: readonly [string, readonly string[], string][] = [
  ['visit', ['a', 'b', 'c'], 'F a & F b & F c'],
  ['sequenced-visit', ['a', 'b', 'c'], 'F (a & F (b & F c))'],
  ['ordered-visit', ['a', 'b', 'c'], 'F (a & F (b & F c)) & (!b U a) & (!c U b)'],
  [
    'strict-ordered-visit',
    ['a', 'b', 'c'],
    'F (a & F (b & F c)) & (!b U a) & (!c U b) & (!a U (a & X (!a U b))) & (!b U (b & X (!b U c)))',
  ],
  ['fair-visit', ['a', 'b', 'c'], 'F a & F b & F c & G (a -> X (!a U b)) & G (b -> X (!b U c)) & G (c -> X (!c U a))'],
  ['patrolling', ['a', 'b', 'c'], 'G F a & G F b & G F c'],
  ['sequenced-patrolling', ['a', 'b', 'c'], 'G (F (a & F (b & F c)))'],
  [
    'ordered-patrolling',
    ['a', 'b', 'c'],
    'G (F (a & F (b & F c))) & (!b U a) & (!c U b) & G (b -> X (!b U a)) & G (c -> X (!c U b)) & G (a -> X (!a U c))',
  ],
  [
    'strict-ordered-patrolling',
    ['a', 'b', 'c'],
    'G (F (a & F (b & F c))) & (!b U a) & (!c U b) & G (b -> X (!b U a)) & G (c -> X (!c U b)) & ' +
      'G (a -> X (!a U c)) & G (a -> X (!a U b)) & G (b -> X (!b U c)) & G (c -> X (!c U a))',
  ],
  [
    'fair-patrolling',
    ['a', 'b', 'c'],
    'G F a & G F b & G F c & G (a -> X (!a U b)) & G (b -> X (!b U c)) & G (c -> X (!c U a))',
  ],
  ['avoidance', ['p'], 'G !p'],
  ['past-avoidance', ['c', 'p'], '!p U c'],
  ['future-avoidance', ['c', 'p'], 'G (c -> G !p)'],
  // visits counted as entries, written as the bounded-existence chains of weak untils
  ['lower-restricted-avoidance', ['l', '1'], 'F l'],
  ['lower-restricted-avoidance', ['l', '3'], '!(!l W (l W (!l W (l W G !l))))'],
  ['upper-restricted-avoidance', ['l', '1'], '!l W (l W G !l)'],
  ['upper-restricted-avoidance', ['l', '2'], '!l W (l W (!l W (l W G !l)))'],
  ['exact-restricted-avoidance', ['l', '2'], '!(!l W (l W G !l)) & (!l W (l W (!l W (l W G !l))))'],
  ['wait', ['l', 'c'], 'l U c'],
  ['instantaneous-reaction', ['c', 'p'], 'G (c -> p)'],
  ['delayed-reaction', ['c', 'p'], 'G (c -> F p)'],
  ['prompt-reaction', ['c', 'p'], 'G (c -> X p)'],
  ['bound-reaction', ['c', 'p'], 'G (c <-> p)'],
  ['bound-delay', ['c', 'p'], 'G (c <-> X p)'],
  ['reaction-within', ['c', 'p', '2'], 'G (c -> (p | X p | X X p))'],
];

function assertEquivalent(name: string, got: Formula, want: Formula): void {
  const ab = languageContained(got, want);
  const ba = languageContained(want, got);
  assert.equal(ab, true, `${name}: ${printLtl(got)} ⊆ ${printLtl(want)}`);
  assert.equal(ba, true, `${name}: ${printLtl(want)} ⊆ ${printLtl(got)}`);
}

test('every property pattern in every scope equals its published LTL mapping', () => {
  const fresh = { P: 'p_x', S: 's_x', T: 't_x', Q: 'q_x', R: 'r_x' };
  for (const p of PATTERNS.filter((x) => x.family === 'property')) {
    const published = PROPERTY[p.name];
    assert.ok(published !== undefined, `${p.name} has a reference`);
    const args = p.params.map((x) => fresh[x.name as keyof typeof fresh]);
    assertEquivalent(p.name, instantiatePattern(p.name, args).formula, read(fill(published, fresh)));
  }
});

test('every robotic mission pattern equals its published LTL', () => {
  const covered = new Set(ROBOTIC.map(([name]) => name));
  for (const p of PATTERNS.filter((x) => x.family === 'robotic')) assert.ok(covered.has(p.name), `${p.name} tested`);
  for (const [name, args, published] of ROBOTIC) {
    assertEquivalent(`${name} ${args.join(' ')}`, instantiatePattern(name, args).formula, read(published));
  }
});

test('arguments may be formulas: the published mapping with the placeholders replaced by them', () => {
  const names = { P: 'a & b', S: 'F c', Q: 'd | e', R: '!a' };
  const got = instantiatePattern('response-between', ['a & b', 'F c', 'd | e', '!a']).formula;
  assertEquivalent('response-between', got, read(fill(PROPERTY['response-between']!, names)));
  const one = instantiatePattern('ordered-visit', ['dock']).formula;
  assertEquivalent('ordered-visit dock', one, read('F dock'));
});

test('the check tells a pattern from a near miss (the proof can fail)', () => {
  const fresh = { P: 'p', S: 's', T: 't', Q: 'q', R: 'r' };
  const misses: [string, string[], string][] = [
    // the original mapping of existence before R lets P and R hold together; the revised one does not
    ['existence-before', ['p', 'r'], '<>R -> (!R U P)'],
    ['absence-after-until', ['p', 'q', 'r'], '[](Q & !R -> (!P U R))'],
    ['precedence', ['p', 's'], '!P U S'],
    ['response-before', ['p', 's', 'r'], '<>R -> (P -> (!R U S)) U R'],
    ['bounded-existence', ['p'], '(!P W (P W []!P))'],
  ];
  for (const [name, args, near] of misses) {
    assert.equal(languageEquivalent(instantiatePattern(name, args).formula, read(fill(near, fresh))), false, name);
  }
  assert.equal(languageEquivalent(instantiatePattern('ordered-visit', ['a', 'b']).formula, read('F (a & F b)')), false);
  assert.equal(languageContained(instantiatePattern('ordered-visit', ['a', 'b']).formula, read('F (a & F b)')), true);
});

/**
 * Spot's whole syntax in the LTL engine: X (where allowed), M, xor / ^, the constants 1 and
 * 0; and a printer whose output Spot reads as the same tree Witness does. The reference reader below
 * follows Spot's grammar (spot/parsetl/parsetl.yy: `->` and `<->` one level, right-associative; then
 * `|`, `^`/xor, `&`, all left-associative; then U R W M, one level, right-associative; then the
 * prefix operators) and Spot's lexer for the words it reserves (true and false in any case, 1, 0,
 * xor, first_match).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { LtlSyntaxError } from '../../../main/core/ltl/errors.js';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { translateLtl } from '../../../main/core/ltl/translate.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { monitorWord } from '../../../main/core/ltl/monitor.js';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { formulaArb } from './arbitraries.js';

const NEXT = { allowNext: true } as const;
const p = (s: string): Formula => parseLtl(s, NEXT);
const a: Formula = { kind: 'ap', name: 'a' };
const b: Formula = { kind: 'ap', name: 'b' };
const c: Formula = { kind: 'ap', name: 'c' };

// ---- a reference reader with Spot's precedence and reserved words ----

type SpotTok = { k: string; v?: string };

function spotLex(src: string): SpotTok[] {
  const out: SpotTok[] = [];
  let i = 0;
  const IDENT = /^(?:[a-zA-EH-WYZ_.][a-zA-Z0-9_.]*|[FGX][0-9][a-zA-Z0-9_.]*)/;
  const WORDS: [RegExp, string][] = [
    [/^(?:1|[tT][rR][uU][eE])/, 'true'],
    [/^(?:0|[fF][aA][lL][sS][eE])/, 'false'],
    [/^xor/, '^'],
    [/^first_match/, 'first_match'],
  ];
  const OPS = ['<->', '->', '&&', '||', '&', '|', '^', '!', '(', ')', 'F', 'G', 'X', 'U', 'R', 'V', 'W', 'M'];
  while (i < src.length) {
    const rest = src.slice(i);
    if (/^\s/.test(rest)) {
      i++;
      continue;
    }
    if (rest[0] === '"') {
      let j = i + 1,
        v = '';
      while (src[j] !== '"') {
        if (j >= src.length) throw new Error('unclosed string');
        if (src[j] === '\\') j++;
        v += src[j++];
      }
      out.push({ k: 'ap', v });
      i = j + 1;
      continue;
    }
    // flex: the longest match wins, and of equally long ones the rule listed first (words and operators before
    // identifiers)
    const ident = IDENT.exec(rest)?.[0] ?? '';
    const word = WORDS.map(([re, k]) => [re.exec(rest)?.[0] ?? '', k] as const).find(([m]) => m !== '');
    const op = OPS.find((o) => rest.startsWith(o)) ?? '';
    const best = Math.max(ident.length, word?.[0].length ?? 0, op.length);
    if (best === 0) throw new Error(`Spot: unexpected ${rest[0]}`);
    if (word !== undefined && word[0].length === best) {
      out.push({ k: word[1] });
      i += best;
      continue;
    }
    if (op.length === best) {
      out.push({ k: op === '&&' ? '&' : op === '||' ? '|' : op === 'V' ? 'R' : op });
      i += best;
      continue;
    }
    out.push({ k: 'ap', v: ident });
    i += best;
  }
  return out;
}

function spotParse(src: string): Formula {
  const t = spotLex(src);
  let i = 0;
  const peek = (): string => t[i]?.k ?? 'eof';
  const eat = (k: string): void => {
    if (peek() !== k) throw new Error(`Spot: expected ${k}, found ${peek()} in ${src}`);
    i++;
  };
  const KIND: Record<string, Formula['kind']> = { '->': 'implies', '<->': 'iff', U: 'U', R: 'R', W: 'W', M: 'M' };
  const bin = (kind: Formula['kind'], left: Formula, right: Formula): Formula => ({ kind, left, right }) as Formula;
  const imp = (): Formula => {
    // %right OP_IMPLIES OP_EQUIV
    const left = or();
    if (peek() === '->' || peek() === '<->') {
      const k = KIND[t[i++]!.k]!;
      return bin(k, left, imp());
    }
    return left;
  };
  const nary = (kind: 'and' | 'or', tok: string, sub: () => Formula) => (): Formula => {
    // %left, one multop per chain
    const args = [sub()];
    while (peek() === tok) {
      i++;
      args.push(sub());
    }
    return args.length === 1 ? args[0]! : { kind, args };
  };
  const xor = (): Formula => {
    // %left OP_XOR
    let left = and();
    while (peek() === '^') {
      i++;
      left = bin('xor', left, and());
    }
    return left;
  };
  const temporal = (): Formula => {
    // %right OP_U OP_R OP_M OP_W
    const left = prefix();
    if (['U', 'R', 'W', 'M'].includes(peek())) {
      const k = KIND[t[i++]!.k]!;
      return bin(k, left, temporal());
    }
    return left;
  };
  const and = nary('and', '&', temporal);
  const or = nary('or', '|', xor);
  const prefix = (): Formula => {
    const k = peek();
    if (k === '!' || k === 'F' || k === 'G' || k === 'X') {
      i++;
      const arg = prefix();
      return { kind: k === '!' ? 'not' : k, arg };
    }
    return primary();
  };
  const primary = (): Formula => {
    const tok = t[i++];
    if (tok === undefined) throw new Error(`Spot: unexpected end of ${src}`);
    if (tok.k === '(') {
      const f = imp();
      eat(')');
      return f;
    }
    if (tok.k === 'true' || tok.k === 'false') return { kind: tok.k };
    if (tok.k === 'ap') return { kind: 'ap', name: tok.v! };
    throw new Error(`Spot: unexpected ${tok.k} in ${src}`);
  };
  const f = imp();
  eat('eof');
  return f;
}

// ---- the syntax ----

test('X with allowNext: a unary operator like F and G', () => {
  assert.deepEqual(p('X a'), { kind: 'X', arg: a });
  assert.deepEqual(p('X X a'), { kind: 'X', arg: { kind: 'X', arg: a } });
  assert.deepEqual(p('G (a -> X b)'), { kind: 'G', arg: { kind: 'implies', left: a, right: { kind: 'X', arg: b } } });
  assert.deepEqual(p('X a U b'), { kind: 'U', left: { kind: 'X', arg: a }, right: b });
  assert.deepEqual(p('!X a & X !b'), {
    kind: 'and',
    args: [
      { kind: 'not', arg: { kind: 'X', arg: a } },
      { kind: 'X', arg: { kind: 'not', arg: b } },
    ],
  });
  assert.deepEqual(p('XFa'), { kind: 'X', arg: { kind: 'F', arg: a } });
  assert.equal(printLtl(p('X(a)&X X(b|c)')), 'X a & X X (b | c)');
});

test('X without allowNext (the default): the stutter-invariance message at the same places as before', () => {
  for (const [src, col] of [
    ['X a', 1],
    ['a U X b', 5],
    ['G (a -> X b)', 9],
    ['(X a)', 2],
    ['a X', 3],
    ['(a X b)', 4],
  ] as const) {
    for (const options of [{}, { allowNext: false }]) {
      try {
        parseLtl(src, options);
        assert.fail(`${src} parsed`);
      } catch (e) {
        assert.ok(e instanceof LtlSyntaxError, String(e));
        assert.equal(e.column, col, src);
        assert.equal(
          e.detail,
          'the next operator X is not supported: specifications must be stutter-invariant (LTL without next)',
        );
      }
    }
  }
  // with X allowed, an X where an operator belongs is an ordinary syntax error
  assert.throws(
    () => p('a X b'),
    (e: unknown) =>
      e instanceof LtlSyntaxError && e.column === 3 && /expected an operator or end of input, found 'X'/.test(e.detail),
  );
});

test('M: strong release, at the level of U R W, right-associative', () => {
  assert.deepEqual(p('a M b'), { kind: 'M', left: a, right: b });
  assert.deepEqual(parseLtl('a U b M c'), { kind: 'U', left: a, right: { kind: 'M', left: b, right: c } });
  assert.deepEqual(parseLtl('a M b U c'), { kind: 'M', left: a, right: { kind: 'U', left: b, right: c } });
  assert.deepEqual(parseLtl('a M b & c'), { kind: 'and', args: [{ kind: 'M', left: a, right: b }, c] });
  assert.deepEqual(parseLtl('!a M F b'), { kind: 'M', left: { kind: 'not', arg: a }, right: { kind: 'F', arg: b } });
});

test("xor and ^: exclusive or, between | and &, left-associative (Spot's levels)", () => {
  const x = (l: Formula, r: Formula): Formula => ({ kind: 'xor', left: l, right: r });
  assert.deepEqual(parseLtl('a ^ b'), x(a, b));
  assert.deepEqual(parseLtl('a xor b'), x(a, b));
  assert.deepEqual(parseLtl('a ^ b ^ c'), x(x(a, b), c));
  assert.deepEqual(parseLtl('a | b ^ c'), { kind: 'or', args: [a, x(b, c)] });
  assert.deepEqual(parseLtl('a ^ b & c'), x(a, { kind: 'and', args: [b, c] }));
  assert.deepEqual(parseLtl('a ^ b -> c'), { kind: 'implies', left: x(a, b), right: c });
  assert.deepEqual(parseLtl('a U b ^ c'), x({ kind: 'U', left: a, right: b }, c));
  assert.deepEqual(parseLtl('"xor" ^ xora'), x({ kind: 'ap', name: 'xor' }, { kind: 'ap', name: 'xora' }));
  assert.equal(printLtl(parseLtl('(a ^ b) ^ c')), 'a ^ b ^ c');
  assert.equal(printLtl(parseLtl('a ^ (b ^ c)')), 'a ^ (b ^ c)');
  assert.equal(printLtl(parseLtl('(a | b) ^ c & d')), '(a | b) ^ c & d');
  assert.throws(
    () => parseLtl('a ^'),
    (e: unknown) => e instanceof LtlSyntaxError && /expected a formula after '\^', found end of input/.test(e.detail),
  );
  assert.throws(
    () => parseLtl('a xor | b'),
    (e: unknown) => e instanceof LtlSyntaxError && e.column === 7 && /after 'xor', found '\|'/.test(e.detail),
  );
});

test('1 and 0 are true and false; other numbers are refused', () => {
  assert.deepEqual(parseLtl('1'), { kind: 'true' });
  assert.deepEqual(parseLtl('0'), { kind: 'false' });
  assert.deepEqual(parseLtl('F 0 | G 1'), parseLtl('F false | G true'));
  assert.deepEqual(parseLtl('"1" & "0"'), {
    kind: 'and',
    args: [
      { kind: 'ap', name: '1' },
      { kind: 'ap', name: '0' },
    ],
  });
  assert.equal(printLtl(parseLtl('"1" & 1')), '"1" & true');
  for (const src of ['10', '01', '1a', 'a & 2']) {
    assert.throws(
      () => parseLtl(src),
      (e: unknown) => e instanceof LtlSyntaxError,
      src,
    );
  }
  assert.throws(
    () => parseLtl('a & 10'),
    (e: unknown) => e instanceof LtlSyntaxError && e.column === 5 && /unexpected '10'/.test(e.detail),
  );
});

test('canonical printing of the new operators', () => {
  const cases: [string, string][] = [
    ['X a', 'X a'],
    ['X X a', 'X X a'],
    ['G (a -> X b)', 'G (a -> X b)'],
    ['X (a U b)', 'X (a U b)'],
    ['a M b', 'a M b'],
    ['a M (b M c)', 'a M b M c'],
    ['(a M b) M c', '(a M b) M c'],
    ['a ^ b', 'a ^ b'],
    ['1', 'true'],
    ['0', 'false'],
    ['F 0', 'F false'],
    ['G 1', 'G true'],
  ];
  for (const [src, printed] of cases) {
    assert.equal(printLtl(p(src)), printed, src);
    assert.deepEqual(p(printed), p(src), src);
  }
  // the spin style expands what ltl2ba lacks
  assert.equal(printLtl(p('a M b'), 'spin'), 'b U (a && b)');
  assert.equal(printLtl(p('a ^ b'), 'spin'), '!(a <-> b)');
  assert.equal(printLtl(p('[] (a -> X b)'), 'spin'), '[](a -> X b)');
});

// ---- what Spot reads ----

test("the reference reader has Spot's precedence: one right-associative level for -> and <->", () => {
  assert.deepEqual(spotParse('a -> b <-> c'), { kind: 'implies', left: a, right: { kind: 'iff', left: b, right: c } });
  assert.deepEqual(spotParse('a <-> b <-> c'), { kind: 'iff', left: a, right: { kind: 'iff', left: b, right: c } });
  assert.deepEqual(spotParse('a | b ^ c & tRUE'), {
    kind: 'or',
    args: [a, { kind: 'xor', left: b, right: { kind: 'and', args: [c, { kind: 'true' }] } }],
  });
  // so Witness's old printing of these two trees was misread by Spot:
  assert.notDeepEqual(spotParse('a -> b <-> c'), parseLtl('a -> b <-> c'));
  assert.notDeepEqual(spotParse('a <-> b <-> c'), parseLtl('a <-> b <-> c'));
});

test('the printer parenthesises -> and <-> so that Spot and Witness read the same tree', () => {
  const cases: [string, string][] = [
    ['(a -> b) <-> c', '(a -> b) <-> c'],
    ['a -> (b <-> c)', 'a -> (b <-> c)'],
    ['a <-> b <-> c', '(a <-> b) <-> c'],
    ['a <-> (b <-> c)', 'a <-> (b <-> c)'],
    ['a <-> (b -> c)', 'a <-> (b -> c)'],
    ['a -> b -> c', 'a -> b -> c'],
    ['(a -> b) -> c', '(a -> b) -> c'],
    ['(a <-> b) -> c', '(a <-> b) -> c'],
    ['a | b <-> c & d', 'a | b <-> c & d'],
  ];
  for (const [src, printed] of cases) {
    const f = parseLtl(src);
    assert.equal(printLtl(f), printed, src);
    assert.deepEqual(parseLtl(printed), f, `Witness reads ${printed}`);
    assert.deepEqual(spotParse(printed), f, `Spot reads ${printed}`);
  }
});

test('property: every printed formula reads back as the same tree, by Witness and by Spot (3000 cases)', () => {
  const props = ['a', 'b', 'c', 'true', 'tRUE', 'False', 'xor', 'first_match', 'x y', 'q"2', 'aUb', 'e1'];
  fc.assert(
    fc.property(formulaArb(props, 5, true), (f: Formula) => {
      const s = printLtl(f);
      assert.deepEqual(parseLtl(s, NEXT), f, s);
      assert.deepEqual(spotParse(s), f, `Spot reads ${s}`);
    }),
    { numRuns: 3000, seed: 21 },
  );
});

test('property: the spin spelling of formulas with X, M and xor means the same (1000 cases)', () => {
  const word = fc
    .tuple(
      fc.array(fc.subarray(['a', 'b', 'c']), { maxLength: 3 }),
      fc.array(fc.subarray(['a', 'b', 'c']), { minLength: 1, maxLength: 3 }),
    )
    .map(([prefix, cycle]): Lasso => ({ prefix: prefix.map((l) => new Set(l)), cycle: cycle.map((l) => new Set(l)) }));
  fc.assert(
    fc.property(formulaArb(['a', 'b', 'c'], 4, true), fc.array(word, { minLength: 4, maxLength: 4 }), (f, ws) => {
      const g = p(printLtl(f, 'spin'));
      for (const w of ws) assert.equal(evaluateLasso(g, w), evaluateLasso(f, w), printLtl(f, 'spin'));
    }),
    { numRuns: 1000, seed: 22 },
  );
});

test('parse is total on printable garbage with the new tokens, X allowed or not', () => {
  const alphabet = fc.constantFrom(...'abFGUXRWMV!&|^-<>[]()" \n10xor'.split(''), 'true', 'xor');
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 30 }).map((cs) => cs.join('')),
      fc.boolean(),
      (src, allowNext) => {
        try {
          parseLtl(src, { allowNext });
        } catch (e) {
          const err = e as { name?: string; line?: number; column?: number };
          assert.equal(err.name, 'LtlSyntaxError', String(e));
          const lines = src.split('\n');
          assert.ok(err.line! >= 1 && err.line! <= lines.length);
          assert.ok(err.column! >= 1 && err.column! <= lines[err.line! - 1]!.length + 1);
        }
      },
    ),
    { numRuns: 3000, seed: 23 },
  );
});

// ---- meaning: the evaluator, the automaton, the monitor ----

const w = (prefix: string[][], cycle: string[][]): Lasso => ({
  prefix: prefix.map((l) => new Set(l)),
  cycle: cycle.map((l) => new Set(l)),
});

test('hand-checked verdicts with X, M, xor and the constants (evaluator and automaton agree)', () => {
  const cases: [string, Lasso, boolean][] = [
    ['X a', w([[]], [['a']]), true],
    ['X a', w([['a']], [[]]), false],
    ['X a', w([], [['a'], []]), false],
    ['X X a', w([], [['a'], []]), true],
    ['X X a', w([['a'], []], [['b']]), false],
    ['G (a -> X b)', w([], [['a'], ['b']]), true],
    ['G (a -> X b)', w([], [['a'], []]), false],
    ['G (a -> X b)', w([], [['a', 'b']]), true],
    ['G (a -> X b)', w([['a'], ['b']], [[]]), true],
    ['G (a -> X b)', w([['a'], ['a', 'b']], [['a']]), false],
    ['a M b', w([['b'], ['a', 'b']], [[]]), true],
    ['a M b', w([], [['b']]), false],
    ['a M b', w([['b'], []], [['a', 'b']]), false],
    ['a W b', w([], [['a']]), true],
    ['a ^ b', w([['a']], [[]]), true],
    ['a ^ b', w([['a', 'b']], [[]]), false],
    ['a ^ b', w([[]], [['a']]), false],
    ['1', w([], [[]]), true],
    ['0', w([], [[]]), false],
    ['F 0', w([['a']], [['a']]), false],
    ['G 1', w([], [[]]), true],
    ['G F X a', w([], [['a'], []]), true],
    ['F G X a', w([], [['a'], []]), false],
  ];
  for (const [f, word, expected] of cases) {
    assert.equal(evaluateLasso(p(f), word), expected, `semantics: ${f}`);
    assert.equal(acceptsLasso(translateLtl(f, NEXT).automaton, word), expected, `automaton: ${f}`);
  }
});

test('automata of the specific cases', () => {
  const size = (f: string): number => translateLtl(f, NEXT).automaton.states.length;
  const empty = (f: string): boolean => translateLtl(f, NEXT).automaton.edges.length === 0;
  assert.ok(empty('F 0'), 'F 0 has the empty language');
  assert.ok(empty('0'));
  assert.ok(empty('X 0'));
  assert.ok(empty('X a & X !a'));
  assert.equal(size('G 1'), 1);
  assert.equal(size('1'), 1);
  assert.equal(size('X a'), 3);
  assert.equal(size('X X a'), 4);
  // translateLtl takes the parse options too: X is refused unless asked for
  assert.throws(
    () => translateLtl('X a'),
    (e: unknown) => e instanceof LtlSyntaxError && /stutter-invariant/.test(e.detail),
  );
  // the HOA name is the canonical form, which Spot reads the same way
  assert.equal(translateLtl('(a -> b) <-> X c', NEXT).automaton.formula, '(a -> b) <-> X c');
});

test('the monitor with X: G (a -> X b) is broken at the step after an a without b, not before', () => {
  const a1 = translateLtl('G (a -> X b)', NEXT).automaton;
  const steps = monitorWord(a1, [new Set(['a']), new Set(['b']), new Set(['a']), new Set(), new Set(['b'])]);
  assert.deepEqual(
    steps.map((s) => s.viable),
    [true, true, true, false, false],
  );
  // X X a: any two letters, then a
  const a2 = translateLtl('X X a', NEXT).automaton;
  assert.deepEqual(
    monitorWord(a2, [new Set(), new Set(), new Set()]).map((s) => s.viable),
    [true, true, false],
  );
  assert.deepEqual(
    monitorWord(a2, [new Set(), new Set(), new Set(['a'])]).map((s) => s.viable),
    [true, true, true],
  );
});

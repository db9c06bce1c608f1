import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { LtlBudgetError, LtlSyntaxError } from '../../../main/core/ltl/errors.js';
import { type Formula, formulaDepth } from '../../../main/core/ltl/ast.js';

const show = (s: string): string => printLtl(parseLtl(s));

test('precedence: unary > U R W M > & > ^ > | > -> > <->', () => {
  assert.deepEqual(parseLtl('!a U b'), {
    kind: 'U',
    left: { kind: 'not', arg: { kind: 'ap', name: 'a' } },
    right: { kind: 'ap', name: 'b' },
  });
  assert.equal(show('a & b U c'), 'a & b U c');
  assert.deepEqual(parseLtl('a & b U c'), {
    kind: 'and',
    args: [
      { kind: 'ap', name: 'a' },
      { kind: 'U', left: { kind: 'ap', name: 'b' }, right: { kind: 'ap', name: 'c' } },
    ],
  });
  assert.deepEqual(parseLtl('a | b & c'), {
    kind: 'or',
    args: [
      { kind: 'ap', name: 'a' },
      {
        kind: 'and',
        args: [
          { kind: 'ap', name: 'b' },
          { kind: 'ap', name: 'c' },
        ],
      },
    ],
  });
  const imp = parseLtl('a -> b <-> c | d');
  assert.equal(imp.kind, 'iff');
  // printed so that Spot, which gives -> and <-> one right-associative level, reads the same tree
  assert.equal(printLtl(parseLtl('(a -> b) <-> c')), '(a -> b) <-> c');
  assert.equal(printLtl(parseLtl('a -> b <-> c | d')), '(a -> b) <-> c | d');
});

test('-> is right-associative, U chains are right-associative, & and | are n-ary', () => {
  assert.deepEqual(parseLtl('a -> b -> c'), parseLtl('a -> (b -> c)'));
  assert.notDeepEqual(parseLtl('a -> b -> c'), parseLtl('(a -> b) -> c'));
  assert.deepEqual(parseLtl('a U b U c'), parseLtl('a U (b U c)'));
  const conj = parseLtl('a & b & c & d');
  assert.equal(conj.kind, 'and');
  assert.equal(conj.kind === 'and' ? conj.args.length : 0, 4);
});

test('spin / ltl2ba spellings mean the same', () => {
  assert.deepEqual(parseLtl('[]<>a && (b || c) && (a V b)'), parseLtl('G F a & (b | c) & (a R b)'));
  assert.deepEqual(parseLtl('<>[] a'), parseLtl('F G a'));
  assert.deepEqual(parseLtl('GFa'), parseLtl('G F a'));
});

test('propositions: identifiers and double-quoted names; keywords', () => {
  assert.deepEqual(parseLtl('_x9Y'), { kind: 'ap', name: '_x9Y' });
  assert.deepEqual(parseLtl('"red mug" & "say \\"hi\\""'), {
    kind: 'and',
    args: [
      { kind: 'ap', name: 'red mug' },
      { kind: 'ap', name: 'say "hi"' },
    ],
  });
  assert.deepEqual(parseLtl('true | false'), { kind: 'or', args: [{ kind: 'true' }, { kind: 'false' }] });
  assert.deepEqual(parseLtl('"true"'), { kind: 'ap', name: 'true' });
  assert.equal(show('"true" & "a b"'), '"true" & "a b"');
});

function syntaxError(src: string): LtlSyntaxError {
  try {
    parseLtl(src);
  } catch (e) {
    assert.ok(e instanceof LtlSyntaxError, `expected a syntax error, got ${String(e)}`);
    return e;
  }
  assert.fail(`'${src}' parsed but should not`);
}

test('malformed input: each error names line:column and what was expected', () => {
  const cases: [string, number, number, RegExp][] = [
    ['', 1, 1, /expected a formula, found end of input/],
    ['a &', 1, 4, /expected a formula after '&', found end of input/],
    ['a & & b', 1, 5, /expected a formula after '&', found '&'/],
    ['(a | b', 1, 7, /expected '\)' to close '\(' at 1:1, found end of input/],
    ['a b', 1, 3, /expected an operator or end of input, found proposition 'b'/],
    ['a)', 1, 2, /unmatched '\)'/],
    ['()', 1, 2, /expected a formula inside '\(\)'/],
    ['F', 1, 2, /expected a formula after 'F'/],
    ['a - b', 1, 3, /expected '->'/],
    ['a < b', 1, 3, /expected '<->' or '<>'/],
    ['[ a', 1, 1, /expected '\[\]'/],
    ['a $ b', 1, 3, /unexpected character '\$'/],
    ['Abc', 1, 1, /unexpected 'A'/],
    ['"open', 1, 1, /unterminated quoted proposition/],
    ['""', 1, 1, /empty quoted proposition/],
    ['G (a ->\n  F b) &\n  (c U', 3, 7, /expected a formula after 'U', found end of input/],
    ['a &\n\n   )', 3, 4, /expected a formula after '&', found '\)'/],
  ];
  for (const [src, line, column, msg] of cases) {
    const e = syntaxError(src);
    assert.equal(`${e.line}:${e.column}`, `${line}:${column}`, `position for ${JSON.stringify(src)}: ${e.message}`);
    assert.match(e.detail, msg, `message for ${JSON.stringify(src)}`);
    assert.equal(e.message, `${line}:${column}: ${e.detail}`);
  }
});

test('X is rejected with the stutter-invariance message, wherever it appears', () => {
  for (const [src, col] of [
    ['X a', 1],
    ['a U X b', 5],
    ['G (a -> X b)', 9],
    ['(X a)', 2],
  ] as const) {
    const e = syntaxError(src);
    assert.equal(e.column, col, src);
    assert.match(e.detail, /stutter-invariant/);
  }
});

test('budgets: length and nesting fail fast with a clear error, never a stack overflow', () => {
  const long = Array.from({ length: 2600 }, (_, i) => `p${i}`).join(' & ');
  assert.ok(long.length > 10_000);
  assert.throws(
    () => parseLtl(long),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'length' && /limit is 10000/.test(e.message),
  );
  assert.doesNotThrow(() => parseLtl(long, { maxLength: 20_000 }));
  const deep = '('.repeat(4000) + 'a' + ')'.repeat(4000);
  assert.throws(
    () => parseLtl(deep),
    (e: unknown) =>
      e instanceof LtlBudgetError &&
      e.budget === 'depth' &&
      /^1:\d+: formula nests deeper than 500 levels/.test(e.message),
  );
  const nots = '!'.repeat(5000) + 'a';
  assert.throws(
    () => parseLtl(nots),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth',
  );
  const chain = Array.from({ length: 3000 }, () => 'a').join(' U ');
  assert.throws(
    () => parseLtl(chain, { maxLength: 100_000 }),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth',
  );
  // a long flat conjunction is fine: it is one n-ary node
  const flat = Array.from({ length: 1200 }, (_, i) => `F p${i % 7}`).join(' & ');
  assert.ok(flat.length < 10_000);
  assert.equal(parseLtl(flat).kind, 'and');
});

test('the nesting limit covers the tree built: a left-associative <-> chain is refused at the operator past the limit', () => {
  const chain = (n: number, sep = ' <-> '): string => Array.from({ length: n + 1 }, (_, i) => `p${i % 7}`).join(sep);
  // 500 operators: a tree 500 levels deep, accepted
  assert.equal(formulaDepth(parseLtl(chain(500))), 500);
  // 501: refused at the 501st '<->', before anything recurses over the tree
  const src = chain(501);
  const at = src.lastIndexOf('<->') + 1;
  assert.throws(
    () => parseLtl(src),
    (e: unknown) =>
      e instanceof LtlBudgetError &&
      e.budget === 'depth' &&
      e.limit === 500 &&
      e.message === `1:${at}: formula nests deeper than 500 levels`,
  );
  // the issue's shape: 700 operators, 8 KB of the same propositions
  const issue = chain(700);
  assert.throws(
    () => parseLtl(issue),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth' && /^1:3504: /.test(e.message),
  );
  // the same proposition repeated, written tightly (2400 operators in under 10 000 characters)
  assert.throws(
    () => parseLtl(Array.from({ length: 2401 }, () => 'a').join('<->')),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth' && /^1:2002: /.test(e.message),
  );
  // across lines the position is the line and column of the operator
  const lines = Array.from({ length: 502 }, (_, i) => `p${i % 7}`).join('\n<-> ');
  assert.throws(
    () => parseLtl(lines),
    (e: unknown) => e instanceof LtlBudgetError && /^502:1: /.test(e.message),
  );
  // a custom limit applies to the tree as well
  assert.throws(
    () => parseLtl(chain(11), { maxNesting: 10 }),
    (e: unknown) => e instanceof LtlBudgetError && e.limit === 10,
  );
  assert.doesNotThrow(() => parseLtl(chain(10), { maxNesting: 10 }));
});

test('the nesting limit covers every operator: junctions, implications and temporal operators nested through parentheses or unary operators', () => {
  const leftParen = (op: string, n: number): string => {
    let s = 'a';
    for (let i = 0; i < n; i++) s = `(${s} ${op} b)`;
    return s;
  };
  for (const op of ['&', '|', '->', '<->', 'U', 'R', 'W']) {
    assert.equal(formulaDepth(parseLtl(leftParen(op, 480))), 480, op);
    assert.throws(
      () => parseLtl(leftParen(op, 900)),
      (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth',
      op,
    );
  }
  // each level is one pair of parentheses but two operators (& under |): the tree is what counts
  const twice = (n: number): string => {
    let f = 'a';
    for (let i = 0; i < n; i++) f = `(${f} & b | c)`;
    return f;
  };
  assert.equal(formulaDepth(parseLtl(twice(250))), 500);
  assert.throws(
    () => parseLtl(twice(251)),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth',
  );
  // unary towers and long right-associative chains as before
  assert.equal(formulaDepth(parseLtl('!'.repeat(500) + 'a')), 500);
  assert.throws(
    () => parseLtl('!'.repeat(501) + 'a'),
    (e: unknown) => e instanceof LtlBudgetError && /^1:501: /.test(e.message),
  );
  assert.throws(
    () => parseLtl(Array.from({ length: 502 }, () => 'a').join(' -> ')),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'depth',
  );
});

test('formulaDepth measures a formula built in code without recursing (200 000 levels)', () => {
  let f: Formula = { kind: 'ap', name: 'a' };
  for (let i = 0; i < 200_000; i++)
    f = i % 2 === 0 ? { kind: 'iff', left: f, right: { kind: 'ap', name: 'b' } } : { kind: 'and', args: [f, f] };
  assert.equal(formulaDepth(f), 200_000);
  assert.equal(formulaDepth({ kind: 'true' }), 0);
  assert.equal(formulaDepth(parseLtl('G (a -> F b) & c U d')), 4);
});

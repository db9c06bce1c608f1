import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { formulaArb, lassoArb, letterArb } from './arbitraries.js';
import type { Formula } from '../../../main/core/ltl/ast.js';

/** The parser flattens nested and/or; printing keeps parentheses, so round trips are exact. */
test('print then parse gives back the same tree (2000 cases)', () => {
  const props = ['a', 'b', 'c', 'true', 'x y', 'q"2'];
  fc.assert(
    fc.property(formulaArb(props, 5), (f: Formula) => {
      assert.deepEqual(parseLtl(printLtl(f)), f, printLtl(f));
    }),
    { numRuns: 2000, seed: 11 },
  );
});

test('the spin spelling means the same formula (1000 cases)', () => {
  fc.assert(
    fc.property(formulaArb(), fc.array(lassoArb(letterArb()), { minLength: 4, maxLength: 4 }), (f, words) => {
      const g = parseLtl(printLtl(f, 'spin'));
      for (const w of words) assert.equal(evaluateLasso(g, w), evaluateLasso(f, w), printLtl(f, 'spin'));
    }),
    { numRuns: 1000, seed: 12 },
  );
});

test('parse is total on printable garbage: a formula or a positioned syntax error, nothing else', () => {
  const alphabet = fc.constantFrom(...'abFGUXRWV!&|-<>[]()" \ntrue'.split(''));
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 30 }).map((cs) => cs.join('')),
      (src) => {
        try {
          parseLtl(src);
        } catch (e) {
          const err = e as { name?: string; line?: number; column?: number };
          assert.equal(err.name, 'LtlSyntaxError', String(e));
          assert.ok(err.line! >= 1 && err.column! >= 1);
          const lines = src.split('\n');
          assert.ok(err.line! <= lines.length, `line ${err.line} beyond input`);
          assert.ok(err.column! <= lines[err.line! - 1]!.length + 1, `column ${err.column} beyond line`);
        }
      },
    ),
    { numRuns: 3000, seed: 13 },
  );
});

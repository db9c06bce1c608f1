import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createDirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { atomicPropositions } from '../../main/core/ltl/ast.js';
import { LtlSyntaxError } from '../../main/core/ltl/errors.js';
import { parseLtl } from '../../main/core/ltl/parser.js';
import { lexLtl, tokenAt } from '../../main/services/editor/ltl-lexer.js';
import { checkLtl } from '../../main/services/editor/ltl-check.js';

const range = (d: { startLine: number; startColumn: number; endLine: number; endColumn: number }): string =>
  `${d.startLine}:${d.startColumn}-${d.endLine}:${d.endColumn}`;

test('ltlCheck: a valid spec has no diagnostics and reports its automaton and propositions', async () => {
  const api = createDirectApi();
  const r = await api.ltlCheck({ text: 'G F (e1 & F e2)', world: 'pointmaze-medium' });
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.propositions, ['e1', 'e2']);
  assert.deepEqual(r.unknown, []);
  assert.equal(r.formula, 'G F (e1 & F e2)');
  assert.deepEqual(r.automaton, { states: 3, edges: 8, accepting: 1 });
  assert.equal(r.checkedAgainst, 'pointmaze-medium');
});

test('ltlCheck: a syntax error covers exactly the offending token, on the right line', async () => {
  const api = createDirectApi();
  const cases: [string, string, RegExp][] = [
    ['G (e1 & )', '1:9-1:10', /expected a formula after '&', found '\)'/],
    ['F e1 &\n  G <- e2', '2:5-2:6', /unexpected '<'/],
    ['F e1 U\n', '2:1-2:1', /found end of input/],
    ['F (e1 |\n   "unterminated', '2:4-2:17', /unterminated quoted proposition/],
    ['G e1 -> e2 e3', '1:12-1:14', /found proposition 'e3'/],
    ['X e1', '1:1-1:2', /next operator X is not supported/],
    ['F e1 & Ab', '1:8-1:9', /unexpected 'A': expected an operator/],
    ['G (e1 <-> e2) ∧ e3', '1:15-1:16', /unexpected character '∧'/],
  ];
  for (const [text, where, message] of cases) {
    const r = await api.ltlCheck({ text });
    const syntax = r.diagnostics.filter((d) => d.source === 'syntax');
    assert.equal(syntax.length, 1, text);
    assert.equal(range(syntax[0]!), where, text);
    assert.match(syntax[0]!.message, message, text);
    assert.equal(syntax[0]!.severity, 'error');
    assert.equal(r.automaton, undefined, text);
  }
});

test('ltlCheck: every occurrence of an unknown proposition is flagged, with a suggestion', async () => {
  const api = createDirectApi();
  const r = await api.ltlCheck({ text: 'G F e9 & (e1 U e9)\n& F "kitchen"', world: 'pointmaze-medium' });
  const unknown = r.diagnostics.filter((d) => d.source === 'vocabulary');
  assert.deepEqual(unknown.map(range), ['1:5-1:7', '1:16-1:18', '2:5-2:14']);
  assert.match(
    unknown[0]!.message,
    /^unknown proposition "e9" \(did you mean e\d\?\); pointmaze-medium has e0, e1, e2, e3, e4, e5$/,
  );
  assert.match(unknown[2]!.message, /^unknown proposition "kitchen";/);
  assert.deepEqual(r.unknown, ['e9', 'kitchen']);
  // It still translates: unknown names are the world's problem, not the formula's.
  assert.ok(r.automaton !== undefined && r.automaton.states > 0);
  // Unknown propositions are flagged even while the formula does not parse yet.
  const broken = await api.ltlCheck({ text: 'F e7 &', world: 'pointmaze-medium' });
  assert.deepEqual(
    broken.diagnostics.map((d) => `${d.source} ${range(d)}`),
    ['vocabulary 1:3-1:5', 'syntax 1:7-1:7'],
  );
});

test('ltlCheck: without a world nothing is unknown; every maze checks against its own regions; a world without regions says it cannot check', async () => {
  const api = createDirectApi();
  const none = await api.ltlCheck({ text: 'F kitchen' });
  assert.deepEqual(none.diagnostics, []);
  assert.equal(none.checkedAgainst, null);
  const large = await api.ltlCheck({ text: 'F kitchen & G F e4', world: 'antmaze-large' });
  assert.deepEqual(large.unknown, ['kitchen']);
  // No embedded world is without regions now; a vocabulary with no propositions says so instead of flagging every name.
  const bare = checkLtl('F kitchen', { world: 'a-new-world', propositions: [] });
  assert.equal(bare.diagnostics.length, 1);
  assert.equal(bare.diagnostics[0]!.severity, 'info');
  assert.match(bare.diagnostics[0]!.message, /a-new-world names no propositions/);
  const tabletop = await api.ltlCheck({ text: 'F mug_on_tray & F red_bin_on_shelf & F mug', world: 'tabletop' });
  assert.deepEqual(tabletop.unknown, ['mug']);
});

test('ltlCheck: budgets become diagnostics, not failures', () => {
  const long = checkLtl('e1 & '.repeat(2600) + 'e1', null);
  assert.equal(long.diagnostics.length, 1);
  assert.equal(long.diagnostics[0]!.source, 'budget');
  assert.match(long.diagnostics[0]!.message, /characters long; the limit is/);
  const deep = checkLtl('('.repeat(600) + 'a' + ')'.repeat(600), null);
  assert.match(deep.diagnostics[0]!.message, /nests deeper than 500 levels/);
  assert.equal(deep.diagnostics[0]!.startLine, 1);
  // A clock that jumps past the editor's translation budget: reported as a warning over the text.
  let t = 0;
  const slow = checkLtl('G F a & G F b & G F c', null, () => (t += 10_000));
  assert.equal(slow.automaton, undefined);
  assert.equal(slow.diagnostics[0]!.severity, 'warning');
  assert.match(slow.diagnostics[0]!.message, /too large to build while editing: translation exceeded its time budget/);
});

test('ltlCheck and worldVocabulary refuse unknown worlds; the dispatcher checks parameters', async () => {
  const api = createDirectApi();
  await assert.rejects(
    api.ltlCheck({ text: 'F a', world: 'mars' }),
    (e: Error & { code?: string }) =>
      e.code === 'not-found' && /no world "mars"; the editors know pointmaze-medium, .*tabletop/.test(e.message),
  );
  await assert.rejects(api.worldVocabulary({ world: 'mars' }), /no world "mars"/);
  const dispatch = createDispatcher(api);
  const bad = await dispatch('ltlCheck', { text: 3 });
  assert.ok(!bad.ok && bad.error.code === 'invalid-params' && bad.error.path === '$.text');
  const extra = await dispatch('toolSchema', { x: 1 });
  assert.ok(!extra.ok && extra.error.code === 'invalid-params');
});

test('worldVocabulary: maze regions with descriptions, the tabletop with fields, objects and skills', async () => {
  const api = createDirectApi();
  const maze = await api.worldVocabulary({ world: 'pointmaze-medium' });
  assert.deepEqual(
    maze.propositions.map((p) => p.name),
    ['e0', 'e1', 'e2', 'e3', 'e4', 'e5'],
  );
  assert.equal(maze.propositions[1]!.detail, 'disk at (20, 0), radius 1.5 m');
  assert.equal(maze.propositions[5]!.detail, 'box from (14.5, 10.5) to (17.5, 13.5)');
  assert.equal(maze.source, 'regions/pointmaze-medium.json');
  assert.deepEqual(maze.skills, []);
  const table = await api.worldVocabulary({ world: 'tabletop' });
  assert.deepEqual(table.skills, ['pick', 'place', 'move']);
  assert.ok(table.fields.some((f) => f.name === 'gripper.width_cm' && f.type === 'number'));
  assert.ok(table.fields.some((f) => f.name === 'objects.red_mug.mass_kg'));
  assert.ok(table.objects.includes('tray'));
  const large = await api.worldVocabulary({ world: 'pointmaze-large' });
  assert.deepEqual(
    large.propositions.map((p) => p.name),
    ['e0', 'e1', 'e2', 'e3', 'e4', 'e5'],
  );
  assert.equal(large.propositions[4]!.detail, 'disk at (36, 24), radius 1.5 m');
  assert.equal(large.source, 'regions/pointmaze-large.json');
});

test('toolSchema is the published tool schema', async () => {
  const api = createDirectApi();
  const schema = await api.toolSchema();
  assert.equal(schema['$id'], 'https://witness.invalid/schemas/tool.schema.json');
  assert.deepEqual((schema['required'] as string[]).slice(0, 3), ['name', 'description', 'skill']);
});

const ALPHABET = [...'ab_e1 \n\t()!&|-><[]"\\URWFGXVAtruefls$'];

test('the editor lexer follows the parser: same propositions, and a token wherever the parser reports an error', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...ALPHABET), { maxLength: 30 }).map((cs) => cs.join('')),
      (src) => {
        const tokens = lexLtl(src);
        let aps: string[] | null = null;
        try {
          aps = atomicPropositions(parseLtl(src));
        } catch (e) {
          if (!(e instanceof LtlSyntaxError)) throw e;
          const t = tokenAt(tokens, e.pos.offset);
          assert.ok(t !== null || e.pos.offset === src.length, `${JSON.stringify(src)}: no token at ${e.pos.offset}`);
          return;
        }
        const idents = [...new Set(tokens.filter((t) => t.kind === 'ident').map((t) => t.value))];
        assert.deepEqual(new Set(idents), new Set(aps), JSON.stringify(src));
        assert.ok(
          tokens.every((t) => t.kind !== 'invalid'),
          JSON.stringify(src),
        );
      },
    ),
    { seed: 19, numRuns: 3000 },
  );
});

test('ltlCheck: deep formulas give a diagnostic, never a failure, through the web API as well', async () => {
  const chain = (n: number, op = '<->'): string => Array.from({ length: n + 1 }, (_, i) => `e${i % 6}`).join(` ${op} `);
  // 700 left-associative <->: the tree is too deep; the diagnostic sits on the 501st operator
  const api = createDirectApi();
  const dispatch = createDispatcher(api);
  for (const r of [
    await api.ltlCheck({ text: chain(700), world: 'pointmaze-medium' }),
    await (async () => {
      const d = await dispatch('ltlCheck', { text: chain(700) });
      assert.ok(d.ok);
      return d.result as Awaited<ReturnType<typeof api.ltlCheck>>;
    })(),
  ]) {
    const budget = r.diagnostics.filter((d) => d.source === 'budget');
    assert.equal(budget.length, 1);
    assert.deepEqual([budget[0]!.severity, budget[0]!.startLine, budget[0]!.startColumn], ['error', 1, 3504]);
    assert.equal(budget[0]!.message, 'formula nests deeper than 500 levels');
    assert.equal(r.automaton, undefined);
  }
  // 499 right-associative U: parsed, but the automaton is far too large; the editor's budget ends
  // it (here a clock that counts its readings, one per 256 small steps of work) with a warning
  let readings = 0;
  const slow = checkLtl(chain(499, 'U'), null, () => readings++);
  assert.equal(slow.automaton, undefined);
  assert.equal(slow.diagnostics.length, 1);
  assert.equal(slow.diagnostics[0]!.severity, 'warning');
  assert.match(
    slow.diagnostics[0]!.message,
    /too large to build while editing: translation exceeded its time budget of 2000 ms during /,
  );
  assert.ok(readings <= 2100, `${readings} clock readings`);
});

test("a text over the parser's length limit is answered with one budget diagnostic, without reading it through", () => {
  const text = '\u0001'.repeat(4_000_000);
  const r = checkLtl(text, { world: 'pointmaze-medium', propositions: ['e0', 'e1'] });
  assert.equal(r.diagnostics.length, 1);
  assert.equal(r.diagnostics[0]!.source, 'budget');
  assert.match(r.diagnostics[0]!.message, /4000000 characters long; the limit is 10000/);
  assert.deepEqual(r.unknown, []);
});

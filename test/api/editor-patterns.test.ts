/**
 * The API's ltlPatterns: the pattern catalogue as editor templates. Each snippet, with its tab stops filled with their
 * defaults, is the pattern instantiated with those names; a tab stop filled with a proposition of choice reads as the
 * pattern instantiated with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { PATTERNS, instantiatePattern } from '../../main/core/ltl/patterns.js';
import { parseLtl } from '../../main/core/ltl/parser.js';
import { printLtl } from '../../main/core/ltl/printer.js';

/** The snippet with every tab stop ${k:default} replaced by pick(k, default). */
const filled = (snippet: string, pick: (k: number, d: string) => string): string =>
  snippet.replace(/\$\{([0-9]+):([^}]*)\}/g, (_, k: string, d: string) => pick(Number(k), d));

test('ltlPatterns: every pattern, with parameters, description and a snippet of the formula', async () => {
  const api = createDirectApi();
  const { patterns } = await api.ltlPatterns();
  assert.deepEqual(
    patterns.map((p) => p.name),
    PATTERNS.map((p) => p.name),
  );
  const response = patterns.find((p) => p.name === 'response-before')!;
  assert.equal(response.snippet, 'F ${3:r} -> (${1:p} -> !${3:r} U (${2:s} & !${3:r})) U ${3:r}');
  assert.deepEqual(
    response.params.map((p) => p.name),
    ['P', 'S', 'R'],
  );
  for (const p of patterns) {
    const stops = new Map<number, string>();
    const text = filled(p.snippet, (k, d) => {
      stops.set(k, d);
      return d;
    });
    // tab stops number the formula parameters in order (a list's locations l1 l2 l3); a count is 2
    let k = 0;
    const args = p.params.flatMap((x) =>
      x.kind === 'count' ? ['2'] : x.kind === 'list' ? ['l1', 'l2', 'l3'] : [stops.get(++k)!],
    );
    const want = instantiatePattern(p.name, args).text;
    assert.equal(printLtl(parseLtl(text, { allowNext: true })), want, p.name);
  }
  const ordered = patterns.find((p) => p.name === 'ordered-visit')!;
  const mine = filled(ordered.snippet, (k) => ['dock', 'shelf', 'exit'][k - 1]!);
  assert.equal(mine, instantiatePattern('ordered-visit', ['dock', 'shelf', 'exit']).text);
  const extra = await createDispatcher(api)('ltlPatterns', { x: 1 });
  assert.ok(!extra.ok && extra.error.code === 'invalid-params');
});

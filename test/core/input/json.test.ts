import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError, MAX_JSON_DEPTH, parseJson } from '../../../main/core/input/json.js';
import { clipMessage, MAX_MESSAGE } from '../../../main/cli/errors.js';

test('JSON nested deeper than the limit is refused with its line and column, valid or not, before any recursive reader sees it', () => {
  const ok = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
  assert.equal((parseJson(ok, 'a.json') as unknown[]).length, 1);
  for (const [text, at] of [
    ['{\n "a": ' + '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1) + '}', `2:${6 + MAX_JSON_DEPTH}`],
    ['['.repeat(50_000), `1:${MAX_JSON_DEPTH + 1}`],
    ['{"a":'.repeat(10_000), `1:${5 * MAX_JSON_DEPTH + 1}`],
  ] as const) {
    assert.throws(() => parseJson(text, 'deep.json'), (e: unknown) => e instanceof InputError && e.file === 'deep.json' && e.path === at && /nested deeper than 256 levels/.test(e.message));
  }
  // Brackets inside strings are text, not nesting.
  assert.deepEqual(parseJson(JSON.stringify({ s: '['.repeat(10_000) + '"\\' }), 's.json'), { s: '['.repeat(10_000) + '"\\' });
});

test('an error message quoting a huge value is clipped to its start and end, saying how much is not shown', () => {
  assert.equal(clipMessage('short'), 'short');
  const long = `r.json: $.world: the regions are for "${'x'.repeat(100_000)}", not "lab"`;
  const c = clipMessage(long);
  assert.ok(c.length < MAX_MESSAGE + 60);
  assert.ok(c.startsWith('r.json: $.world: the regions are for "xxx'));
  assert.ok(c.endsWith('", not "lab"'));
  assert.match(c, /\(\d+ characters not shown\)/);
});

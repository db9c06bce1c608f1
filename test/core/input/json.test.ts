import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  InputError,
  MAX_JSON_DEPTH,
  jsonTooDeep,
  parseJson,
  parseJsonText,
  valueTooDeep,
} from '../../../main/core/input/json.js';
import { readLayoutFile } from '../../../main/services/worlds/layout-file.js';
import { decodeDataset, encodeDataset } from '../../../main/services/datasets/format.js';
import { sampleDataset } from '../data/sample.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clipMessage, MAX_MESSAGE } from '../../../main/cli/errors.js';

test('JSON nested deeper than the limit is refused with its line and column, valid or not, before any recursive reader sees it', () => {
  const ok = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
  assert.equal((parseJson(ok, 'a.json') as unknown[]).length, 1);
  for (const [text, at] of [
    ['{\n "a": ' + '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1) + '}', `2:${6 + MAX_JSON_DEPTH}`],
    ['['.repeat(50_000), `1:${MAX_JSON_DEPTH + 1}`],
    ['{"a":'.repeat(10_000), `1:${5 * MAX_JSON_DEPTH + 1}`],
  ] as const) {
    assert.throws(
      () => parseJson(text, 'deep.json'),
      (e: unknown) =>
        e instanceof InputError &&
        e.file === 'deep.json' &&
        e.path === at &&
        /nested deeper than 256 levels/.test(e.message),
    );
  }
  // Brackets inside strings are text, not nesting.
  assert.deepEqual(parseJson(JSON.stringify({ s: '['.repeat(10_000) + '"\\' }), 's.json'), {
    s: '['.repeat(10_000) + '"\\',
  });
});

test('one nesting check for every JSON text from outside: the text before parsing, a value already parsed, and JSON.parse behind it', () => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  assert.equal(jsonTooDeep(deep), `1:${MAX_JSON_DEPTH + 1}`);
  assert.equal(jsonTooDeep('{"a":"[[[["}'), null);
  assert.throws(
    () => parseJsonText(deep),
    (e: unknown) =>
      e instanceof SyntaxError &&
      e.message === `nested deeper than 256 levels of arrays and objects (at 1:${MAX_JSON_DEPTH + 1})`,
  );
  assert.deepEqual(parseJsonText('{"a":[1]}'), { a: [1] });
  // A value handed over already parsed (JSON.parse itself does not overflow): checked without recursion.
  const value = JSON.parse(deep) as unknown;
  assert.equal(valueTooDeep(value), true);
  assert.equal(valueTooDeep(JSON.parse('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))), false);
  assert.equal(valueTooDeep({ a: [{ b: 'x' }] }, 3), false);
  assert.equal(valueTooDeep({ a: [{ b: {} }] }, 3), true);
});

test('readers that name their own errors refuse deep JSON with them: a maze layout file, a dataset header', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-deep-'));
  try {
    const layout = join(dir, 'layout.json');
    writeFileSync(layout, `{"id":"m","grid":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    await assert.rejects(
      readLayoutFile(layout),
      (e: unknown) =>
        e instanceof Error &&
        (e as { code?: string }).code === 'invalid-input' &&
        /nested deeper than 256 levels/.test(e.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // A .wds header is JSON: 4 bytes of magic and 4 of length, then the header (here deep), then the payload.
  const header = new TextEncoder().encode(`{"x":${'['.repeat(1000)}${']'.repeat(1000)}}`.padEnd(2008, ' '));
  const bad = new Uint8Array(8 + header.length);
  bad.set(encodeDataset(sampleDataset()).subarray(0, 4));
  new DataView(bad.buffer).setUint32(4, header.length, true);
  bad.set(header, 8);
  assert.throws(() => decodeDataset(bad, 'd.wds'), /d\.wds: .*nested deeper than 256 levels/);
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

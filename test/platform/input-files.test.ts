import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WitnessError } from '../../main/contract/errors.js';
import { FileError } from '../../main/platform/files.js';
import {
  DATASET_LIMIT_ENV,
  INPUT,
  InputRefused,
  datasetInput,
  readFailure,
  readInputFile,
  readInputFileSync,
  readInputText,
  readInputTextSync,
} from '../../main/platform/input-files.js';
import { heldOpen } from './held-open.js';

const MB = 1024 * 1024;
const scratch = (): string => mkdtempSync(join(tmpdir(), 'witness-input-'));

function fifo(dir: string, name = 'pipe'): string {
  const file = join(dir, name);
  const r = spawnSync('mkfifo', [file]);
  assert.equal(r.status, 0, `mkfifo: ${String(r.stderr)}`);
  return file;
}

/** Asserts a refusal: its class, code, that the message starts with the file, and what it says. */
function refused(e: unknown, file: string, code: string, detail: RegExp): true {
  assert.ok(e instanceof InputRefused, `an InputRefused, got ${String(e)}`);
  assert.equal(e.code, code);
  assert.equal(e.file, file);
  assert.ok(e.message.startsWith(`${file}: `), e.message);
  assert.match(e.message, detail);
  return true;
}

test('a regular file reads whole, as bytes or text (a byte-order mark dropped); an empty one is empty', async () => {
  const dir = scratch();
  const file = join(dir, 'a.json');
  writeFileSync(file, '\uFEFF{"a": "é"}');
  assert.equal(await readInputText(file, INPUT.graph), '{"a": "é"}');
  assert.equal(readInputTextSync(file, INPUT.graph), '{"a": "é"}');
  const big = join(dir, 'big.bin');
  const content = Buffer.alloc(3 * MB + 5, 7);
  writeFileSync(big, content);
  assert.deepEqual(Buffer.from(await readInputFile(big, INPUT.graph)), content);
  assert.deepEqual(Buffer.from(readInputFileSync(big, INPUT.graph)), content);
  writeFileSync(join(dir, 'empty'), '');
  assert.equal((await readInputFile(join(dir, 'empty'), INPUT.graph)).length, 0);
  assert.equal((await readInputFile('/dev/null', INPUT.graph)).length, 0);
});

test('a folder is refused (not-a-file, exit 2), by both readers', async () => {
  const dir = scratch();
  await assert.rejects(readInputFile(dir, INPUT.regions), (e) =>
    refused(e, dir, 'not-a-file', /is a folder, not a file$/),
  );
  assert.throws(
    () => readInputFileSync(dir, INPUT.regions),
    (e) => refused(e, dir, 'not-a-file', /is a folder, not a file$/),
  );
});

test('a regular file over its limit is refused by its size, before it is read (a sparse 8 GB file ends at once)', async () => {
  const dir = scratch();
  const huge = join(dir, 'huge.json');
  writeFileSync(huge, '');
  truncateSync(huge, 8 * 1024 * MB);
  await assert.rejects(readInputFile(huge, INPUT.graph), (e) =>
    refused(e, huge, 'too-large', /: larger than 64 MB \(the limit for a graph\)$/),
  );
  assert.throws(
    () => readInputFileSync(huge, INPUT.formula),
    (e) => refused(e, huge, 'too-large', /larger than 1 MB \(the limit for a formula file\)$/),
  );
  const small = join(dir, 'eleven');
  writeFileSync(small, 'hello world');
  await assert.rejects(readInputFile(small, { maxBytes: 10, what: 'a test' }), (e) =>
    refused(e, small, 'too-large', /larger than 10 bytes \(the limit for a test\)/),
  );
  assert.equal((await readInputFile(small, { maxBytes: 11, what: 'a test' })).length, 11, 'exactly the limit is fine');
});

test('/dev/zero (size 0 in stat, never ends) is cut by the running count', async () => {
  await assert.rejects(readInputFile('/dev/zero', { maxBytes: 3 * MB, what: 'a test' }), (e) =>
    refused(e, '/dev/zero', 'too-large', /larger than 3 MB/),
  );
  await assert.rejects(readInputFile('/dev/zero', INPUT.graph), (e) =>
    refused(e, '/dev/zero', 'too-large', /larger than 64 MB \(the limit for a graph\)/),
  );
  // The synchronous reader takes regular files only.
  assert.throws(
    () => readInputFileSync('/dev/zero', INPUT.config),
    (e) => refused(e, '/dev/zero', 'not-a-file', /not a regular file \(a pipe or a device\)/),
  );
});

test('a FIFO reads what its writer writes, waiting for the writer; past the limit it is refused', async () => {
  const dir = scratch();
  const p = fifo(dir);
  let settled = false;
  const reading = readInputText(p, INPUT.regions).finally(() => {
    settled = true;
  });
  // The reader holds the FIFO open and waits (without a writer, a non-blocking open succeeds); the writer comes after.
  await heldOpen(p);
  assert.equal(settled, false, 'the reader waits for a writer');
  await writeFile(p, '{"regions": []}');
  assert.equal(await reading, '{"regions": []}');

  const over = readInputFile(p, { maxBytes: MB, what: 'a test' });
  const writer = writeFile(p, Buffer.alloc(4 * MB)).catch((e: unknown) => e);
  await assert.rejects(over, (e) => refused(e, p, 'too-large', /larger than 1 MB \(the limit for a test\)/));
  const w = await writer;
  assert.ok(
    w === undefined || (w as NodeJS.ErrnoException).code === 'EPIPE',
    `the writer ends (EPIPE once the reader is gone): ${String(w)}`,
  );

  assert.throws(
    () => readInputFileSync(p, INPUT.tools),
    (e) => refused(e, p, 'not-a-file', /not a regular file \(a pipe or a device\): a tool file is read at once/),
  );
});

test('a missing file is not-found and names the file; readFailure gives the system reason', async () => {
  const missing = join(scratch(), 'nope.json');
  for (const read of [
    () => readInputFile(missing, INPUT.graph),
    () => Promise.resolve().then(() => readInputFileSync(missing, INPUT.graph)),
  ]) {
    await assert.rejects(read(), (e: unknown) => {
      assert.ok(e instanceof FileError && !(e instanceof InputRefused));
      assert.equal(e.code, 'not-found');
      assert.match(e.message, new RegExp(`^${missing}: cannot read: ENOENT`));
      assert.equal(readFailure(e), 'ENOENT');
      return true;
    });
  }
  const dir = scratch();
  mkdirSync(join(dir, 'locked'), { mode: 0o000 });
  if (process.getuid?.() !== 0) {
    await assert.rejects(
      readInputFile(join(dir, 'locked', 'x'), INPUT.graph),
      (e: unknown) => readFailure(e) === 'EACCES',
    );
  }
});

test('the dataset limit: 1024 MB, or WITNESS_MAX_DATASET_MB; a bad value is exit 2 naming the variable', () => {
  assert.equal(datasetInput({}).maxBytes, 1024 * MB);
  assert.equal(datasetInput({ [DATASET_LIMIT_ENV]: '8' }).maxBytes, 8 * MB);
  assert.match(datasetInput({}).hint ?? '', /WITNESS_MAX_DATASET_MB/);
  for (const bad of ['abc', '0', '-5', '1.5', '99999']) {
    assert.throws(
      () => datasetInput({ [DATASET_LIMIT_ENV]: bad }),
      (e: unknown) => {
        assert.ok(e instanceof WitnessError);
        assert.equal(e.code, 'invalid-input');
        assert.match(e.message, /^WITNESS_MAX_DATASET_MB=/);
        return true;
      },
    );
  }
});

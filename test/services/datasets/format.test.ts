import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatasetError } from '../../../main/core/data/dataset.js';
import { FileError } from '../../../main/platform/files.js';
import { datasetHash, encodeDataset, readDataset, writeDataset } from '../../../main/services/datasets/format.js';
import { sampleDataset } from '../../core/data/sample.js';

const scratch = async (): Promise<string> => mkdtemp(join(tmpdir(), 'witness-wds-'));

/**
 * Resolves when `p` rejects with a DatasetError for `file`/`field` whose message matches, or, for the
 * field 'file' (reading or writing the file itself), with the one file writer's FileError for `file`.
 */
async function rejectsWith(p: Promise<unknown>, file: string, field: string, detail: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    if (field === 'file')
      assert.ok(err instanceof FileError && err.file === file, `a FileError for ${file}, got ${String(err)}`);
    else {
      assert.ok(err instanceof DatasetError, `a DatasetError, got ${String(err)}`);
      assert.equal(err.file, file);
      assert.equal(err.field, field);
    }
    assert.ok(err.message.startsWith(`${file}: `), err.message);
    assert.match(err.message, detail);
    return true;
  });
}

function headerOf(bytes: Uint8Array): { len: number; json: Record<string, unknown> } {
  const len = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true);
  return { len, json: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + len))) as Record<string, unknown> };
}

/** Rewrites the JSON header (re-padded) in front of the unchanged payload. */
function patchHeader(bytes: Uint8Array, edit: (h: Record<string, unknown>) => void): Uint8Array {
  const { len, json } = headerOf(bytes);
  edit(json);
  const text = new TextEncoder().encode(JSON.stringify(json));
  const head = new Uint8Array(Math.ceil((8 + text.length) / 8) * 8).fill(0x20);
  head.set(bytes.subarray(0, 4));
  new DataView(head.buffer).setUint32(4, head.length - 8, true);
  head.set(text, 8);
  return Buffer.concat([head, bytes.subarray(8 + len)]);
}

test('write then read gives the same dataset, and the header describes it', async () => {
  const dir = await scratch();
  const file = join(dir, 'a.wds');
  const d = sampleDataset();
  await writeDataset(file, d);
  assert.deepEqual(await readDataset(file, { expectWorld: 'pointmaze-small' }), d);
  const bytes = await readFile(file);
  assert.equal(bytes.subarray(0, 4).toString('latin1'), 'WDS1');
  const { len, json } = headerOf(bytes);
  assert.equal((8 + len) % 8, 0, 'payload is 8-byte aligned');
  assert.deepEqual(Object.keys(json), [
    'format',
    'version',
    'worldId',
    'transitions',
    'obsDim',
    'actDim',
    'fields',
    'generator',
    'seed',
    'sha256',
  ]);
  assert.equal(json.format, 'witness-dataset');
  assert.equal(json.transitions, 8);
  const fields = json.fields as { name: string; offset: number; bytes: number }[];
  assert.deepEqual(
    fields.map((f) => f.name),
    ['observations', 'actions', 'terminals'],
  );
  assert.ok(fields.every((f) => f.offset % 8 === 0));
  const payload = bytes.subarray(8 + len);
  assert.equal(json.sha256, createHash('sha256').update(payload).digest('hex'));
  assert.equal(datasetHash(d), json.sha256);
  assert.deepEqual(await readdir(dir), ['a.wds'], 'no temporary file left after success');
  await rm(dir, { recursive: true });
});

test('output is byte-deterministic and the hash follows the content', async () => {
  const dir = await scratch();
  const d = sampleDataset();
  // Same generator config with keys in another order: must not change the bytes.
  const reordered = {
    ...d,
    generator: { label: 'é', noise: { clip: [-1, 1], sigma: 0.1 }, steps: 8, kind: 'random-walk' },
  };
  await writeDataset(join(dir, 'one.wds'), d);
  await writeDataset(join(dir, 'two.wds'), reordered);
  assert.deepEqual(await readFile(join(dir, 'one.wds')), await readFile(join(dir, 'two.wds')));
  assert.deepEqual(encodeDataset(d), encodeDataset(sampleDataset()));
  const changed = sampleDataset();
  changed.actions[5] = 0.125;
  assert.notEqual(datasetHash(changed), datasetHash(d));
  await rm(dir, { recursive: true });
});

test('a truncated file names the file and the expected and actual sizes', async () => {
  const dir = await scratch();
  const file = join(dir, 'cut.wds');
  const full = encodeDataset(sampleDataset());
  await writeFile(file, full.subarray(0, full.length - 5));
  await rejectsWith(
    readDataset(file),
    file,
    'payload',
    new RegExp(`truncated: expected ${full.length} bytes, file has ${full.length - 5} bytes`),
  );
  await writeFile(file, full.subarray(0, 20));
  await rejectsWith(
    readDataset(file),
    file,
    'header',
    /truncated: expected at least \d+ bytes for the header, file has 20 bytes/,
  );
  await writeFile(file, Buffer.concat([full, Buffer.from([0])]));
  await rejectsWith(readDataset(file), file, 'payload', /trailing data/);
  await rm(dir, { recursive: true });
});

test('a flipped payload byte is caught by the content hash', async () => {
  const dir = await scratch();
  const file = join(dir, 'flip.wds');
  const bytes = encodeDataset(sampleDataset());
  bytes[bytes.length - 20]! ^= 0x01;
  await writeFile(file, bytes);
  await rejectsWith(readDataset(file), file, 'sha256', /content hash mismatch/);
  await rm(dir, { recursive: true });
});

test('bad magic, bad header and the wrong world are rejected with the field named', async () => {
  const dir = await scratch();
  const file = join(dir, 'x.wds');
  const good = encodeDataset(sampleDataset());
  await writeFile(file, Buffer.concat([Buffer.from('PK\x03\x04'), good.subarray(4)]));
  await rejectsWith(readDataset(file), file, 'magic', /not a witness dataset.*expected "WDS1"/);
  await writeFile(file, good);
  await rejectsWith(
    readDataset(file, { expectWorld: 'cube-single' }),
    file,
    'worldId',
    /world "pointmaze-small", expected world "cube-single"/,
  );
  const garbled = good.slice();
  garbled[9] = 0x7b; // `{{`
  await writeFile(file, garbled);
  await rejectsWith(readDataset(file), file, 'header', /not valid UTF-8 JSON/);
  await writeFile(
    file,
    patchHeader(good, (h) => {
      h.version = 2;
    }),
  );
  await rejectsWith(readDataset(file), file, 'version', /unsupported version 2/);
  await writeFile(
    file,
    patchHeader(good, (h) => {
      h.obsDim = 4;
    }),
  );
  await rejectsWith(readDataset(file), file, 'observations', /observations\.shape is \[8,3\], expected \[8,4\]/);
  await writeFile(
    file,
    patchHeader(good, (h) => {
      (h.fields as { dtype: string }[])[1]!.dtype = 'float64';
    }),
  );
  await rejectsWith(readDataset(file), file, 'actions', /actions\.dtype is "float64", expected "float32"/);
  await writeFile(
    file,
    patchHeader(good, (h) => {
      h.fields = (h.fields as unknown[]).slice(0, 2);
    }),
  );
  await rejectsWith(readDataset(file), file, 'terminals', /missing/);
  await rejectsWith(readDataset(join(dir, 'absent.wds')), join(dir, 'absent.wds'), 'file', /cannot read/);
  await rm(dir, { recursive: true });
});

test('a NaN that got into a file is reported as observations[row][col]', async () => {
  const dir = await scratch();
  const file = join(dir, 'nan.wds');
  const bytes = encodeDataset(sampleDataset());
  const { len } = headerOf(bytes);
  // Row 5, column 1 of the observations (the first field), with a consistent hash.
  new DataView(bytes.buffer).setFloat32(8 + len + (5 * 3 + 1) * 4, NaN, true);
  const fixed = patchHeader(bytes, (h) => {
    h.sha256 = createHash('sha256')
      .update(bytes.subarray(8 + len))
      .digest('hex');
  });
  await writeFile(file, fixed);
  await rejectsWith(
    readDataset(file),
    file,
    'observations',
    new RegExp(`^${file}: observations\\[5\\]\\[1\\] is NaN$`),
  );
  await rm(dir, { recursive: true });
});

test('invalid datasets are not written, and failed writes leave no temporary file', async () => {
  const dir = await scratch();
  const bad = sampleDataset();
  bad.observations[4] = NaN;
  const file = join(dir, 'bad.wds');
  await rejectsWith(writeDataset(file, bad), file, 'observations', /observations\[1\]\[1\] is NaN/);
  const noJson = { ...sampleDataset(), generator: { rate: NaN } };
  await rejectsWith(writeDataset(file, noJson), file, 'generator', /generator\.rate is not JSON-serialisable/);
  const missing = join(dir, 'no-such-dir', 'a.wds');
  await rejectsWith(writeDataset(missing, sampleDataset()), missing, 'file', /cannot write/);
  // A folder in the way is refused before anything is written (the atomic writer writes only to a regular file or a new
  // name).
  const target = join(dir, 'occupied.wds');
  await mkdir(target);
  await rejectsWith(writeDataset(target, sampleDataset()), target, 'file', /is a folder, not a regular file/);
  assert.deepEqual(await readdir(dir), ['occupied.wds']);
  await rm(dir, { recursive: true });
});

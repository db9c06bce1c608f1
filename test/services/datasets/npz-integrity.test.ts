/**
 * `.npz` import trusts nothing in the archive: CRC-32s are checked, declared sizes are checked
 * against the dataset limit before anything is inflated, and an entry that inflates past its
 * declared size is stopped there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { zipSync } from 'fflate';
import { DatasetError } from '../../../main/core/data/dataset.js';
import { decodeNpz, encodeNpz, importNpz } from '../../../main/services/datasets/npz.js';
import { encodeNpyF32 } from '../../../main/services/datasets/npy.js';
import { crc32, listZip } from '../../../main/services/datasets/zip.js';
import { run } from '../../../main/cli/main.js';
import { sampleDataset } from '../../core/data/sample.js';

const MB = 1024 * 1024;

function npyFiles(): Record<string, Uint8Array> {
  const d = sampleDataset();
  return {
    'observations.npy': encodeNpyF32(d.observations, [8, 3]),
    'actions.npy': encodeNpyF32(d.actions, [8, 2]),
    'terminals.npy': encodeNpyF32(Float32Array.from(d.terminals), [8]),
  };
}

/** What decodeNpz of a good archive gives (the sample dataset as imported). */
const imported = () => ({ ...sampleDataset(), worldId: 'w', generator: { imported: 'in.npz' }, seed: 0 });

function rejects(fn: () => unknown, field: string, detail: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof DatasetError, `a DatasetError, got ${String(err)}`);
    assert.equal(err.code, 'invalid-input', 'exit 2');
    assert.equal(err.file, 'in.npz');
    assert.equal(err.field, field);
    assert.match(err.message, /^in\.npz: /);
    assert.match(err.message, detail);
    return true;
  });
}

const decode = (bytes: Uint8Array) => decodeNpz(bytes, 'in.npz', { worldId: 'w' });

/** Where an entry's (compressed) data starts in the archive. */
function dataStart(zip: Uint8Array, name: string): number {
  const e = listZip(zip).find((x) => x.name === name)!;
  const v = new DataView(zip.buffer, zip.byteOffset);
  return e.localOffset + 30 + v.getUint16(e.localOffset + 26, true) + v.getUint16(e.localOffset + 28, true);
}

interface RawEntry {
  readonly name: string;
  /** The bytes stored in the archive (already compressed for method 8). */
  readonly data: Uint8Array;
  readonly method: 0 | 8;
  /** What the headers declare: may lie. */
  readonly size: number;
  readonly crc: number;
  /** Sizes and offset through the ZIP64 extra field. */
  readonly zip64?: boolean;
}

/** A zip written by hand, so its headers can say anything. */
function buildZip(entries: readonly RawEntry[]): Uint8Array {
  const parts: Buffer[] = [],
    central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name),
      z64 = e.zip64 === true;
    const localExtra = Buffer.alloc(z64 ? 20 : 0);
    if (z64) {
      localExtra.writeUInt16LE(1, 0);
      localExtra.writeUInt16LE(16, 2);
      localExtra.writeBigUInt64LE(BigInt(e.size), 4);
      localExtra.writeBigUInt64LE(BigInt(e.data.length), 12);
    }
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(z64 ? 45 : 20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(z64 ? 0xffffffff : e.data.length, 18);
    local.writeUInt32LE(z64 ? 0xffffffff : e.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(localExtra.length, 28);
    const cdExtra = Buffer.alloc(z64 ? 28 : 0);
    if (z64) {
      cdExtra.writeUInt16LE(1, 0);
      cdExtra.writeUInt16LE(24, 2);
      cdExtra.writeBigUInt64LE(BigInt(e.size), 4);
      cdExtra.writeBigUInt64LE(BigInt(e.data.length), 12);
      cdExtra.writeBigUInt64LE(BigInt(offset), 20);
    }
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(45, 4);
    cd.writeUInt16LE(z64 ? 45 : 20, 6);
    cd.writeUInt16LE(e.method, 10);
    cd.writeUInt32LE(e.crc >>> 0, 16);
    cd.writeUInt32LE(z64 ? 0xffffffff : e.data.length, 20);
    cd.writeUInt32LE(z64 ? 0xffffffff : e.size, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt16LE(cdExtra.length, 30);
    cd.writeUInt32LE(z64 ? 0xffffffff : offset, 42);
    central.push(cd, name, cdExtra);
    parts.push(local, name, localExtra, Buffer.from(e.data));
    offset += local.length + name.length + localExtra.length + e.data.length;
  }
  const cdBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cdBytes, end]);
}

/** The three arrays as honest entries (deflated unless `stored`), with the given changes by name. */
function entries(change: Record<string, Partial<RawEntry>> = {}, stored = false): RawEntry[] {
  return Object.entries(npyFiles()).map(([name, raw]): RawEntry => ({
    name,
    method: stored ? 0 : 8,
    data: stored ? raw : deflateRawSync(raw),
    size: raw.length,
    crc: crc32(raw),
    ...change[name],
  }));
}

test("the hand-built archives read like fflate's: stored, deflated, ZIP64 (the reader follows the central directory)", () => {
  assert.deepEqual(decode(zipSync(npyFiles(), { level: 0 })), imported());
  assert.deepEqual(decode(buildZip(entries())), imported());
  assert.deepEqual(decode(buildZip(entries({}, true))), imported());
  const z64 = Object.fromEntries(Object.keys(npyFiles()).map((n) => [n, { zip64: true }]));
  assert.deepEqual(decode(buildZip(entries(z64))), imported());
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926, 'the CRC-32 check value');
});

test('a flipped byte in a stored array is a CRC-32 mismatch naming the file and the array (it used to import silently)', () => {
  const zip = zipSync(npyFiles(), { level: 0 });
  const at = dataStart(zip, 'observations.npy') + 128 + 5; // inside the float data, after the .npy header
  const bad = zip.slice();
  bad[at]! ^= 0x10;
  rejects(
    () => decode(bad),
    'observations',
    /^in\.npz: observations\.npy: CRC-32 mismatch: the header says 0x[0-9a-f]{8}, the data gives 0x[0-9a-f]{8} \(the file is corrupt\)$/,
  );
});

test('any single flipped byte anywhere: refused with a DatasetError, or the same data (a byte no array depends on)', () => {
  for (const zip of [encodeNpz(sampleDataset()), zipSync(npyFiles(), { level: 0 })]) {
    const original = decode(zip);
    fc.assert(
      fc.property(fc.nat({ max: zip.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, mask) => {
        const bad = zip.slice();
        bad[at]! ^= mask;
        let d;
        try {
          d = decode(bad);
        } catch (err) {
          assert.ok(err instanceof DatasetError, `byte ${at} ^ ${mask}: a DatasetError, got ${String(err)}`);
          assert.match(err.message, /^in\.npz: /);
          return;
        }
        assert.deepEqual(d, original, `byte ${at} ^ ${mask} imported different data`);
      }),
      { seed: 18, numRuns: 400 },
    );
  }
});

test('declared sizes over the limit are refused before anything is inflated (the data is not even valid DEFLATE)', () => {
  const garbage = new Uint8Array(64).fill(0xff);
  rejects(
    () => decode(buildZip(entries({ 'observations.npy': { size: 0xfffffff0, data: garbage } }))),
    'zip',
    /^in\.npz: its arrays declare \d+ bytes uncompressed \(observations 4294967280, actions \d+, terminals \d+\), more than 1024 MB \(the limit for a dataset; set WITNESS_MAX_DATASET_MB to raise it\)$/,
  );
  // ZIP64: 6.4 GB declared by a file of a few hundred bytes.
  rejects(
    () => decode(buildZip(entries({ 'observations.npy': { size: 6.4e9, data: garbage, zip64: true } }))),
    'zip',
    /declare \d+ bytes uncompressed \(observations 6400000000,/,
  );
  // The limit is the caller's (WITNESS_MAX_DATASET_MB through datasetInput(), or given).
  assert.throws(
    () => decodeNpz(zipSync(npyFiles()), 'in.npz', { worldId: 'w', limit: { maxBytes: 300, what: 'a dataset' } }),
    /more than 300 bytes \(the limit for a dataset\)/,
  );
});

test('a bomb that lies about its size is stopped at its declared size; one that declares more than it holds is refused', () => {
  const bomb = deflateRawSync(Buffer.alloc(64 * MB)); // 64 MB of zeros in ~64 KB
  rejects(
    () => decode(buildZip(entries({ 'observations.npy': { data: bomb, size: 1000, crc: 0 } }))),
    'observations',
    /^in\.npz: observations\.npy: inflates past the 1000 bytes its header declares \(stopped there\)/,
  );
  const raw = npyFiles()['observations.npy']!;
  rejects(
    () => decode(buildZip(entries({ 'observations.npy': { size: raw.length + 100 } }))),
    'observations',
    new RegExp(`observations\\.npy: inflates to ${raw.length} bytes, its header declares ${raw.length + 100}`),
  );
  rejects(
    () => decode(buildZip(entries({ 'actions.npy': { data: new Uint8Array([0xff, 0xff, 0xff]) } }))),
    'actions',
    /actions\.npy: corrupt compressed data/,
  );
  rejects(
    () => decode(buildZip(entries({ 'actions.npy': { method: 12 as 8 } }))),
    'actions',
    /compression method 12 is not supported/,
  );
});

test('archives cut short or with a broken directory are refused as not readable', () => {
  const zip = encodeNpz(sampleDataset());
  rejects(
    () => decode(zip.subarray(0, zip.length - 30)),
    'zip',
    /not a readable \.npz \(zip\) file: no end-of-central-directory record/,
  );
  rejects(() => decode(zip.subarray(0, 200)), 'zip', /not a readable \.npz/);
  const twice = entries();
  rejects(() => decode(buildZip([...twice, twice[0]!])), 'zip', /observations\.npy: lists observations\.npy twice/);
});

test('an .npy whose shape does not match its bytes: trailing data, an implausible shape', () => {
  const files = npyFiles();
  const extra = new Uint8Array(files['actions.npy']!.length + 4);
  extra.set(files['actions.npy']!);
  rejects(
    () => decode(zipSync({ ...files, 'actions.npy': extra })),
    'actions',
    /actions: trailing data: expected 64 bytes for shape \(8, 2\), found 68/,
  );
  const huge = files['actions.npy']!.slice();
  const header = new TextDecoder('latin1')
    .decode(huge.subarray(10, 128))
    .replace('(8, 2)', '(99999999999999999999, 2)');
  huge.set(new TextEncoder().encode(header.slice(0, 118)), 10);
  rejects(
    () => decode(zipSync({ ...files, 'actions.npy': huge })),
    'actions',
    /actions: shape \(100000000000000000000, 2\) is implausibly large: the file has 64 bytes of data/,
  );
});

test('witness data import: a corrupt .npz is exit 2 naming the file and the CRC, and writes nothing; a good one imports', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-npz-crc-'));
  const zip = zipSync(npyFiles(), { level: 0 });
  const good = join(dir, 'good.npz'),
    bad = join(dir, 'bad.npz'),
    out = join(dir, 'out.wds');
  writeFileSync(good, zip);
  const flipped = zip.slice();
  flipped[dataStart(zip, 'actions.npy') + 130]! ^= 1;
  writeFileSync(bad, flipped);
  let err = '';
  const cli = (...argv: string[]) =>
    run(argv, {
      out: () => undefined,
      err: (t) => {
        err += t;
      },
    });
  assert.equal(await cli('data', 'import', bad, '--world', 'pointmaze-medium', '--out', out), 2);
  assert.match(err, new RegExp(`^error: ${bad}: actions\\.npy: CRC-32 mismatch`));
  assert.ok(!existsSync(out));
  const before = process.env['WITNESS_MAX_DATASET_MB'];
  try {
    process.env['WITNESS_MAX_DATASET_MB'] = 'lots';
    err = '';
    assert.equal(await cli('data', 'import', good, '--world', 'pointmaze-medium', '--out', out), 2);
    assert.match(err, /^error: WITNESS_MAX_DATASET_MB=lots: expected a whole number of MB/);
  } finally {
    if (before === undefined) delete process.env['WITNESS_MAX_DATASET_MB'];
    else process.env['WITNESS_MAX_DATASET_MB'] = before;
  }
  assert.deepEqual(await importNpz(good, { worldId: 'w' }), { ...imported(), generator: { imported: 'good.npz' } });
});

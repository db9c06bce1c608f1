import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { DatasetError } from '../../../main/core/data/dataset.js';
import { decodeNpz, encodeNpz, exportNpz, importNpz, nextObservations } from '../../../main/services/datasets/npz.js';
import { decodeNpy, encodeNpyF32 } from '../../../main/services/datasets/npy.js';
import { sampleDataset } from '../../core/data/sample.js';

const scratch = async (): Promise<string> => mkdtemp(join(tmpdir(), 'witness-npz-'));

function throwsWith(fn: () => unknown, field: string, detail: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof DatasetError, `a DatasetError, got ${String(err)}`);
    assert.equal(err.file, 'in.npz');
    assert.equal(err.field, field);
    assert.match(err.message, /^in\.npz: /);
    assert.match(err.message, detail);
    return true;
  });
}

/** A python3 that can import numpy. CI installs Debian's python3-numpy, so its absence is a failure. */
function numpyPython(): string {
  for (const py of ['/usr/bin/python3', 'python3']) {
    if (spawnSync(py, ['-c', 'import numpy'], { encoding: 'utf8' }).status === 0) return py;
  }
  return assert.fail(
    'no python3 that can `import numpy` (tried /usr/bin/python3 and python3 on PATH): ' +
      "install Debian's python3-numpy (apt-get install python3-numpy)",
  );
}

function python(script: string, ...args: string[]): string {
  const r = spawnSync(numpyPython(), ['-c', script, ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, `python failed: ${r.stderr}`);
  return r.stdout;
}

test('export then import gives the same arrays; the world comes from the caller', async () => {
  const dir = await scratch();
  const file = join(dir, 'a.npz');
  const d = sampleDataset();
  await exportNpz(file, d);
  const back = await importNpz(file, { worldId: 'pointmaze-small' });
  assert.deepEqual(back, { ...d, generator: { imported: 'a.npz' }, seed: 0 });
  await exportNpz(join(dir, 'b.npz'), d);
  assert.deepEqual(await readFile(file), await readFile(join(dir, 'b.npz')), 'byte-deterministic');
  assert.deepEqual((await readdir(dir)).sort(), ['a.npz', 'b.npz'], 'no temporary files');
  await rm(dir, { recursive: true });
});

test('exported arrays follow OGBench: float32 flags, next observations stop at terminals', () => {
  const d = sampleDataset([2, 1], 2, 1);
  const files = unzipSync(encodeNpz(d));
  assert.deepEqual(Object.keys(files), [
    'observations.npy',
    'actions.npy',
    'terminals.npy',
    'next_observations.npy',
    'timeouts.npy',
  ]);
  const term = decodeNpy(files['terminals.npy']!);
  assert.equal(term.descr, '<f4');
  assert.deepEqual(Array.from(term.data), [0, 1, 1]);
  assert.deepEqual(Array.from(decodeNpy(files['timeouts.npy']!).data), [0, 1, 1]);
  const o = d.observations;
  const next = decodeNpy(files['next_observations.npy']!);
  assert.deepEqual(next.shape, [3, 2]);
  assert.deepEqual(Array.from(next.data), [o[2], o[3], o[2], o[3], o[4], o[5]]);
  assert.deepEqual(nextObservations(d), Float32Array.from(next.data));
});

test('npy headers are v1.0, padded to 64 bytes and newline-terminated', () => {
  const bytes = encodeNpyF32(new Float32Array(6), [3, 2]);
  const len = bytes[8]! | (bytes[9]! << 8);
  assert.deepEqual(Array.from(bytes.subarray(0, 8)), [0x93, 78, 85, 77, 80, 89, 1, 0]);
  assert.equal((10 + len) % 64, 0);
  const header = new TextDecoder().decode(bytes.subarray(10, 10 + len));
  assert.match(header, /^\{'descr': '<f4', 'fortran_order': False, 'shape': \(3, 2\), \} *\n$/);
  assert.match(new TextDecoder().decode(encodeNpyF32(new Float32Array(4), [4])), /'shape': \(4,\), \}/);
});

test('numpy reads what we export', async () => {
  const dir = await scratch();
  const file = join(dir, 'ours.npz');
  const d = sampleDataset([50, 20, 30], 4, 2);
  await exportNpz(file, d);
  const out = python(
    `
import json, sys, numpy as np
z = np.load(sys.argv[1])
print(json.dumps({
  'arrays': {k: [list(z[k].shape), str(z[k].dtype)] for k in sorted(z.files)},
  'obs_sum': float(z['observations'].astype(np.float64).sum()),
  'next_sum': float(z['next_observations'].astype(np.float64).sum()),
  'act_sum': float(z['actions'].astype(np.float64).sum()),
  'ends': np.flatnonzero(z['terminals']).tolist(),
  'same_flags': bool((z['terminals'] == z['timeouts']).all()),
}))`,
    file,
  );
  const r = JSON.parse(out) as {
    arrays: Record<string, [number[], string]>;
    obs_sum: number;
    next_sum: number;
    act_sum: number;
    ends: number[];
    same_flags: boolean;
  };
  assert.deepEqual(r.arrays, {
    actions: [[100, 2], 'float32'],
    next_observations: [[100, 4], 'float32'],
    observations: [[100, 4], 'float32'],
    terminals: [[100], 'float32'],
    timeouts: [[100], 'float32'],
  });
  const sum = (a: Float32Array): number => a.reduce((s, x) => s + x, 0);
  const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
  assert.ok(close(r.obs_sum, sum(d.observations)), `observations sum ${r.obs_sum} vs ${sum(d.observations)}`);
  assert.ok(close(r.next_sum, sum(nextObservations(d))), 'next_observations sum');
  assert.ok(close(r.act_sum, sum(d.actions)), 'actions sum');
  assert.deepEqual(r.ends, [49, 69, 99]);
  assert.ok(r.same_flags);
  await rm(dir, { recursive: true });
});

test('we read what numpy writes: savez_compressed and savez, with the usual dtypes', async () => {
  const dir = await scratch();
  python(
    `
import sys, numpy as np
n = 7
obs = np.arange(n * 3).reshape(n, 3) * 0.1
term = np.zeros(n, dtype=bool); term[[2, 6]] = True
act = (np.arange(n * 2).reshape(n, 2) - 5).astype(np.float32)
np.savez_compressed(sys.argv[1], observations=obs, actions=act, terminals=term, next_observations=obs)
np.savez(sys.argv[2], observations=obs.astype(np.float32), actions=act.astype(np.float64),
         terminals=term.astype(np.int64), timeouts=term.astype(np.uint8))
np.savez(sys.argv[3], observations=obs, actions=act, terminals=term.astype(np.float64))`,
    join(dir, 'c.npz'),
    join(dir, 's.npz'),
    join(dir, 'f.npz'),
  );
  const obs = Float32Array.from({ length: 21 }, (_, i) => i * 0.1);
  const act = Float32Array.from({ length: 14 }, (_, i) => i - 5);
  const terminals = Uint8Array.from([0, 0, 1, 0, 0, 0, 1]);
  for (const name of ['c.npz', 's.npz', 'f.npz']) {
    const d = await importNpz(join(dir, name), { worldId: 'w' });
    assert.deepEqual(
      d,
      {
        worldId: 'w',
        observations: obs,
        actions: act,
        terminals,
        obsDim: 3,
        actDim: 2,
        generator: { imported: name },
        seed: 0,
      },
      name,
    );
  }
  await rm(dir, { recursive: true });
});

test('numpy files we cannot take are rejected with the array named', async () => {
  const dir = await scratch();
  python(
    `
import sys, numpy as np
obs = np.ones((4, 2)); act = np.zeros((4, 1)); term = np.array([0, 1, 0, 1.0])
np.savez(sys.argv[1], observations=np.asfortranarray(obs), actions=act, terminals=term)
np.savez(sys.argv[2], observations=obs, actions=act.astype('>f8'), terminals=term)
bad = obs.copy(); bad[2, 1] = np.nan
np.savez(sys.argv[3], observations=bad, actions=act, terminals=term)`,
    join(dir, 'fortran.npz'),
    join(dir, 'big.npz'),
    join(dir, 'nan.npz'),
  );
  const load = async (name: string): Promise<() => unknown> => {
    const bytes = await readFile(join(dir, name));
    return () => decodeNpz(bytes, 'in.npz', { worldId: 'w' });
  };
  throwsWith(await load('fortran.npz'), 'observations', /observations: fortran_order True is not supported/);
  throwsWith(await load('big.npz'), 'actions', /actions: big-endian dtype >f8 is not supported/);
  throwsWith(await load('nan.npz'), 'observations', /^in\.npz: observations\[2\]\[1\] is NaN$/);
  await rm(dir, { recursive: true });
});

test('malformed archives: missing arrays, bad shapes, bad flags, not a zip', () => {
  const d = sampleDataset();
  const base = {
    'observations.npy': encodeNpyF32(d.observations, [8, 3]),
    'actions.npy': encodeNpyF32(d.actions, [8, 2]),
    'terminals.npy': encodeNpyF32(Float32Array.from(d.terminals), [8]),
  };
  const read = (files: Record<string, Uint8Array>) => () => decodeNpz(zipSync(files), 'in.npz', { worldId: 'w' });
  const { 'actions.npy': _, ...noActions } = base;
  throwsWith(read(noActions), 'actions', /array actions is missing \(arrays present: observations, terminals\)/);
  throwsWith(
    read({ ...base, 'actions.npy': encodeNpyF32(d.actions.subarray(0, 14), [7, 2]) }),
    'actions',
    /actions has 7 rows, observations has 8/,
  );
  throwsWith(
    read({ ...base, 'observations.npy': encodeNpyF32(d.observations, [24]) }),
    'observations',
    /shape \(24\), expected \(N, D\)/,
  );
  throwsWith(
    read({ ...base, 'terminals.npy': encodeNpyF32(Float32Array.from(d.terminals), [8, 1]) }),
    'terminals',
    /shape \(8, 1\), expected \(8,\)/,
  );
  const half = Float32Array.from(d.terminals);
  half[3] = 0.5;
  throwsWith(
    read({ ...base, 'terminals.npy': encodeNpyF32(half, [8]) }),
    'terminals',
    /terminals\[3\] is 0.5, expected 0 or 1/,
  );
  const cut = encodeNpyF32(d.actions, [8, 2]).subarray(0, 150);
  throwsWith(
    read({ ...base, 'actions.npy': cut }),
    'actions',
    /actions: truncated data: expected 64 bytes for shape \(8, 2\), found 22/,
  );
  const i4 = encodeNpyF32(d.actions, [8, 2]);
  i4.set(new TextEncoder().encode("'<i4'"), 20);
  throwsWith(read({ ...base, 'actions.npy': i4 }), 'actions', /dtype <i4 is not supported/);
  throwsWith(
    () => decodeNpz(new TextEncoder().encode('hello'), 'in.npz', { worldId: 'w' }),
    'zip',
    /not a readable \.npz/,
  );
});

test('a failed export leaves no temporary file', async () => {
  const dir = await scratch();
  const bad = sampleDataset();
  bad.actions[0] = Infinity;
  await assert.rejects(exportNpz(join(dir, 'x.npz'), bad), /actions\[0\]\[0\] is Infinity/);
  await assert.rejects(exportNpz(join(dir, 'nope', 'x.npz'), sampleDataset()), /cannot write/);
  assert.deepEqual(await readdir(dir), []);
  await rm(dir, { recursive: true });
});

test('writeFile helper sanity: an npz from disk reads the same as from memory', async () => {
  const dir = await scratch();
  const bytes = encodeNpz(sampleDataset());
  await writeFile(join(dir, 'm.npz'), bytes);
  assert.deepEqual(await importNpz(join(dir, 'm.npz'), { worldId: 'w' }), decodeNpz(bytes, 'm.npz', { worldId: 'w' }));
  await rm(dir, { recursive: true });
});

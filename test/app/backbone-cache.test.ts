// @slow: generates datasets and builds graphs for the backbone cache (not in npm run test:quick)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openBackbone } from '../../main/app/backbone.js';
import { datasetHash } from '../../main/services/datasets/format.js';

const SOURCE = { kind: 'generate', world: 'pointmaze-medium', datasetSteps: 5000, seed: 3 } as const;

async function open(
  cacheDir: string,
  source: {
    kind: 'generate';
    world: string;
    datasetSteps: number;
    seed: number;
    datasetKind?: 'navigate' | 'stitch' | 'explore';
  } = SOURCE,
): Promise<{ lines: string[]; sha: string; graph: string; data: string }> {
  const lines: string[] = [];
  const b = await openBackbone(source, { cacheDir, log: (l) => lines.push(l) });
  await b.models.close();
  return { lines, sha: datasetHash(b.dataset), graph: b.files.graph, data: b.files.data };
}

test('a generated backbone is kept in the cache and reused; corrupt, swapped or stale entries are rebuilt, never trusted', async () => {
  const cache = mkdtempSync(path.join(tmpdir(), 'witness-cache-'));
  const first = await open(cache);
  assert.match(first.lines.join('\n'), /generating 5000 navigate transitions in pointmaze-medium \(seed 3\)/);
  const entries = readdirSync(path.join(cache, 'backbones'));
  assert.equal(entries.length, 1);
  assert.match(entries[0]!, /^pointmaze-medium-navigate-5000-seed3-[0-9a-f]{16}$/);

  const hit = await open(cache);
  assert.deepEqual(hit.lines, [`using the cached backbone ${path.join(cache, 'backbones', entries[0]!)}`]);
  assert.equal(hit.sha, first.sha);

  // A flipped byte in the graph's payload: its hash no longer matches; rebuilt.
  const g = readFileSync(first.graph);
  g[g.length - 5] = g[g.length - 5]! ^ 0xff;
  writeFileSync(first.graph, g);
  const corrupt = await open(cache);
  assert.match(corrupt.lines[0]!, /is not usable \(.*sha256.*\); rebuilding it/);
  assert.equal(corrupt.sha, first.sha, 'the rebuilt backbone is the same (generation is deterministic)');
  assert.deepEqual((await open(cache)).lines.length, 1, 'and the next run uses it again');

  // Another dataset under the same entry (a valid file, the wrong content): rebuilt.
  const other = await open(cache, { ...SOURCE, seed: 4 });
  copyFileSync(other.data, first.data);
  const swapped = await open(cache);
  assert.match(swapped.lines[0]!, /is not usable \(the dataset is not the one the entry recorded\)/);
  assert.equal(swapped.sha, first.sha);

  // An entry written from other inputs or by another build (its key differs): rebuilt.
  const meta = path.join(path.dirname(first.graph), 'entry.json');
  const m = JSON.parse(readFileSync(meta, 'utf8')) as { key: Record<string, unknown> };
  writeFileSync(meta, JSON.stringify({ ...m, key: { ...m.key, witness: '0.0.0-old' } }));
  const stale = await open(cache);
  assert.match(stale.lines[0]!, /is not usable \(it was built from other inputs or by another build\)/);

  // A torn entry (no entry.json, as when a run was killed before writing it): built again, silently.
  writeFileSync(meta, '{');
  assert.match((await open(cache)).lines[0]!, /entry\.json does not parse/);
});

test('without the cache the backbone is generated in memory and nothing is written', async () => {
  const cache = mkdtempSync(path.join(tmpdir(), 'witness-cache-'));
  const b = await openBackbone(SOURCE, { cacheDir: cache, cache: false });
  await b.models.close();
  assert.equal(b.files.graph, '(built in process)');
  assert.deepEqual(readdirSync(cache), []);
});

test('the dataset regime is part of a generated backbone and of its cache key: each regime its own entry, the navigate one unchanged', async () => {
  const cache = mkdtempSync(path.join(tmpdir(), 'witness-cache-'));
  const nav = await open(cache);
  const lines: string[] = [];
  const b = await openBackbone({ ...SOURCE, datasetKind: 'stitch' }, { cacheDir: cache, log: (l) => lines.push(l) });
  await b.models.close();
  assert.match(lines.join('\n'), /generating 5000 stitch transitions in pointmaze-medium \(seed 3\)/);
  assert.equal(b.dataset.generator['kind'], 'stitch');
  assert.notEqual(datasetHash(b.dataset), nav.sha);
  const entries = readdirSync(path.join(cache, 'backbones')).sort();
  assert.equal(entries.length, 2);
  assert.match(entries[0]!, /^pointmaze-medium-navigate-5000-seed3-[0-9a-f]{16}$/);
  assert.match(entries[1]!, /^pointmaze-medium-stitch-5000-seed3-[0-9a-f]{16}$/);
  const key = (e: string) =>
    (JSON.parse(readFileSync(path.join(cache, 'backbones', e, 'entry.json'), 'utf8')) as { key: { kind: string } }).key
      .kind;
  assert.deepEqual(entries.map(key), ['navigate', 'stitch']);
  // Asking for navigate explicitly is the default entry, a hit.
  assert.deepEqual((await open(cache, { ...SOURCE, datasetKind: 'navigate' })).lines, [
    `using the cached backbone ${path.join(cache, 'backbones', entries[0]!)}`,
  ]);
});

test("a regime with a shipped bundle of its own plans on it (antmaze-medium stitch), another on the world's; a graph file finds the shipped bundle it was built with", async () => {
  const cache = mkdtempSync(path.join(tmpdir(), 'witness-cache-'));
  const models = (name: string): string =>
    path.join(fileURLToPath(new URL('../../../assets/models', import.meta.url)), name);
  const ant = { kind: 'generate', world: 'antmaze-medium', datasetSteps: 3000, seed: 1 } as const;
  const stitch = await openBackbone({ ...ant, datasetKind: 'stitch' }, { cacheDir: cache });
  await stitch.models.close();
  assert.equal(stitch.files.models, models('antmaze-medium-stitch'));
  const shipped = JSON.parse(readFileSync(path.join(models('antmaze-medium-stitch'), 'manifest.json'), 'utf8')) as {
    files: Record<string, { sha256: string }>;
  };
  assert.equal(stitch.models.manifest.files['policy.onnx'].sha256, shipped.files['policy.onnx']!.sha256);
  const explore = await openBackbone({ ...ant, datasetKind: 'explore' }, { cacheDir: cache });
  await explore.models.close();
  assert.equal(explore.files.models, models('antmaze-medium'), 'no explore bundle ships: the navigate one');
  // Given as files without --models: the shipped bundle whose hashes the graph recorded.
  for (const [b, name] of [
    [stitch, 'antmaze-medium-stitch'],
    [explore, 'antmaze-medium'],
  ] as const) {
    const again = await openBackbone({ kind: 'files', graph: b.files.graph, data: b.files.data });
    await again.models.close();
    assert.equal(again.files.models, models(name));
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGraph } from '../../../main/core/graph/build.js';
import {
  GraphError,
  graphJson,
  readGraph,
  writeGraph,
  type GraphArtifact,
} from '../../../main/services/graph/store.js';

function artifact(): GraphArtifact {
  const rows: number[] = [],
    terms: number[] = [];
  for (let t = 0; t < 60; t++) {
    rows.push(t, 0);
    terms.push(t === 59 ? 1 : 0);
  }
  const graph = buildGraph(Float32Array.from(rows), 2, Uint8Array.from(terms), { H_TD: 8, teThreshold: 0.99 });
  return {
    world: 'pointmaze-medium',
    dataset: { sha256: 'd'.repeat(64) },
    models: { embed: 'e'.repeat(64), policy: 'f'.repeat(64) },
    params: { H_TD: 8, teThreshold: 0.99 },
    graph,
    positions: new Float32Array(graph.nodeCount * 2).fill(1),
  };
}

test('graph files round-trip; stale models, other worlds and corruption are refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-graph-'));
  const file = join(dir, 'g.wgraph');
  const a = artifact();
  await writeGraph(file, a);
  const b = await readGraph(file, { models: a.models, world: 'pointmaze-medium' });
  assert.deepEqual(Array.from(b.graph.nodes), Array.from(a.graph.nodes));
  assert.deepEqual(Array.from(b.graph.support), Array.from(a.graph.support));
  assert.equal(b.graph.nodeCount, a.graph.nodeCount);
  await assert.rejects(
    readGraph(file, { models: { embed: '0'.repeat(64), policy: a.models.policy } }),
    (e: unknown) => e instanceof GraphError && /models: stale/.test(e.message),
  );
  await assert.rejects(readGraph(file, { world: 'pointmaze-giant' }), /the graph is for pointmaze-medium/);
  const bytes = readFileSync(file);
  bytes[bytes.length - 5] = bytes[bytes.length - 5]! ^ 0xff;
  writeFileSync(file, bytes);
  await assert.rejects(readGraph(file), /sha256: the payload does not match/);
  writeFileSync(file, bytes.subarray(0, 40));
  await assert.rejects(readGraph(file), /truncated/);
  const j = graphJson(a) as { nodes: { position: number[] }[]; edges: unknown[] };
  assert.equal(j.nodes.length, a.graph.nodeCount);
  assert.equal(j.edges.length, a.graph.edgeU.length);
});

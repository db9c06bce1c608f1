import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGraph, sparseFilterWarning, temporalEfficiency } from '../../../main/core/graph/build.js';

/** Trajectories moving along straight latent lines at one unit per step. */
function lines(
  specs: { from: number[]; dir: number[]; steps: number }[],
  dim: number,
): { latent: Float32Array; terminals: Uint8Array } {
  const rows: number[][] = [];
  const terms: number[] = [];
  for (const s of specs) {
    for (let t = 0; t < s.steps; t++) {
      rows.push(Array.from({ length: dim }, (_, q) => (s.from[q] ?? 0) + t * (s.dir[q] ?? 0)));
      terms.push(t === s.steps - 1 ? 1 : 0);
    }
  }
  return { latent: Float32Array.from(rows.flat()), terminals: Uint8Array.from(terms) };
}

test('temporal efficiency is 1 along straight motion and drops for back-and-forth motion', () => {
  const { latent, terminals } = lines([{ from: [0, 0], dir: [1, 0], steps: 40 }], 2);
  const te = temporalEfficiency(latent, 2, terminals, 8);
  assert.ok(Math.abs(te[0]! - 1) < 1e-6);
  assert.equal(te[39], -2, 'no future: dropped');
  // zig-zag: the state 8 steps later points elsewhere than the first state 8 units away
  const zig: number[] = [];
  for (let t = 0; t < 40; t++) zig.push(t < 20 ? t : 40 - t, t < 20 ? 0 : 0.5 * (t - 20));
  const te2 = temporalEfficiency(
    Float32Array.from(zig),
    2,
    Uint8Array.from({ length: 40 }, (_, i) => (i === 39 ? 1 : 0)),
    8,
  );
  assert.ok(te2[15]! < 0.99);
});

test('leader clustering spaces nodes by at most H_TD/2, edges join nodes within H_TD, supports cover every state', () => {
  const { latent, terminals } = lines(
    [
      { from: [0, 0], dir: [1, 0], steps: 100 },
      { from: [0, 10], dir: [1, 0], steps: 100 },
    ],
    2,
  );
  const g = buildGraph(latent, 2, terminals, { H_TD: 8, teThreshold: 0.99 });
  assert.ok(g.nodeCount >= 30 && g.nodeCount <= 46, `${g.nodeCount} nodes`); // ~92 kept states per line, a leader every 4–5 units
  for (let e = 0; e < g.edgeU.length; e++) assert.ok(g.edgeW[e]! <= 8 + 1e-6 || e >= g.edgeU.length - g.bridges);
  assert.equal(g.support.length, 200);
  // each state's node is its nearest one
  for (let i = 0; i < 200; i += 17) {
    const v = g.support[i]!;
    const d = (u: number): number =>
      Math.hypot(latent[i * 2]! - g.nodes[u * 2]!, latent[i * 2 + 1]! - g.nodes[u * 2 + 1]!);
    for (let u = 0; u < g.nodeCount; u++) assert.ok(d(v) <= d(u) + 1e-5);
  }
});

test('separate regions are joined through their nearest pair; no filtered state means a clear error', () => {
  const { latent, terminals } = lines(
    [
      { from: [0, 0], dir: [1, 0], steps: 40 },
      { from: [0, 100], dir: [1, 0], steps: 40 },
    ],
    2,
  );
  const g = buildGraph(latent, 2, terminals, { H_TD: 8, teThreshold: 0.99 });
  assert.equal(g.componentsBefore, 2);
  assert.equal(g.bridges, 1);
  const still = lines([{ from: [0, 0], dir: [0, 0], steps: 30 }], 2);
  assert.throws(
    () => buildGraph(still.latent, 2, still.terminals, { H_TD: 8, teThreshold: 0.99 }),
    /no state passed the temporal-efficiency filter/,
  );
  assert.throws(
    () => buildGraph(new Float32Array(3), 2, new Uint8Array(2), { H_TD: 8, teThreshold: 0.99 }),
    /expected 2×2 values/,
  );
});

test('a graph whose filter kept almost nothing of a large dataset is flagged; a healthy or small one is not', () => {
  // 19 920 states: a slow jitter (ψ moves 0.05 units a step, back and forth) and one straight run of 20 steps.
  const jitter = Array.from({ length: 199 }, (_, i) => ({
    from: [i * 0.01, 0],
    dir: [0.05 * (i % 2 === 0 ? 1 : -1), 0],
    steps: 100,
  }));
  const sparse = lines([...jitter, { from: [0, 5], dir: [1, 0], steps: 20 }], 2);
  const g = buildGraph(sparse.latent, 2, sparse.terminals, { H_TD: 8, teThreshold: 0.99 });
  assert.equal(g.support.length, 19_920);
  assert.ok(g.retained > 0 && g.retained < 20, `kept ${g.retained}`);
  const w = sparseFilterWarning(g, 8);
  assert.ok(w !== null);
  assert.match(
    w,
    new RegExp(
      `kept ${g.retained} of 19920 states .* a graph of ${g.nodeCount} node\\(s\\).*H_TD = 8 latent units.*witness backbone eval`,
    ),
  );
  // The same straight runs throughout: most states kept, no warning.
  const healthy = lines(
    Array.from({ length: 200 }, (_, i) => ({ from: [0, i], dir: [1, 0], steps: 100 })),
    2,
  );
  const h = buildGraph(healthy.latent, 2, healthy.terminals, { H_TD: 8, teThreshold: 0.99 });
  assert.ok(h.retained > 10_000);
  assert.equal(sparseFilterWarning(h, 8), null);
  // A small dataset (a test fixture, a short recording) is not judged.
  const small = lines([...jitter.slice(0, 50), { from: [0, 5], dir: [1, 0], steps: 20 }], 2);
  assert.equal(
    sparseFilterWarning(buildGraph(small.latent, 2, small.terminals, { H_TD: 8, teThreshold: 0.99 }), 8),
    null,
  );
});

/**
 * The graph builder's searches (clustering from the last state's leader, supports from the previous
 * state's node, each with a fall-back) are shortcuts for two brute-force definitions: greedy leader
 * clustering where each state joins its nearest leader within H_TD/2, in dataset order, and every
 * state supported by its nearest node. Random walks with jumps (which the shortcuts cannot decide
 * locally) and trajectory ends must give exactly what the definitions give.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildGraph, temporalEfficiency } from '../../../main/core/graph/build.js';
import { createRng } from '../../../main/core/random/rng.js';

function sq(a: Float32Array, i: number, b: Float32Array | number[], j: number, dim: number): number {
  let s = 0;
  for (let q = 0; q < dim; q++) {
    const d = a[i * dim + q]! - b[j * dim + q]!;
    s += d * d;
  }
  return s;
}

/** Random walks in `dim` dimensions: mostly small drifting steps, now and then a jump far away. */
function walks(
  seed: number,
  dim: number,
  n: number,
  jumpRate: number,
): { latent: Float32Array; terminals: Uint8Array } {
  const rng = createRng(seed);
  const latent = new Float32Array(n * dim);
  const terminals = new Uint8Array(n);
  const pos = Array.from({ length: dim }, () => rng.next() * 40);
  const drift = Array.from({ length: dim }, () => rng.next() - 0.5);
  for (let t = 0; t < n; t++) {
    if (rng.next() < jumpRate) for (let q = 0; q < dim; q++) pos[q] = rng.next() * 40;
    for (let q = 0; q < dim; q++) {
      pos[q]! += drift[q]! + (rng.next() - 0.5) * 0.6;
      latent[t * dim + q] = pos[q]!;
    }
    if (rng.next() < 0.01 || t === n - 1) {
      terminals[t] = 1;
      for (let q = 0; q < dim; q++) drift[q] = rng.next() - 0.5;
    }
  }
  return { latent, terminals };
}

test('property: clustering and supports equal their brute-force definitions, jumps and trajectory ends included (seeded)', () => {
  let jumpsSeen = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      fc.constantFrom(2, 3, 8),
      fc.constantFrom(0, 0.01, 0.05),
      fc.constantFrom(2, 4, 8),
      (seed, dim, jumpRate, H) => {
        const n = 1500;
        const { latent, terminals } = walks(seed, dim, n, jumpRate);
        const p = { H_TD: H, teThreshold: -1 };
        const g = buildGraph(latent, dim, terminals, p);
        // the definitions, by brute force
        const te = temporalEfficiency(latent, dim, terminals, H);
        const r2 = (H / 2) ** 2;
        const leaders: number[] = [];
        const sums: number[][] = [];
        const counts: number[] = [];
        for (let i = 0; i < n; i++) {
          if (!(te[i]! >= p.teThreshold)) continue;
          let best = -1,
            bestD = r2;
          for (let c = 0; c < leaders.length; c++) {
            const d = sq(latent, i, latent, leaders[c]!, dim);
            if (d < bestD || (d === bestD && best === -1)) {
              bestD = d;
              best = c;
            }
          }
          if (best === -1) {
            best = leaders.length;
            leaders.push(i);
            sums.push(new Array<number>(dim).fill(0));
            counts.push(0);
          }
          for (let q = 0; q < dim; q++) sums[best]![q]! += latent[i * dim + q]!;
          counts[best]!++;
        }
        assert.equal(g.nodeCount, leaders.length, `seed ${seed}: node count`);
        const nodes = Float32Array.from(sums.flatMap((s, c) => s.map((x) => x / counts[c]!)));
        assert.deepEqual(g.nodes, nodes, `seed ${seed}: node latents`);
        for (let i = 0; i < n; i++) {
          let best = 0,
            bestD = Infinity;
          for (let c = 0; c < g.nodeCount; c++) {
            const d = Math.sqrt(sq(latent, i, g.nodes, c, dim));
            if (d < bestD) {
              bestD = d;
              best = c;
            }
          }
          assert.equal(g.support[i], best, `seed ${seed}: state ${i}'s node`);
          if (i > 0 && terminals[i - 1] === 0 && Math.sqrt(sq(latent, i, latent, i - 1, dim)) > 2 * H) jumpsSeen++;
        }
      },
    ),
    { numRuns: 60, seed: 1907 },
  );
  // non-vacuity: the shortcuts met states they could not decide from the previous one
  assert.ok(jumpsSeen > 50, `only ${jumpsSeen} jumps`);
});

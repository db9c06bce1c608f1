import type { Dataset } from '../../../main/core/data/dataset.js';

/**
 * A small deterministic dataset: `lengths` trajectories back to back, observation values that
 * differ in every cell (so a swapped row or column shows), and a nested generator config.
 */
export function sampleDataset(lengths: readonly number[] = [3, 1, 4], obsDim = 3, actDim = 2): Dataset {
  const n = lengths.reduce((a, b) => a + b, 0);
  const observations = new Float32Array(n * obsDim).map((_, i) => Math.sin(i) * 10 + i * 0.25);
  const actions = new Float32Array(n * actDim).map((_, i) => Math.cos(i * 0.7) - 0.5);
  const terminals = new Uint8Array(n);
  let end = -1;
  for (const len of lengths) terminals[(end += len)] = 1;
  return {
    worldId: 'pointmaze-small',
    observations,
    actions,
    terminals,
    obsDim,
    actDim,
    generator: { kind: 'random-walk', steps: n, noise: { sigma: 0.1, clip: [-1, 1] }, label: 'é' },
    seed: 42,
  };
}

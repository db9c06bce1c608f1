/**
 * Coarsest stable partition (bisimulation-style quotient): states fall in one block when their
 * initial keys agree and their signatures, read through the current blocks, agree.
 */
export function refinePartition(
  n: number,
  initialKey: (s: number) => string,
  signature: (s: number, block: Int32Array) => string,
  tick?: () => void,
): Int32Array {
  let block = new Int32Array(n);
  let count = assign(n, block, (s) => initialKey(s));
  for (;;) {
    const next = new Int32Array(n);
    const cur = block;
    const c = assign(n, next, (s) => `${cur[s]}|${signature(s, cur)}`, tick);
    block = next;
    if (c === count) return block;
    count = c;
  }
}

function assign(n: number, out: Int32Array, key: (s: number) => string, tick?: () => void): number {
  const ids = new Map<string, number>();
  for (let s = 0; s < n; s++) {
    const k = key(s);
    let id = ids.get(k);
    if (id === undefined) {
      id = ids.size;
      ids.set(k, id);
    }
    out[s] = id;
    tick?.();
  }
  return ids.size;
}

/** Strongly connected components (iterative Tarjan), for graphs given as successor lists. */
export function stronglyConnected(n: number, succ: (v: number) => Iterable<number>): Int32Array {
  const comp = new Int32Array(n).fill(-1);
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  let counter = 0;
  let compCount = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: { v: number; it: Iterator<number> }[] = [];
    const open = (v: number): void => {
      index[v] = low[v] = counter++;
      stack.push(v);
      onStack[v] = 1;
      work.push({ v, it: succ(v)[Symbol.iterator]() });
    };
    open(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const step = top.it.next();
      if (!step.done) {
        const w = step.value;
        if (index[w] === -1) open(w);
        else if (onStack[w] === 1) low[top.v] = Math.min(low[top.v]!, index[w]!);
        continue;
      }
      work.pop();
      const v = top.v;
      if (work.length > 0) {
        const parent = work[work.length - 1]!.v;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        for (;;) {
          const w = stack.pop()!;
          onStack[w] = 0;
          comp[w] = compCount;
          if (w === v) break;
        }
        compCount++;
      }
    }
  }
  return comp;
}

/**
 * States from which a cycle through a `good` state is reachable (the states that can still lead to
 * acceptance), restricted to `alive` states.
 */
export function canReachGoodCycle(
  n: number,
  succ: (v: number) => Iterable<number>,
  good: (v: number) => boolean,
): Uint8Array {
  const comp = stronglyConnected(n, succ);
  const compSize = new Map<number, number>();
  for (let v = 0; v < n; v++) compSize.set(comp[v]!, (compSize.get(comp[v]!) ?? 0) + 1);
  const result = new Uint8Array(n);
  const pred: number[][] = Array.from({ length: n }, () => []);
  const queue: number[] = [];
  for (let v = 0; v < n; v++) {
    for (const w of succ(v)) {
      pred[w]!.push(v);
      if (good(v) && comp[w] === comp[v] && (compSize.get(comp[v]!)! > 1 || w === v) && result[v] === 0) {
        result[v] = 1;
        queue.push(v);
      }
    }
  }
  while (queue.length > 0) {
    const v = queue.pop()!;
    for (const u of pred[v]!) {
      if (result[u] === 0) {
        result[u] = 1;
        queue.push(u);
      }
    }
  }
  return result;
}

/** States reachable from the given roots. */
export function reachable(n: number, roots: Iterable<number>, succ: (v: number) => Iterable<number>): Uint8Array {
  const seen = new Uint8Array(n);
  const stack: number[] = [];
  for (const r of roots) {
    if (seen[r] === 0) {
      seen[r] = 1;
      stack.push(r);
    }
  }
  while (stack.length > 0) {
    const v = stack.pop()!;
    for (const w of succ(v)) {
      if (seen[w] === 0) {
        seen[w] = 1;
        stack.push(w);
      }
    }
  }
  return seen;
}

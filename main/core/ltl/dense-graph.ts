/**
 * A graph explored from keys (e.g. state · k + position), its nodes numbered densely in the order
 * they are found: `nodes[x]` is node x's key, `succ[x]` its successors' numbers. The lasso check and
 * the WDBA stage's loop and emptiness tests build their products with it. Pure.
 */
export interface DenseGraph {
  readonly nodes: number[];
  readonly succ: number[][];
  /** The number of the node with this key, numbering it now if it is new. */
  readonly visit: (key: number) => number;
}

export function denseGraph(): DenseGraph {
  const id = new Map<number, number>();
  const nodes: number[] = [];
  const succ: number[][] = [];
  const visit = (key: number): number => {
    let x = id.get(key);
    if (x === undefined) {
      x = nodes.length;
      id.set(key, x);
      nodes.push(key);
      succ.push([]);
    }
    return x;
  };
  return { nodes, succ, visit };
}

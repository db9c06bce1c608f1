/** What a replan changed: the node sequences of two plans compared by longest common subsequence. */

export interface DiffOp {
  op: '=' | '-' | '+';
  node: string;
}

/** Sequences longer than this are compared by their common ends only (the table would be too big). */
const MAX_CELLS = 4_000_000;

export function diffNodes(before: readonly string[], after: readonly string[]): DiffOp[] {
  // Common ends first: replans usually keep the tail of the plan, and this keeps the table small.
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  const a = before.slice(head, before.length - tail);
  const b = after.slice(head, after.length - tail);
  const out: DiffOp[] = before.slice(0, head).map((node) => ({ op: '=', node }));
  if ((a.length + 1) * (b.length + 1) > MAX_CELLS) {
    out.push(...a.map((node): DiffOp => ({ op: '-', node })), ...b.map((node): DiffOp => ({ op: '+', node })));
  } else {
    // lcs[i][j]: the LCS length of a[i..] and b[j..], in one flat array.
    const w = b.length + 1;
    const lcs = new Uint32Array((a.length + 1) * w);
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) {
        lcs[i * w + j] =
          a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
    let i = 0,
      j = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) {
        out.push({ op: '=', node: a[i]! });
        i++;
        j++;
      } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) out.push({ op: '-', node: a[i++]! });
      else out.push({ op: '+', node: b[j++]! });
    }
    while (i < a.length) out.push({ op: '-', node: a[i++]! });
    while (j < b.length) out.push({ op: '+', node: b[j++]! });
  }
  out.push(...before.slice(before.length - tail).map((node): DiffOp => ({ op: '=', node })));
  return out;
}

/** A binary min-heap of (key, id) pairs in growable typed arrays: the priority queue of every search. */
export class MinHeap {
  private keys: Float64Array;
  private ids: Int32Array;
  private n = 0;

  constructor(capacity = 1024) {
    this.keys = new Float64Array(Math.max(16, capacity));
    this.ids = new Int32Array(Math.max(16, capacity));
  }

  get size(): number {
    return this.n;
  }

  /** Empties the heap, keeping its arrays for the next search. */
  clear(): void {
    this.n = 0;
  }

  push(key: number, id: number): void {
    if (this.n === this.keys.length) {
      const k = new Float64Array(this.n * 2);
      k.set(this.keys);
      this.keys = k;
      const d = new Int32Array(this.n * 2);
      d.set(this.ids);
      this.ids = d;
    }
    let i = this.n++;
    const keys = this.keys,
      ids = this.ids;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p]! <= key) break;
      keys[i] = keys[p]!;
      ids[i] = ids[p]!;
      i = p;
    }
    keys[i] = key;
    ids[i] = id;
  }

  /** Key of the minimum; Infinity when empty. */
  peekKey(): number {
    return this.n > 0 ? this.keys[0]! : Infinity;
  }

  /** Removes the minimum and returns its id (−1 when empty); its key was peekKey(). */
  pop(): number {
    if (this.n === 0) return -1;
    const keys = this.keys,
      ids = this.ids;
    const top = ids[0]!;
    const n = --this.n;
    if (n > 0) {
      const key = keys[n]!,
        id = ids[n]!;
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && keys[c + 1]! < keys[c]!) c++;
        if (keys[c]! >= key) break;
        keys[i] = keys[c]!;
        ids[i] = ids[c]!;
        i = c;
      }
      keys[i] = key;
      ids[i] = id;
    }
    return top;
  }
}

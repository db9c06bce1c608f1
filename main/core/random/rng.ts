/** A small seeded generator (SplitMix32 seeding a xoshiro128**), so every random choice is replayable. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi], inclusive. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  /** k distinct items, in random order. */
  sample<T>(items: readonly T[], k: number): T[];
  /** The generator's internal state, to checkpoint and resume a run exactly. */
  getState(): [number, number, number, number];
  setState(state: readonly number[]): void;
}

export function createRng(seed: number): Rng {
  let x = seed >>> 0;
  const split = (): number => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(),
    b = split(),
    c = split(),
    d = split();
  const nextU32 = (): number => {
    const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result;
  };
  const rng: Rng = {
    next: () => nextU32() / 4294967296,
    int: (lo, hi) => lo + Math.floor(rng.next() * (hi - lo + 1)),
    pick: (items) => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[rng.int(0, items.length - 1)]!;
    },
    sample: (items, k) => {
      const pool = [...items];
      const out: (typeof items)[number][] = [];
      for (let i = 0; i < k && pool.length > 0; i++) out.push(pool.splice(rng.int(0, pool.length - 1), 1)[0]!);
      return out;
    },
    getState: () => [a >>> 0, b >>> 0, c >>> 0, d >>> 0],
    setState: (st) => {
      if (st.length !== 4 || st.some((x) => !Number.isInteger(x) || x < 0 || x > 0xffffffff))
        throw new RangeError('rng state must be four 32-bit unsigned integers');
      [a, b, c, d] = st as [number, number, number, number];
    },
  };
  return rng;
}

function rotl(v: number, k: number): number {
  return ((v << k) | (v >>> (32 - k))) >>> 0;
}

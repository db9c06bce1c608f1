/**
 * The shortest-path engine on its own: distances against Bellman–Ford on random graphs (callback and
 * compressed-row successors, one and many sources), A* with a consistent heuristic, the pop order of
 * a plain lazy-deletion Dijkstra (which fixes the planner's tie-breaking), stop conditions, pruning,
 * reuse of one space across searches, growth, nested searches and cancellation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CHECK_EVERY,
  type EdgeRows,
  EXPAND,
  SKIP,
  STOP,
  ShortestPaths,
  type Successors,
} from '../../../main/core/plan/shortest-path.js';
import { MinHeap } from '../../../main/core/plan/heap.js';

interface Edge {
  readonly from: number;
  readonly to: number;
  readonly w: number;
}

interface Graph {
  readonly n: number;
  readonly edges: readonly Edge[];
}

/** Small directed multigraphs with integer weights (zero included), so sums are exact. */
const graphArb: fc.Arbitrary<Graph> = fc.integer({ min: 1, max: 10 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    edges: fc.array(fc.record({ from: fc.nat(n - 1), to: fc.nat(n - 1), w: fc.nat(9) }), { maxLength: 4 * n }),
  }),
);

/** Out-edges in insertion order; the tag of an edge is its index in `edges`. */
function callbackSuccessors(g: Graph): Successors {
  const out: number[][] = Array.from({ length: g.n }, () => []);
  g.edges.forEach((e, i) => out[e.from]!.push(i));
  return (u, visit) => {
    for (const i of out[u]!) visit(g.edges[i]!.to, g.edges[i]!.w, i);
  };
}

/** The same edges in compressed rows (stable by source), and each row index's edge. */
function rowsOf(g: Graph): { rows: EdgeRows; edgeAt: number[] } {
  const order = g.edges.map((_, i) => i).sort((a, b) => g.edges[a]!.from - g.edges[b]!.from || a - b);
  const start = new Int32Array(g.n + 1);
  for (const e of g.edges) start[e.from + 1]!++;
  for (let v = 0; v < g.n; v++) start[v + 1]! += start[v]!;
  return {
    rows: {
      start,
      to: Int32Array.from(order, (i) => g.edges[i]!.to),
      weight: Float64Array.from(order, (i) => g.edges[i]!.w),
    },
    edgeAt: order,
  };
}

/** Bellman–Ford from sources with initial costs: the reference distances. */
function bellmanFord(g: Graph, sources: readonly (readonly [number, number])[]): number[] {
  const d = new Array<number>(g.n).fill(Infinity);
  for (const [s, c] of sources) d[s] = Math.min(d[s]!, c);
  for (let round = 0; round < g.n; round++) {
    for (const e of g.edges) if (d[e.from]! + e.w < d[e.to]!) d[e.to] = d[e.from]! + e.w;
  }
  return d;
}

/** Distances to `targets` (reverse Bellman–Ford): an exact, hence consistent, heuristic. */
function distancesToTargets(g: Graph, targets: readonly number[]): number[] {
  const rev: Graph = { n: g.n, edges: g.edges.map((e) => ({ from: e.to, to: e.from, w: e.w })) };
  return bellmanFord(
    rev,
    targets.map((t) => [t, 0] as const),
  );
}

function distancesOf(sp: ShortestPaths, n: number): number[] {
  return Array.from({ length: n }, (_, v) => sp.distance(v));
}

const sourcesArb = (n: number): fc.Arbitrary<[number, number][]> =>
  fc.array(fc.tuple(fc.nat(n - 1), fc.nat(5)), { minLength: 1, maxLength: 3 });

const caseArb = graphArb.chain((g) => fc.record({ g: fc.constant(g), sources: sourcesArb(g.n) }));

test('Dijkstra distances equal Bellman–Ford, with callback and with row successors, from one or many sources (500 graphs)', () => {
  fc.assert(
    fc.property(caseArb, ({ g, sources }) => {
      const expected = bellmanFord(g, sources);
      for (const successors of [callbackSuccessors(g), rowsOf(g).rows]) {
        const sp = new ShortestPaths(g.n);
        sp.start({ successors });
        for (const [s, c] of sources) sp.source(s, c);
        const expanded = sp.run();
        assert.deepEqual(distancesOf(sp, g.n), expected);
        // Every reachable node is expanded exactly once.
        assert.equal(expanded, expected.filter((d) => d < Infinity).length);
        assert.deepEqual(Array.from(sp.distances(g.n + 2)), [...expected, Infinity, Infinity]);
      }
    }),
    { seed: 1, numRuns: 500 },
  );
});

test('predecessors and tags spell a path of exactly the reported cost (300 graphs)', () => {
  fc.assert(
    fc.property(caseArb, ({ g, sources }) => {
      const { rows, edgeAt } = rowsOf(g);
      for (const [successors, edgeOf] of [
        [callbackSuccessors(g), (t: number) => t],
        [rows, (t: number) => edgeAt[t]!],
      ] as const) {
        const sp = new ShortestPaths(g.n);
        sp.start({ successors });
        sources.forEach(([s, c], i) => sp.source(s, c, -1, -(i + 2)));
        sp.run();
        for (let v = 0; v < g.n; v++) {
          if (!sp.reached(v)) continue;
          let cost = 0;
          let x = v;
          for (let steps = 0; sp.predecessor(x) !== -1; steps++) {
            assert.ok(steps <= g.n, 'the predecessor chain has no cycle');
            const e = g.edges[edgeOf(sp.tag(x))]!;
            assert.equal(e.to, x);
            assert.equal(e.from, sp.predecessor(x));
            cost += e.w;
            x = sp.predecessor(x);
          }
          // The chain ends at a source, whose own tag was kept.
          const k = -sp.tag(x) - 2;
          assert.equal(sources[k]![0], x);
          assert.equal(cost + sources[k]![1], sp.distance(v));
        }
      }
    }),
    { seed: 2, numRuns: 300 },
  );
});

test('A* with a consistent heuristic settles every node at its Dijkstra distance, pops in key order, and stops at the target with its distance (500 graphs)', () => {
  fc.assert(
    fc.property(caseArb, fc.nat(9), fc.constantFrom(0, 0.5, 1), ({ g, sources }, t, scale) => {
      const target = t % g.n;
      const exact = bellmanFord(g, sources);
      // A scaled exact distance-to-target is consistent: h(u) ≤ w(u, v) + h(v). Where the target is
      // unreachable it is Infinity, which drops those nodes unless they are sources.
      const toTarget = distancesToTargets(g, [target]);
      const h = (v: number): number => (toTarget[v] === Infinity ? Infinity : scale * toTarget[v]!);
      const sp = new ShortestPaths(g.n);
      const keys: number[] = [];
      sp.start({
        successors: callbackSuccessors(g),
        heuristic: h,
        onPop: (u, gu, f) => {
          // Nodes that cannot reach the target (h = Infinity) are only ever sources, at their own cost.
          if (h(u) < Infinity) assert.equal(gu, exact[u], `node ${u} settled at its least cost`);
          assert.equal(f, gu + h(u));
          keys.push(f);
          return EXPAND;
        },
      });
      for (const [s, c] of sources) sp.source(s, c);
      sp.run();
      assert.deepEqual(
        keys,
        [...keys].sort((a, b) => a - b),
      );
      for (let v = 0; v < g.n; v++)
        if (toTarget[v]! < Infinity && sp.reached(v)) assert.equal(sp.distance(v), exact[v]);
      // Stopping when the target is popped: its cost is the true distance.
      const stop = new ShortestPaths(g.n);
      stop.start({ successors: callbackSuccessors(g), heuristic: h, onPop: (u) => (u === target ? STOP : EXPAND) });
      for (const [s, c] of sources) stop.source(s, c);
      stop.run();
      assert.equal(stop.settled(target) ? stop.distance(target) : Infinity, exact[target]);
    }),
    { seed: 3, numRuns: 500 },
  );
});

/** The loop every search of the planner was before the engine: lazy deletion, `<` relaxations. */
function plainDijkstraPops(g: Graph, sources: readonly (readonly [number, number])[]): number[] {
  const dist = new Array<number>(g.n).fill(Infinity);
  const heap = new MinHeap(4);
  for (const [s, c] of sources) {
    if (c < dist[s]!) {
      dist[s] = c;
      heap.push(c, s);
    }
  }
  const pops: number[] = [];
  const succ = callbackSuccessors(g);
  while (heap.size > 0) {
    const d = heap.peekKey();
    const u = heap.pop();
    if (d > dist[u]!) continue;
    pops.push(u);
    succ(u, (v, w) => {
      if (d + w < dist[v]!) {
        dist[v] = d + w;
        heap.push(d + w, v);
      }
    });
  }
  return pops;
}

test('equal-cost nodes are popped in the order of a plain lazy-deletion Dijkstra over the same heap (500 graphs)', () => {
  // Zero and equal weights make ties common; the order is what keeps the planner's plans unchanged.
  const tieArb = graphArb.map((g) => ({ ...g, edges: g.edges.map((e) => ({ ...e, w: e.w % 3 })) }));
  fc.assert(
    fc.property(
      tieArb.chain((g) => fc.record({ g: fc.constant(g), sources: sourcesArb(g.n) })),
      ({ g, sources }) => {
        const pops: number[] = [];
        const sp = new ShortestPaths(g.n);
        sp.start({
          successors: callbackSuccessors(g),
          onPop: (u) => {
            pops.push(u);
            return EXPAND;
          },
        });
        for (const [s, c] of sources) sp.source(s, c);
        sp.run();
        assert.deepEqual(pops, plainDijkstraPops(g, sources));
      },
    ),
    { seed: 4, numRuns: 500 },
  );
});

test('stop conditions: STOP after K pops settles the K cheapest nodes; a bound keeps exactly the nodes below it (500 graphs)', () => {
  fc.assert(
    fc.property(caseArb, fc.integer({ min: 1, max: 12 }), fc.nat(20), ({ g, sources }, k, bound) => {
      const exact = bellmanFord(g, sources);
      const reachable = exact.filter((d) => d < Infinity).sort((a, b) => a - b);
      const sp = new ShortestPaths(g.n);
      const popped: number[] = [];
      sp.start({
        successors: callbackSuccessors(g),
        onPop: (u, gu) => {
          popped.push(gu);
          return popped.length >= k ? STOP : EXPAND;
        },
      });
      for (const [s, c] of sources) sp.source(s, c);
      const expanded = sp.run();
      assert.deepEqual(popped, reachable.slice(0, k));
      assert.equal(expanded, Math.min(k - 1, reachable.length));
      assert.equal(
        Array.from({ length: g.n }, (_, v) => sp.settled(v)).filter(Boolean).length,
        Math.min(k, reachable.length),
      );

      // A bound drops relaxations whose key reaches it: nodes closer than the bound keep their
      // distance (every node on their shortest path is closer still); the others are unreached,
      // except sources, which keep their own cost whatever it is.
      const bounded = new ShortestPaths(g.n);
      bounded.start({ successors: callbackSuccessors(g), bound });
      for (const [s, c] of sources) bounded.source(s, c);
      bounded.run();
      for (let v = 0; v < g.n; v++) {
        const own = Math.min(...sources.filter(([s]) => s === v).map(([, c]) => c));
        assert.equal(bounded.distance(v), exact[v]! < bound ? exact[v] : own, `node ${v}, bound ${bound}`);
      }
    }),
    { seed: 5, numRuns: 500 },
  );
});

test('SKIP settles a node without expanding it; the key bound prunes on concrete values', () => {
  // 0 → 1 (1), 0 → 2 (4), 1 → 3 (1), 2 → 3 (1), 3 → 4 (5)
  const g: Graph = {
    n: 5,
    edges: [
      { from: 0, to: 1, w: 1 },
      { from: 0, to: 2, w: 4 },
      { from: 1, to: 3, w: 1 },
      { from: 2, to: 3, w: 1 },
      { from: 3, to: 4, w: 5 },
    ],
  };
  const sp = new ShortestPaths(5);
  sp.start({ successors: callbackSuccessors(g), onPop: (u) => (u === 1 ? SKIP : EXPAND) });
  sp.source(0, 0);
  assert.equal(sp.run(), 4);
  assert.deepEqual(distancesOf(sp, 5), [0, 1, 4, 5, 10]);
  assert.equal(sp.settled(1), true);
  assert.equal(sp.predecessor(3), 2);

  sp.start({ successors: callbackSuccessors(g), bound: 5 });
  sp.source(0, 0);
  assert.equal(sp.run(), 4);
  assert.deepEqual(distancesOf(sp, 5), [0, 1, 4, 2, Infinity]);
});

test('one space reused across many searches (epochs), and one grown from size 1, give the fresh-space results (200 sequences)', () => {
  fc.assert(
    fc.property(fc.array(caseArb, { minLength: 1, maxLength: 8 }), (cases) => {
      const reused = new ShortestPaths(10);
      const grown = new ShortestPaths(1);
      for (const { g, sources } of cases) {
        const fresh = new ShortestPaths(g.n);
        const pops = new Map<ShortestPaths, number[]>();
        for (const sp of [fresh, reused, grown]) {
          const order: number[] = [];
          pops.set(sp, order);
          sp.start({
            successors: callbackSuccessors(g),
            onPop: (u) => {
              order.push(u);
              return EXPAND;
            },
          });
          for (const [s, c] of sources) sp.source(s, c);
          sp.run();
        }
        assert.deepEqual(distancesOf(reused, g.n), distancesOf(fresh, g.n));
        assert.deepEqual(distancesOf(grown, g.n), distancesOf(fresh, g.n));
        assert.deepEqual(pops.get(reused), pops.get(fresh));
        assert.deepEqual(pops.get(grown), pops.get(fresh));
        for (let v = 0; v < 10; v++) assert.equal(reused.reached(v), fresh.reached(v) && v < g.n);
      }
    }),
    { seed: 6, numRuns: 200 },
  );
});

test('relaxFrom seeds a search for the cheapest cycle back to a node', () => {
  // 0 → 1 (2), 1 → 0 (3), 0 → 2 (1), 2 → 3 (1), 3 → 0 (1): the cheapest return to 0 costs 3 via 2, 3.
  const g: Graph = {
    n: 4,
    edges: [
      { from: 0, to: 1, w: 2 },
      { from: 1, to: 0, w: 3 },
      { from: 0, to: 2, w: 1 },
      { from: 2, to: 3, w: 1 },
      { from: 3, to: 0, w: 1 },
    ],
  };
  const sp = new ShortestPaths(4);
  sp.start({ successors: callbackSuccessors(g), onPop: (u) => (u === 0 ? STOP : EXPAND) });
  sp.relaxFrom(0, 0);
  // Expanded: 2 (cost 1), then 1 and 3 (cost 2, in push order), then 0 is popped at 3.
  assert.equal(sp.run(), 3);
  assert.equal(sp.distance(0), 3);
  assert.deepEqual([sp.predecessor(0), sp.predecessor(3), sp.predecessor(2)], [3, 2, 0]);
  assert.deepEqual([sp.tag(0), sp.tag(3), sp.tag(2)], [4, 3, 2]);
  // A bound below the cycle's cost finds none.
  sp.start({ successors: callbackSuccessors(g), bound: 3, onPop: (u) => (u === 0 ? STOP : EXPAND) });
  sp.relaxFrom(0, 0);
  sp.run();
  assert.equal(sp.settled(0), false);
});

test("a search run from inside another search's callbacks leaves the outer one intact (200 graphs)", () => {
  fc.assert(
    fc.property(caseArb, ({ g, sources }) => {
      const expected = bellmanFord(g, sources);
      const inner = new ShortestPaths(g.n);
      const succ = callbackSuccessors(g);
      // The heuristic and the successor enumeration each run a whole search on another space.
      const nested = (): void => {
        inner.start({ successors: succ });
        inner.source(0, 0);
        inner.run();
      };
      const outer = new ShortestPaths(g.n);
      outer.start({
        successors: (u, visit) =>
          succ(u, (v, w, tag) => {
            nested();
            visit(v, w, tag);
          }),
        heuristic: () => {
          nested();
          return 0;
        },
      });
      for (const [s, c] of sources) outer.source(s, c);
      outer.run();
      assert.deepEqual(distancesOf(outer, g.n), expected);
    }),
    { seed: 7, numRuns: 200 },
  );
});

/** A path 0 → 1 → … → n−1 of unit edges. */
const path = (n: number): Graph => ({
  n,
  edges: Array.from({ length: n - 1 }, (_, i) => ({ from: i, to: i + 1, w: 1 })),
});

test('check() runs once per CHECK_EVERY expansions, counted over the searches of one space, and its error propagates', () => {
  const g = path(10_000);
  const sp = new ShortestPaths(g.n);
  let calls = 0;
  const search = {
    successors: callbackSuccessors(g),
    check: (): void => {
      calls++;
    },
  };
  sp.start(search);
  sp.source(0, 0);
  assert.equal(sp.run(), 10_000);
  assert.equal(calls, Math.floor(10_000 / CHECK_EVERY));
  // 10 000 more expansions on the same space: the count carries over (20 000 / 4096 = 4 calls in all).
  sp.start(search);
  sp.source(0, 0);
  sp.run();
  assert.equal(calls, 4);
  // Many small searches are checked too.
  const small = path(100);
  const sp2 = new ShortestPaths(small.n);
  let smallCalls = 0;
  for (let i = 0; i < 100; i++) {
    sp2.start({
      successors: callbackSuccessors(small),
      check: () => {
        smallCalls++;
      },
    });
    sp2.source(0, 0);
    sp2.run();
  }
  assert.equal(smallCalls, Math.floor(10_000 / CHECK_EVERY));

  const cancelled = new Error('cancelled');
  const sp3 = new ShortestPaths(g.n);
  let popped = 0;
  sp3.start({
    successors: callbackSuccessors(g),
    onPop: () => {
      popped++;
      return EXPAND;
    },
    check: () => {
      throw cancelled;
    },
  });
  sp3.source(0, 0);
  assert.throws(
    () => sp3.run(),
    (e) => e === cancelled,
  );
  assert.equal(popped, CHECK_EVERY);
  // The space stays usable after a cancelled search.
  sp3.start({ successors: callbackSuccessors(g) });
  sp3.source(5, 0);
  assert.equal(sp3.run(), 10_000 - 5);
  assert.equal(sp3.distance(9_999), 9_994);
});

test('sources: the cheaper of two is kept, an infinite heuristic does not drop them, and misuse is refused', () => {
  const g: Graph = {
    n: 3,
    edges: [
      { from: 0, to: 1, w: 1 },
      { from: 1, to: 2, w: 1 },
    ],
  };
  const sp = new ShortestPaths(3);
  assert.throws(() => sp.source(0, 0), /start\(\) a search/);
  sp.start({ successors: callbackSuccessors(g), heuristic: (v) => (v === 0 ? Infinity : 0) });
  sp.source(0, 5);
  sp.source(0, 2);
  sp.source(0, 7);
  assert.equal(sp.distance(0), 2);
  // Node 0's key is infinite, but as a source it is still popped and expanded.
  assert.equal(sp.run(), 3);
  assert.deepEqual(distancesOf(sp, 3), [2, 3, 4]);
  assert.throws(() => sp.source(-1, 0), RangeError);
});

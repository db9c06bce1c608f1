/**
 * The automaton view's pure geometry (renderer/src/graph/automaton-layout.ts): the state order,
 * free directions, edge paths, and label placement that keeps every label on its own edge, clear
 * of the states and of every other label — on random scenes and on automata of shipped specs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  type AutomatonGeometry,
  type Box,
  type LabelToPlace,
  type Point,
  type ShapeEdge,
  type ShapeState,
  arrange,
  bestArrangement,
  boxAt,
  candidates,
  clockAngle,
  edgePath,
  fitZoom,
  freeDirection,
  guardText,
  overlaps,
  pathAt,
  placeLabels,
  stateOrder,
  statesFit,
} from '../../renderer/src/graph/automaton-layout.js';
import { automatonViewOf } from '../../main/app/plan.js';

const G: AutomatonGeometry = {
  stateRadius: 18,
  spacing: 90,
  minRadius: 55,
  pairDistance: 18,
  loopDistance: 26,
  loopSweep: (-50 * Math.PI) / 180,
  entryLength: 22,
  edgeHalfAngle: (22 * Math.PI) / 180,
};
const close = (a: number, b: number, eps = 1e-9): boolean => Math.abs(a - b) <= eps;

/** A path passes through a box: some point along it (finely sampled) lies inside. */
function onPath(path: Point[], b: Box): boolean {
  for (let k = 0; k <= 400; k++) {
    const p = pathAt(path, k / 400).at;
    if (p.x >= b.x1 && p.x <= b.x2 && p.y >= b.y1 && p.y <= b.y2) return true;
  }
  return false;
}

test('stateOrder: breadth-first from the initial states, successors by id, unreached states last', () => {
  const states = [0, 1, 2, 3, 4].map((id) => ({ id, initial: id === 2 }));
  const edges = [
    { from: 2, to: 3 },
    { from: 2, to: 0 },
    { from: 0, to: 0 },
    { from: 3, to: 0 },
    { from: 1, to: 2 },
  ];
  assert.deepEqual(stateOrder(states, edges), [2, 0, 3, 1, 4]);
  assert.deepEqual(stateOrder([], []), []);
});

test('freeDirection: the middle of the widest gap; nothing taken gives the fallback', () => {
  assert.equal(freeDirection([], 0.1, 1.25), 1.25);
  // Edges to the right (π/2) and down (π): the widest room is up-left, at 7π/4 (as -π/4).
  assert.ok(close(freeDirection([Math.PI / 2, Math.PI], 0.2, 0), -Math.PI / 4));
  // One edge: the loop goes the opposite way.
  assert.ok(close(Math.abs(freeDirection([0], 0.3, 0)), Math.PI));
  assert.ok(
    close(clockAngle({ x: 0, y: 0 }, { x: 1, y: 0 }), Math.PI / 2),
    "clock angles run clockwise from 12 o'clock",
  );
});

test('edgePath and pathAt: a straight edge, a bowed one, a loop through the middle of its control points', () => {
  const a = { x: 0, y: 0 },
    b = { x: 10, y: 0 };
  assert.deepEqual(pathAt(edgePath(a, [], b), 0.5).at, { x: 5, y: 0 });
  const bowed = edgePath(a, [{ x: 5, y: 10 }], b);
  assert.deepEqual(pathAt(bowed, 0.5).at, { x: 5, y: 5 });
  assert.deepEqual(pathAt(bowed, 0).at, a);
  assert.deepEqual(pathAt(bowed, 1).at, b);
  const loop = edgePath(
    a,
    [
      { x: -4, y: -10 },
      { x: 4, y: -10 },
    ],
    { x: 1, y: 0 },
  );
  assert.deepEqual(pathAt(loop, 0.5).at, { x: 0, y: -10 });
  assert.equal(guardText('a & b | !c'), 'a & b |\n!c');
  assert.equal(guardText('true'), 'true');
});

test('candidates: every place keeps the label on its own edge', () => {
  const l: LabelToPlace = {
    id: 'x',
    path: edgePath({ x: 0, y: 0 }, [{ x: 40, y: 30 }], { x: 100, y: 10 }),
    w: 50,
    h: 14,
  };
  for (const c of candidates(l)) assert.ok(onPath(l.path, boxAt(c, l.w, l.h)), JSON.stringify(c));
  const loop: LabelToPlace = {
    id: 'l',
    path: edgePath(
      { x: -5, y: -18 },
      [
        { x: -15, y: -33 },
        { x: 15, y: -33 },
      ],
      { x: 5, y: -18 },
    ),
    w: 30,
    h: 14,
    loop: { outward: { x: 0, y: -1 } },
  };
  for (const c of candidates(loop)) assert.ok(onPath(loop.path, boxAt(c, loop.w, loop.h)), JSON.stringify(c));
});

test('placeLabels: on random scenes, labels placed are apart, clear of the obstacles and on their edges; or none at all', () => {
  const point = fc.record({ x: fc.integer({ min: 0, max: 400 }), y: fc.integer({ min: 0, max: 400 }) });
  const label = fc.record({
    a: point,
    b: point,
    bend: fc.integer({ min: -40, max: 40 }),
    w: fc.integer({ min: 8, max: 120 }),
    h: fc.integer({ min: 8, max: 40 }),
  });
  const obstacle = point.map((p): Box => ({ x1: p.x - 18, y1: p.y - 18, x2: p.x + 18, y2: p.y + 18 }));
  let placedScenes = 0;
  fc.assert(
    fc.property(
      fc.array(label, { minLength: 1, maxLength: 25 }),
      fc.array(obstacle, { maxLength: 8 }),
      (ls, obstacles) => {
        const labels: LabelToPlace[] = ls.map((l, i) => {
          const mid = { x: (l.a.x + l.b.x) / 2, y: (l.a.y + l.b.y) / 2 + l.bend };
          return {
            id: `e${i}`,
            path: l.bend === 0 ? edgePath(l.a, [], l.b) : edgePath(l.a, [mid], l.b),
            w: l.w,
            h: l.h,
          };
        });
        const placed = placeLabels(labels, obstacles, 1);
        if (placed === null) return;
        placedScenes++;
        assert.equal(placed.size, labels.length);
        const boxes = labels.map((l) => boxAt(placed.get(l.id)!, l.w, l.h));
        boxes.forEach((b, i) => {
          for (const o of obstacles) assert.ok(!overlaps(b, o), `label ${i} overlaps an obstacle`);
          for (const c of boxes.slice(i + 1)) assert.ok(!overlaps(b, c), `label ${i} overlaps another`);
          assert.ok(onPath(labels[i]!.path, b), `label ${i} is off its edge`);
        });
      },
    ),
    { seed: 17, numRuns: 300 },
  );
  assert.ok(placedScenes > 100, `only ${placedScenes} of 300 scenes placed`);
});

test('placeLabels: a label with no free place gives null; one label in the way moves aside', () => {
  // A short edge between two obstacles that cover it: no place for its label.
  const boxed = placeLabels(
    [{ id: 'a', path: edgePath({ x: 0, y: 0 }, [], { x: 30, y: 0 }), w: 20, h: 10 }],
    [{ x1: -20, y1: -30, x2: 50, y2: 30 }],
  );
  assert.equal(boxed, null);
  // Two crossing edges: `a` (shorter) goes first, to the middle, which is the only place between
  // the two states at `b`'s ends for `b`'s label; `a` then moves along its edge to make room.
  const a: LabelToPlace = { id: 'a', path: edgePath({ x: 20, y: 0 }, [], { x: 80, y: 0 }), w: 10, h: 10 };
  const b: LabelToPlace = { id: 'b', path: edgePath({ x: 50, y: -40 }, [], { x: 50, y: 40 }), w: 16, h: 14 };
  const states: Box[] = [
    { x1: 28, y1: -57, x2: 72, y2: -13 },
    { x1: 28, y1: 13, x2: 72, y2: 57 },
  ];
  assert.deepEqual(placeLabels([a], states)?.get('a'), { x: 50, y: 0 }, 'alone, a takes the middle');
  const placed = placeLabels([a, b], states);
  assert.ok(placed !== null);
  const ba = boxAt(placed.get('a')!, a.w, a.h),
    bb = boxAt(placed.get('b')!, b.w, b.h);
  assert.ok(!overlaps(ba, bb) && onPath(a.path, ba) && onPath(b.path, bb));
  assert.equal(placed.get('b')!.y, 0);
  assert.notEqual(placed.get('a')!.x, 50, 'a moved aside');
});

/** Guard labels about as Chromium measures them at 11 px (6.1 px a character, stacked disjunctions). */
function shape(spec: string): { states: ShapeState[]; edges: ShapeEdge[] } {
  const a = automatonViewOf(spec);
  return {
    states: a.states.map((s) => ({ id: s.id, initial: s.initial, half: s.accepting ? 20 : 18 })),
    edges: a.edges.map((e, k) => {
      const lines = guardText(e.guard).split('\n');
      return {
        id: `t${k}`,
        from: e.from,
        to: e.to,
        w: 10 + 6.1 * Math.max(...lines.map((l) => l.length)),
        h: 8 + 12 * lines.length,
      };
    }),
  };
}

test("arrange: the README's automaton — labels apart and off the states, loops and entry arrows outside their states, the same every time", () => {
  const { states, edges } = shape('F e2 & G F e1 & G F e4 & G !e0');
  const pane = { width: 360, height: 340, pad: 12, maxZoom: 1.5 };
  const best = bestArrangement(states, edges, G, pane, 0.8);
  assert.ok(best !== null, 'the guards fit at 0.8');
  const { arrangement: r, zoom } = best;
  assert.ok(zoom >= 0.8 && close(zoom, fitZoom(r.bounds, 360, 340, 12, 1.5)));
  const stateBoxes = states.map((s) => ({
    ...s,
    box: {
      x1: r.positions.get(s.id)!.x - s.half,
      y1: r.positions.get(s.id)!.y - s.half,
      x2: r.positions.get(s.id)!.x + s.half,
      y2: r.positions.get(s.id)!.y + s.half,
    },
  }));
  const labels = edges.map((e) => ({ e, box: boxAt(r.edges.get(e.id)!.label, e.w, e.h) }));
  labels.forEach(({ e, box }, i) => {
    for (const s of stateBoxes) assert.ok(!overlaps(box, s.box), `${e.id} overlaps q${s.id}`);
    for (const o of labels.slice(i + 1)) assert.ok(!overlaps(box, o.box), `${e.id} overlaps ${o.e.id}`);
    assert.ok(onPath(r.edges.get(e.id)!.path, box), `${e.id} is off its edge`);
    assert.ok(
      box.x1 >= r.bounds.x1 && box.x2 <= r.bounds.x2 && box.y1 >= r.bounds.y1 && box.y2 <= r.bounds.y2,
      `${e.id} is outside the bounds`,
    );
    // Opposite edges bow apart; other edges run straight; loops have their direction.
    const back = edges.some((f) => f.from === e.to && f.to === e.from);
    assert.equal(r.edges.get(e.id)!.controlDistance, e.from === e.to ? G.loopDistance : back ? G.pairDistance : 0);
    assert.equal(r.edges.get(e.id)!.loopDirection !== undefined, e.from === e.to);
  });
  const q0 = r.positions.get(0)!,
    entry = r.entries.get(0)!;
  assert.ok(close(Math.hypot(entry.x - q0.x, entry.y - q0.y), G.stateRadius + G.entryLength, 1e-6));
  assert.deepEqual([...r.entries.keys()], [0]);
  assert.deepEqual(bestArrangement(states, edges, G, pane, 0.8), best, 'deterministic');
});

test('bestArrangement: larger shipped automata fit with small labels, and a pane too small for the states gives null', () => {
  for (const spec of [
    'G(e1 -> F e2) & G F e3 & G !e0',
    'G F (e1 & F (e2 & F e3))',
    'G !e6 & (!e4 U (e1 | e2)) & F e4 & G (F e3 & F e5)',
  ]) {
    const { states, edges } = shape(spec);
    const numbers = edges.map((e) => ({ ...e, w: 22, h: 19 }));
    const best = bestArrangement(states, numbers, G, { width: 300, height: 300, pad: 12, maxZoom: 1.5 }, 0.8);
    assert.ok(best !== null, spec);
    const boxes = numbers.map((e) => boxAt(best.arrangement.edges.get(e.id)!.label, e.w, e.h));
    boxes.forEach((b, i) =>
      boxes.slice(i + 1).forEach((c, j) => assert.ok(!overlaps(b, c), `${spec}: t${i} × t${i + j + 1}`)),
    );
  }
  const { states, edges } = shape('G F (e1 & F (e2 & F e3))');
  const tiny = { width: 80, height: 80, pad: 12, maxZoom: 1.5 };
  assert.equal(statesFit(states, edges, G, tiny, 0.8), false);
  assert.equal(bestArrangement(states, edges, G, tiny, 0.8), null);
  // Without labels everything is placed at any scale.
  assert.ok(
    arrange(
      states,
      edges.map((e) => ({ ...e, w: 0, h: 0 })),
      G,
      1,
    ) !== null,
  );
});

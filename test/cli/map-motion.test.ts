/**
 * Plans on map graphs hold on the motion, through the documented commands: `witness graph from-map`
 * then `witness plan`, each plan driven leg by leg through the independent checker. An open hall with
 * a hazard strip, two rooms joined by one door, and the shipped lab.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodePgm } from '../../main/services/maps/images.js';
import { parseLtl } from '../../main/core/ltl/parser.js';
import { translateFormula } from '../../main/core/ltl/translate.js';
import { acceptsLasso } from '../../main/core/ltl/accept.js';
import type { GraphDocument } from '../../main/contract/formats.js';
import { type CheckRegion, drivenLasso } from '../core/map/motion-checker.js';
import { asset, cli } from './harness.js';

interface PlanDoc {
  status: string;
  prefix: string[];
  suffix: string[];
  reason?: { kind: string; message: string; enters?: { region: string; node: string; at: [number, number] | null }[] };
  explanation?: { conflict: number[]; minimal: boolean; regions: { region: string; why: string; cut?: string[] }[] };
}

/**
 * A 10 m × 6 m floor at 5 cm (origin (0, 0)), free but for the boxes given as [x0, y0, x1, y1] metres, walled all
 * round.
 */
function floor(
  name: string,
  walls: readonly (readonly [number, number, number, number])[],
  regions: readonly CheckRegion[],
): { yaml: string; regions: string; dir: string } {
  const res = 0.05,
    w = 200,
    h = 120,
    g = new Uint8Array(w * h).fill(254);
  const box = (x0: number, y0: number, x1: number, y1: number): void => {
    for (let r = 0; r < h; r++) {
      const y = (h - r - 0.5) * res;
      if (y < y0 || y > y1) continue;
      for (let c = 0; c < w; c++) {
        const x = (c + 0.5) * res;
        if (x >= x0 && x <= x1) g[r * w + c] = 0;
      }
    }
  };
  box(0, 0, 10, 0.1);
  box(0, 5.9, 10, 6);
  box(0, 0, 0.1, 6);
  box(9.9, 0, 10, 6);
  for (const b of walls) box(...b);
  const dir = mkdtempSync(join(tmpdir(), `witness-${name}-`));
  writeFileSync(join(dir, `${name}.pgm`), encodePgm(w, h, g));
  writeFileSync(
    join(dir, `${name}.yaml`),
    `image: ${name}.pgm\nresolution: ${res}\norigin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n`,
  );
  writeFileSync(join(dir, 'regions.json'), JSON.stringify({ world: name, regions }));
  return { yaml: join(dir, `${name}.yaml`), regions: join(dir, 'regions.json'), dir };
}

async function fromMap(
  f: ReturnType<typeof floor>,
  ...extra: string[]
): Promise<{ file: string; doc: GraphDocument; summary: string }> {
  const file = join(f.dir, 'graph.json');
  const r = await cli('graph', 'from-map', f.yaml, '--regions', f.regions, '--out', file, ...extra);
  assert.equal(r.code, 0, r.err);
  return { file, doc: JSON.parse(readFileSync(file, 'utf8')) as GraphDocument, summary: r.out };
}

/** Plans with `witness plan --json` and drives every leg of the plan through the checker. */
async function planAndDrive(
  graph: { file: string; doc: GraphDocument },
  regions: readonly CheckRegion[],
  spec: string,
  method = 'sagas',
): Promise<{ doc: PlanDoc; visited: Set<string> }> {
  const r = await cli('plan', '--graph', graph.file, '--spec', spec, '--method', method, '--json');
  const doc = JSON.parse(r.out) as PlanDoc;
  assert.equal(r.code, doc.status === 'ok' ? 0 : 3, r.err);
  if (doc.status !== 'ok') return { doc, visited: new Set() };
  const pos = new Map(graph.doc.nodes.map((n) => [n.id, [n.pos![0]!, n.pos![1]!] as const]));
  const word = drivenLasso(doc.prefix, doc.suffix, pos, regions, 0.005);
  assert.ok(
    acceptsLasso(translateFormula(parseLtl(spec)).automaton, word),
    `${method} ${spec}: the driven path violates it: ${[...doc.prefix, '|', ...doc.suffix].join(' ')}`,
  );
  return { doc, visited: new Set([...word.prefix, ...word.cycle].flatMap((l) => [...l])) };
}

test('an open hall with a hazard strip: every method plans round it, through the gap at its top, never across it', async () => {
  const regions: CheckRegion[] = [
    { name: 'a', kind: 'disk', center: [1.5, 3], radius: 0.6 },
    { name: 'b', kind: 'disk', center: [8.5, 3], radius: 0.6 },
    { name: 'hazard', kind: 'box', min: [4.6, 0], max: [5.4, 4.8] },
  ];
  const hall = floor('hall', [], regions);
  const g = await fromMap(hall);
  assert.match(g.summary, /\d+ crossing node\(s\) where edges pass through regions/);
  for (const spec of ['G F a & G F b & G !hazard', 'F b & G !hazard', 'F (b & F a) & G !hazard']) {
    for (const method of ['sagas', 'lf-gas', 'ga-gas']) {
      const { doc, visited } = await planAndDrive(g, regions, spec, method);
      assert.equal(doc.status, 'ok', `${method} ${spec}`);
      assert.ok(!visited.has('hazard') && visited.has('b'), `${method} ${spec}`);
    }
  }
  // Allowed to cross, the plan goes straight through the strip, and the crossing is in its word.
  const { visited } = await planAndDrive(g, regions, 'F b');
  assert.ok(visited.has('hazard'));
});

test('two rooms joined by one door: a mission that must cross the forbidden door is infeasible, naming the door and the place', async () => {
  const regions: CheckRegion[] = [
    { name: 'dock', kind: 'disk', center: [2, 3], radius: 0.6 },
    { name: 'shelf', kind: 'box', min: [8, 2], max: [9, 4] },
    { name: 'door', kind: 'box', min: [4.6, 3], max: [5.4, 4] },
  ];
  const rooms = floor(
    'rooms',
    [
      [4.9, 0, 5.1, 3],
      [4.9, 4, 5.1, 6],
    ],
    regions,
  );
  const g = await fromMap(rooms, '--start', '2,3');
  const { doc } = await planAndDrive(g, regions, 'G F shelf & G !door');
  assert.equal(doc.status, 'infeasible');
  const enters = doc.reason!.enters!;
  assert.equal(enters.length, 1);
  assert.equal(enters[0]!.region, 'door');
  const [x, y] = enters[0]!.at!;
  assert.ok(x >= 4.6 && x <= 5.4 && y >= 3 && y <= 4, `the place (${x}, ${y}) is in the doorway`);
  assert.match(
    doc.reason!.message,
    /every plan would have to enter "door" at \([\d.]+, [\d.]+\), node \S+, where the specification forbids it/,
  );
  // the same from the terminal: exit 3 and the reason
  const t = await cli('plan', '--graph', g.file, '--spec', 'G F shelf & G !door');
  assert.equal(t.code, 3);
  assert.match(t.out, /infeasible \(no-accepting-prefix\): .*every plan would have to enter "door" at \(/);
  // why: both conjuncts together, the door forbidden on every path, and the cut that closes it
  assert.deepEqual(doc.explanation?.conflict, [0, 1]);
  assert.equal(doc.explanation?.minimal, true);
  const door = doc.explanation.regions.find((r) => r.why === 'forbidden')!;
  assert.equal(door.region, 'door');
  assert.ok(door.cut!.length > 0 && door.cut!.includes(enters[0]!.node), JSON.stringify(door));
  assert.match(t.out, /why: the conjuncts G F shelf and G !door cannot hold together on this graph/);
  assert.match(t.out, /region "door": every plan would have to enter it.*the cut around the start: /);
  // through the door, the patrol is met and driven as planned
  assert.equal((await planAndDrive(g, regions, 'G F shelf & G F dock')).doc.status, 'ok');
});

test('the shipped lab: edges that pass through the spill or the bench carry them, and no plan drives across the spill', async () => {
  const regions = (JSON.parse(readFileSync(asset('maps/lab-regions.json'), 'utf8')) as { regions: CheckRegion[] })
    .regions;
  const dir = mkdtempSync(join(tmpdir(), 'witness-lab-motion-'));
  const file = join(dir, 'lab.json');
  const r = await cli(
    'graph',
    'from-map',
    asset('maps/lab.yaml'),
    '--regions',
    asset('maps/lab-regions.json'),
    '--out',
    file,
  );
  assert.equal(r.code, 0, r.err);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as GraphDocument;
  const crossing = doc.nodes.filter((n) => n.id.includes('~'));
  assert.ok(crossing.length > 0 && crossing.every((n) => (n.labels ?? []).length > 0));
  for (const spec of [
    'G F shelf & G F bench & G !spill',
    'G F dock & G F bench & G F shelf & G !spill',
    'F shelf & (!spill U bench)',
  ]) {
    for (const method of ['sagas', 'lf-gas', 'ga-gas']) {
      const { doc: p, visited } = await planAndDrive({ file, doc }, regions, spec, method);
      assert.equal(p.status, 'ok', `${method} ${spec}`);
      if (spec.includes('G !spill')) assert.ok(!visited.has('spill'), `${method} ${spec}`);
    }
  }
});

test('witness plan --regions on a hand-written graph: labels checked against the regions, crossings split, a node without a place refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-hand-graph-'));
  const regions: CheckRegion[] = [
    { name: 'wet', kind: 'box', min: [1, -1], max: [2, 1] },
    { name: 'dock', kind: 'disk', center: [4, 0], radius: 0.5 },
  ];
  const regionsFile = join(dir, 'r.json');
  writeFileSync(regionsFile, JSON.stringify({ regions }));
  const write = (name: string, doc: unknown): string => {
    const f = join(dir, name);
    writeFileSync(f, JSON.stringify(doc));
    return f;
  };
  const doc = {
    nodes: [
      { id: 's', pos: [0, 0] },
      { id: 'd', labels: ['dock', 'charger'], pos: [4, 0] },
      { id: 'up', pos: [2, 3] },
    ],
    edges: [
      { from: 's', to: 'd', weight: 4 },
      { from: 's', to: 'up', weight: 4 },
      { from: 'up', to: 'd', weight: 4 },
    ],
    start: 's',
  };
  const file = write('g.json', doc);
  const graph = { file, doc: doc as GraphDocument };
  // Without regions the file is taken as written: the straight edge s–d is planned, across the wet floor.
  const blind = await cli('plan', '--graph', file, '--spec', 'F dock & G !wet', '--json');
  assert.deepEqual((JSON.parse(blind.out) as PlanDoc).prefix, ['s', 'd']);
  // With them, the edge carries the wet floor: the plan goes round by `up`, and its legs keep off it.
  const r = await cli('plan', '--graph', file, '--regions', regionsFile, '--spec', 'F dock & G !wet', '--json');
  assert.equal(r.code, 0, r.err);
  const p = JSON.parse(r.out) as PlanDoc;
  assert.deepEqual(p.prefix, ['s', 'up', 'd']);
  const pos = new Map(graph.doc.nodes.map((n) => [n.id, [n.pos![0]!, n.pos![1]!] as const]));
  assert.ok(
    acceptsLasso(
      translateFormula(parseLtl('F dock & G !wet')).automaton,
      drivenLasso(p.prefix, p.suffix, pos, regions, 0.005),
    ),
  );
  // Crossing the wet floor is planned through its crossing node when the spec allows it.
  const through = JSON.parse(
    (await cli('plan', '--graph', file, '--regions', regionsFile, '--spec', 'F (wet & F dock)', '--json')).out,
  ) as PlanDoc;
  // (on s–d: the wet floor, then bare floor, then the dock's disk: two crossing nodes)
  assert.deepEqual(through.prefix, ['s', 's~d#1', 's~d#2', 'd']);
  // A label the regions contradict, and a node with no place: exit 2, naming the node.
  const wrong = write('wrong.json', {
    ...doc,
    nodes: [{ id: 's', labels: ['wet'], pos: [0, 0] }, ...doc.nodes.slice(1)],
  });
  const w = await cli('plan', '--graph', wrong, '--regions', regionsFile, '--spec', 'F dock');
  assert.equal(w.code, 2);
  assert.match(w.err, /wrong\.json: node "s" at \(0, 0\) is labelled \{wet\}, but the regions put it in \{\}/);
  const unplaced = write('unplaced.json', { ...doc, nodes: [...doc.nodes, { id: 'x' }] });
  const u = await cli('plan', '--graph', unplaced, '--regions', regionsFile, '--spec', 'F dock');
  assert.equal(u.code, 2);
  assert.match(u.err, /unplaced\.json: node "x" has no position \("pos"\)/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planLabelledGraph } from '../../main/app/plan.js';
import { readMap } from '../../main/services/maps/read.js';
import { distanceField, pointClearance } from '../../main/core/map/clearance.js';
import { FREE, type OccupancyGrid, cellAt } from '../../main/core/map/occupancy.js';
import { encodePgm } from '../../main/services/maps/images.js';
import { parseLtl } from '../../main/core/ltl/parser.js';
import { evaluateLasso } from '../../main/core/ltl/lasso.js';
import type { GraphDocument } from '../../main/contract/formats.js';
import { cli, asset } from './harness.js';

const LAB = asset('maps/lab.yaml'),
  LAB_REGIONS = asset('maps/lab-regions.json');

interface PlanDoc {
  status: string;
  prefix: string[];
  suffix: string[];
  cost: { objective: number };
  certificate: { suffixStart: number; steps: { node: string; letter: string[] }[] };
}

/**
 * Every point of the segment (sampled at 1/8 cell) is in a free cell and at least `clearance` from blocked cell
 * centres.
 */
function segmentOk(
  g: OccupancyGrid,
  d2: Float64Array,
  a: readonly number[],
  b: readonly number[],
  clearance: number,
): boolean {
  const n = Math.ceil(Math.hypot(b[0]! - a[0]!, b[1]! - a[1]!) / (g.resolution / 8)) + 1;
  for (let i = 0; i <= n; i++) {
    const x = a[0]! + ((b[0]! - a[0]!) * i) / n,
      y = a[1]! + ((b[1]! - a[1]!) * i) / n;
    const c = cellAt(g, x, y);
    if (c === null || g.cells[c.row * g.width + c.col] !== FREE || pointClearance(g, d2, x, y) < clearance - 1e-9)
      return false;
  }
  return true;
}

test('the shipped lab map: graph from-map, then witness plan plans on it as on any labelled graph, collision-free', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-frommap-'));
  const out = join(dir, 'lab.json');
  const r = await cli('graph', 'from-map', LAB, '--regions', LAB_REGIONS, '--out', out, '--spacing', '0.5');
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /^wrote .*lab\.json: \d+ nodes, \d+ edges, \d+ lattice component\(s\).*start n_\d+_\d+ at \(.*\) \(the node nearest the map origin \(0, 0\)\); nodes per label: dock \d+, bench \d+, shelf \d+, spill \d+.*; \d+\.\d\d s\n$/,
  );
  const doc = JSON.parse(readFileSync(out, 'utf8')) as GraphDocument;
  assert.equal(doc.name, 'lab');
  assert.match(doc.description!, /lab\.yaml \(resolution 0\.05 m\): lattice spacing 0\.5 m, clearance 0\.25 m/);
  assert.equal(doc.directed, false);
  const map = await readMap(LAB);
  const d2 = distanceField(map.grid);
  const pos = new Map(doc.nodes.map((n) => [n.id, n.pos!]));
  for (const e of doc.edges!) {
    assert.ok(segmentOk(map.grid, d2, pos.get(e.from)!, pos.get(e.to)!, 0.25), `${e.from}–${e.to}`);
    assert.ok(
      Math.abs(
        e.weight! - Math.hypot(pos.get(e.from)![0]! - pos.get(e.to)![0]!, pos.get(e.from)![1]! - pos.get(e.to)![1]!),
      ) < 1e-12,
    );
  }
  for (const label of ['dock', 'bench', 'shelf', 'spill'])
    assert.ok(
      doc.nodes.some((n) => n.labels?.includes(label)),
      label,
    );
  const spec = 'G F dock & G F bench & G F shelf & G !spill';
  const p = await cli('plan', '--graph', out, '--spec', spec, '--json');
  assert.equal(p.code, 0, p.err);
  const plan = JSON.parse(p.out) as PlanDoc;
  assert.equal(plan.status, 'ok');
  // exactly the plan of the same graph handed to the planner as a document (the API's planGraph)
  const api = planLabelledGraph({ graph: doc, spec });
  assert.ok(api.ok);
  const same = api.plan as unknown as PlanDoc;
  assert.deepEqual([same.prefix, same.suffix, same.cost], [plan.prefix, plan.suffix, plan.cost]);
  // the word satisfies the formula, the spill is never entered, and consecutive steps are clear segments
  const letters = plan.certificate.steps.map((s) => new Set(s.letter));
  assert.equal(
    evaluateLasso(parseLtl(spec), {
      prefix: letters.slice(0, plan.certificate.suffixStart),
      cycle: letters.slice(plan.certificate.suffixStart),
    }),
    true,
  );
  const path = [...plan.prefix, ...plan.suffix];
  for (let i = 1; i < path.length; i++)
    if (path[i] !== path[i - 1]) assert.ok(segmentOk(map.grid, d2, pos.get(path[i - 1]!)!, pos.get(path[i]!)!, 0.25));
  assert.ok(path.every((id) => !doc.nodes.find((n) => n.id === id)!.labels?.includes('spill')));
  // the default spacing and a given start
  const s = await cli('graph', 'from-map', LAB, '--regions', LAB_REGIONS, '--out', out, '--start', '1.5,0.5');
  assert.equal(s.code, 0, s.err);
  assert.match(s.out, /start start at \(1\.5, 0\.5\);/);
  assert.equal((JSON.parse(readFileSync(out, 'utf8')) as GraphDocument).start, 'start');
  assert.equal((await cli('plan', '--graph', out, '--spec', 'F shelf & F bench')).code, 0);
});

/** A copy of the lab map in a fresh folder, with the YAML (and optionally the image) replaced. */
function labCopy(
  yamlEdit?: (t: string) => string,
  image?: Uint8Array,
): { dir: string; yaml: string; regions: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'witness-frommap-bad-'));
  const yaml = join(dir, 'lab.yaml'),
    regions = join(dir, 'lab-regions.json');
  const text = readFileSync(LAB, 'utf8');
  writeFileSync(yaml, yamlEdit ? yamlEdit(text) : text);
  if (image) writeFileSync(join(dir, 'lab.pgm'), image);
  else copyFileSync(asset('maps/lab.pgm'), join(dir, 'lab.pgm'));
  copyFileSync(LAB_REGIONS, regions);
  return { dir, yaml, regions, out: join(dir, 'out.json') };
}

async function refused(
  c: { dir: string; yaml: string; regions: string; out: string },
  extra: string[],
  message: RegExp,
): Promise<void> {
  const r = await cli('graph', 'from-map', c.yaml, '--regions', c.regions, '--out', c.out, ...extra);
  assert.equal(r.code, 2, `${r.out}${r.err}`);
  assert.match(r.err, message);
  assert.equal(r.out, '');
  assert.ok(!existsSync(c.out), 'no output file');
  assert.deepEqual(
    readdirSync(c.dir).filter((f) => f.startsWith('.')),
    [],
    'no temporary left',
  );
}

test('graph from-map: bad maps exit 2 naming the file and the field, and write nothing', async () => {
  const lab = readFileSync(asset('maps/lab.pgm'));
  const cases: [Parameters<typeof labCopy>, RegExp][] = [
    [
      [(t) => t.replace('occupied_thresh: 0.65', 'occupied_thresh: 1.5')],
      /^error: \S*lab\.yaml: occupied_thresh: must be in \[0, 1\], got 1\.5 \(line 6\)\n$/,
    ],
    [
      [(t) => t.replace('free_thresh: 0.196', 'free_thresh: 0.9')],
      /lab\.yaml: free_thresh: must be below occupied_thresh \(0\.65\), got 0\.9/,
    ],
    [
      [(t) => t.replace('resolution: 0.05', 'resolution: -1')],
      /lab\.yaml: resolution: must be > 0 metres per cell, got -1/,
    ],
    [[(t) => t.replace('0.0]', '1.57]')], /lab\.yaml: origin: a yaw of 1\.57 rad is not supported/],
    [
      [(t) => t.replace('image: lab.pgm', 'image: gone.pgm')],
      /lab\.yaml: image: cannot read \S*gone\.pgm: no such file \(line 1\)/,
    ],
    [
      [undefined, lab.subarray(0, lab.length - 100)],
      /lab\.yaml: image: \S*lab\.pgm: P5: the header says 280×200 .* 56000 bytes of data; the file has 55900 \(truncated\)/,
    ],
    [[undefined, new Uint8Array(lab.subarray(0, 20))], /lab\.yaml: image: \S*lab\.pgm: /],
  ];
  for (const [args, message] of cases) await refused(labCopy(...args), [], message);
  const c = labCopy();
  writeFileSync(c.yaml, 'image: lab.pgm\nresolution: [0.05\n');
  await refused(c, [], /lab\.yaml: \d+:\d+: not valid YAML/);
  await refused(labCopy(), ['--spacing', '0'], /--spacing must be a number in/);
  await refused(labCopy(), ['--clearance', '-1'], /--clearance must be a number in/);
});

test('graph from-map: regions for another world, a region or start in an occupied or unknown cell, an unreachable region exit 2', async () => {
  const regionsWith = (c: ReturnType<typeof labCopy>, doc: unknown): typeof c => {
    writeFileSync(c.regions, JSON.stringify(doc));
    return c;
  };
  const dock = { name: 'dock', kind: 'box', min: [-0.75, -0.4], max: [-0.2, 0.4] };
  await refused(
    regionsWith(labCopy(), { world: 'warehouse', regions: [dock] }),
    [],
    /lab-regions\.json: \$\.world: the regions are for "warehouse", the map \S*lab\.yaml is "lab"/,
  );
  // the bench top itself (occupied), the closet (never seen: unknown), outside the map
  await refused(
    regionsWith(labCopy(), {
      world: 'lab',
      regions: [dock, { name: 'top', kind: 'box', min: [7.6, 5.3], max: [10.4, 5.7] }],
    }),
    [],
    /lab-regions\.json: \$\.regions\[1\]: region "top" \(box \(7\.6, 5\.3\)–\(10\.4, 5\.7\)\): every one of its \d+ cells is occupied or unknown/,
  );
  await refused(
    regionsWith(labCopy(), { regions: [{ name: 'closet', kind: 'disk', center: [0, 6.3], radius: 0.4 }] }),
    [],
    /\$\.regions\[0\]: region "closet" \(disk at \(0, 6\.3\) radius 0\.4\): every one/,
  );
  await refused(
    regionsWith(labCopy(), { regions: [{ name: 'far', kind: 'disk', center: [40, 40], radius: 1 }] }),
    [],
    /region "far" .* has no cell in the map \(\[-2, 12\] × \[-2, 8\] m\)/,
  );
  // free, but all of it closer to the wall than the clearance
  await refused(
    regionsWith(labCopy(), { regions: [{ name: 'slot', kind: 'box', min: [-0.9, 0.32], max: [-0.85, 0.4] }] }),
    [],
    /region "slot" .*: no free point of it is 0\.25 m \(the clearance\) from occupied and unknown cells; the most is 0\.\d+ m, at/,
  );
  await refused(
    labCopy(),
    ['--start', '3,3'],
    /^error: --start: \(3, 3\): the start is in an occupied cell \(column 100, row 99 of the image\)/,
  );
  await refused(labCopy(), ['--start', '0,6.5'], /--start: \(0, 6\.5\): the start is in an unknown cell/);
  await refused(labCopy(), ['--start', '20,0'], /--start: \(20, 0\): the start is outside the map/);
  await refused(
    labCopy(),
    ['--start', '-0.8,1'],
    /^error: --start: \(-0\.8, 1\): the start is only 0\.127 m from an occupied or unknown cell; the clearance is 0\.25 m\n$/,
  );
});

test('graph from-map: a region walled off from the start cannot be joined, and says so', async () => {
  // two rooms, 4 m × 3 m each, with no door between them; free 254, walls 0, unknown 205 around
  const w = 200,
    h = 80,
    res = 0.05,
    g = new Uint8Array(w * h).fill(205);
  const fill = (c0: number, r0: number, c1: number, r1: number, v: number): void => {
    for (let r = r0; r < r1; r++) g.fill(v, r * w + c0, r * w + c1);
  };
  fill(5, 5, 195, 75, 0);
  fill(8, 8, 98, 72, 254);
  fill(102, 8, 192, 72, 254);
  const dir = mkdtempSync(join(tmpdir(), 'witness-frommap-walled-'));
  writeFileSync(join(dir, 'two.pgm'), encodePgm(w, h, g));
  writeFileSync(
    join(dir, 'two.yaml'),
    `image: two.pgm\nresolution: ${res}\norigin: [-1, -1, 0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n`,
  );
  writeFileSync(
    join(dir, 'r.json'),
    JSON.stringify({
      world: 'two',
      regions: [
        { name: 'here', kind: 'disk', center: [1, 1], radius: 0.5 },
        { name: 'there', kind: 'disk', center: [6.5, 1], radius: 0.5 },
      ],
    }),
  );
  const c = { dir, yaml: join(dir, 'two.yaml'), regions: join(dir, 'r.json'), out: join(dir, 'g.json') };
  await refused(
    c,
    ['--start', '1,1'],
    /r\.json: \$\.regions\[1\]: region "there" \(disk at \(6\.5, 1\) radius 0\.5\): its free point \(6\.5, 1\) cannot be joined to the start's part of the map by a clear segment/,
  );
  const ok = await cli('graph', 'from-map', c.yaml, '--regions', c.regions, '--out', c.out, '--start', '6.5,1.5');
  assert.equal(ok.code, 2);
  assert.match(ok.err, /region "here"/);
});

test('bench map runs on a small floor and prints its tables with ratios', async () => {
  const r = await cli('bench', 'map', '--size', '12', '--rooms', '2', '--runs', '1', '--spacing', '0.5');
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /\| distance transform \+ graph \(what from-map does\) \| [\d.]+ \| graph with the naive clearance scan \| [\d.]+ \| [\d.]+× \|/,
  );
  assert.match(r.out, /\| `F a` \(reach\) \| ok \|/);
  assert.match(r.out, /planning under 1 s on this map/);
});

/**
 * Map worlds in the Foxglove scene: a map graph names its map (`witness graph from-map` writes
 * "map"), a mission on it records the occupancy grid in its audit run (a `map` blob the run_start
 * names), and the MCAP export draws it as a foxglove.Grid on /witness/map; a point maze keeps its
 * walls as cubes and has no map.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { mcapReader } from './mcap.js';
import { writeFixture } from '../../api/audit-fixture.js';
import { AuditLog, openAuditReadOnly } from '../../../main/services/audit/store.js';
import { exportAudit } from '../../../main/services/audit/export.js';
import { verifyChain } from '../../../main/services/audit/forensics.js';
import { mapBlobText, parseMapBlob } from '../../../main/services/audit/map-blob.js';
import { readMap } from '../../../main/services/maps/read.js';
import { FREE, OCCUPIED, UNKNOWN, cellCentre } from '../../../main/core/map/occupancy.js';
import { graphFromMap } from '../../../main/app/maps.js';
import { readMapTask } from '../../../main/app/map-task.js';
import { WitnessError } from '../../../main/contract/errors.js';
import { serveFoxgloveLive } from '../../../main/services/audit/foxglove-live.js';
import wsProtocol from '@foxglove/ws-protocol';
import { WebSocket } from 'ws';

const { FoxgloveClient } = wsProtocol;

const asset = (rel: string): string => fileURLToPath(new URL(`../../../../assets/${rel}`, import.meta.url));

interface Read {
  topic: string;
  schema: { name: string; data: string };
  doc: Record<string, unknown>;
}

async function readMcap(file: string): Promise<Read[]> {
  const fh = await open(file, 'r');
  try {
    const reader = await mcapReader(fh);
    const out: Read[] = [];
    for await (const m of reader.readMessages()) {
      const c = reader.channelsById.get(m.channelId)!;
      const s = reader.schemasById.get(c.schemaId)!;
      out.push({
        topic: c.topic,
        schema: { name: s.name, data: new TextDecoder().decode(s.data) },
        doc: JSON.parse(new TextDecoder().decode(m.data)) as Record<string, unknown>,
      });
    }
    return out;
  } finally {
    await fh.close();
  }
}

test('a map blob keeps the grid exactly; anything else is not one', async () => {
  const m = await readMap(asset('maps/lab.yaml'));
  const back = parseMapBlob(mapBlobText(m.name, m.grid));
  assert.ok(back !== null);
  assert.equal(back.name, 'lab');
  assert.deepEqual({ ...back.grid, cells: [...back.grid.cells] }, { ...m.grid, cells: [...m.grid.cells] });
  assert.ok(mapBlobText(m.name, m.grid).length < m.grid.cells.length / 4, 'deflated');
  for (const bad of [
    '',
    '{}',
    '[1]',
    JSON.stringify({ ...(JSON.parse(mapBlobText(m.name, m.grid)) as object), width: 3 }),
    JSON.stringify({ ...(JSON.parse(mapBlobText(m.name, m.grid)) as object), cells: 'AAAA' }),
  ]) {
    assert.equal(parseMapBlob(bad), null, bad.slice(0, 40));
  }
});

test("audit export --format mcap: a map world's run draws its map as a foxglove.Grid on /witness/map", async () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-foxglove-map-'));
  const m = await readMap(asset('maps/lab.yaml'));
  const file = join(d, 'a.sqlite');
  let t = Date.UTC(2026, 0, 15, 9);
  const log = AuditLog.open(file, { now: () => t });
  const run = await log.startRun({
    world: 'lab-turtlebot3',
    backend: 'ros2',
    operator: 'ada',
    software: 'witness test',
    models: { graph: 'lab.json' },
    spec: 'F dock',
    regions: readFileSync(asset('maps/lab-regions.json'), 'utf8'),
    map: mapBlobText(m.name, m.grid),
  });
  for (let i = 0; i < 5; i++) {
    t += 100;
    void log.append(
      run,
      'evidence',
      {
        instruction: 'realise the planned transition to n1',
        state: { x: i * 0.5, y: 0, labels: [] },
        action: 'waypoint',
        verifier: 'waypoint reached',
        failure_label: null,
      },
      { step: i },
    );
  }
  t += 100;
  void log.append(
    run,
    'run_end',
    { outcome: 'success', failureMode: null, message: 'ok', steps: 5, replans: 0 },
    { step: 5 },
  );
  await log.close();
  const db = openAuditReadOnly(file);
  try {
    const v = verifyChain(db);
    assert.ok(v.ok, `the map blob is named by its run_start: ${JSON.stringify(v)}`);
    await exportAudit(db, 'mcap', join(d, 'a.mcap'));
  } finally {
    db.close();
  }
  const all = await readMcap(join(d, 'a.mcap'));
  const maps = all.filter((x) => x.topic === '/witness/map');
  assert.equal(maps.length, 1, "the map once, at the run's start");
  const grid = maps[0]!;
  assert.equal(grid.schema.name, 'foxglove.Grid');
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(JSON.parse(grid.schema.data) as object);
  assert.ok(validate(grid.doc), ajv.errorsText(validate.errors));
  const g = grid.doc as {
    frame_id: string;
    column_count: number;
    row_stride: number;
    cell_stride: number;
    cell_size: { x: number; y: number };
    pose: { position: { x: number; y: number } };
    fields: { name: string; offset: number; type: number }[];
    data: string;
  };
  assert.equal(g.frame_id, 'world');
  assert.equal(g.column_count, m.grid.width);
  assert.deepEqual([g.row_stride, g.cell_stride], [m.grid.width, 1]);
  assert.deepEqual(g.cell_size, { x: m.grid.resolution, y: m.grid.resolution });
  assert.deepEqual([g.pose.position.x, g.pose.position.y], [m.grid.originX, m.grid.originY]);
  assert.deepEqual(g.fields, [{ name: 'occupancy', offset: 0, type: 2 }]);
  const data = Buffer.from(g.data, 'base64');
  assert.equal(data.length, m.grid.width * m.grid.height, 'one byte per cell: rows = data / row_stride');
  const rows = data.length / g.row_stride;
  assert.equal(rows, m.grid.height);
  // A few cells of each class, read back at their place in the world: the Grid cell whose corner is
  // at (pose + col·cell, pose + row·cell) holds the map cell whose centre is inside it.
  const value = (x: number, y: number): number => {
    const col = Math.floor((x - g.pose.position.x) / g.cell_size.x),
      row = Math.floor((y - g.pose.position.y) / g.cell_size.y);
    return data.readInt8(row * g.row_stride + col * g.cell_stride);
  };
  const want = { [FREE]: 0, [OCCUPIED]: 100, [UNKNOWN]: -1 } as const;
  const seen = { [FREE]: 0, [OCCUPIED]: 0, [UNKNOWN]: 0 };
  for (let i = 0; i < m.grid.cells.length; i += 97) {
    const c = m.grid.cells[i] as 0 | 1 | 2;
    const [x, y] = cellCentre(m.grid, i % m.grid.width, Math.floor(i / m.grid.width));
    assert.equal(value(x, y), want[c], `cell ${i} (${x}, ${y})`);
    seen[c]++;
  }
  assert.ok(seen[OCCUPIED] > 5 && seen[FREE] > 5, JSON.stringify(seen));
  // A map world has no maze cubes in its scene; its poses are there.
  const scene = all.find((x) => x.topic === '/witness/scene')!.doc as { entities: { id: string }[] };
  assert.deepEqual(
    scene.entities.map((e) => e.id),
    ['regions'],
  );
  assert.equal(all.filter((x) => x.topic === '/witness/robot/pose').length, 5);

  // A point maze keeps its walls as cubes, and has no map.
  const { small } = await writeFixture(join(d, 'maze.sqlite'), 0);
  assert.ok(small.run);
  const mdb = openAuditReadOnly(join(d, 'maze.sqlite'));
  try {
    await exportAudit(mdb, 'mcap', join(d, 'maze.mcap'));
  } finally {
    mdb.close();
  }
  const maze = await readMcap(join(d, 'maze.mcap'));
  assert.equal(maze.filter((x) => x.topic === '/witness/map').length, 0);
  const mazeScene = maze.find((x) => x.topic === '/witness/scene')!.doc as {
    entities: { id: string; cubes: unknown[] }[];
  };
  assert.ok(mazeScene.entities.find((e) => e.id === 'maze')!.cubes.length > 10);
});

test("from-map names the map in the graph; a mission reads it for its audit run; a map it cannot read is the graph's error", async () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-foxglove-map-'));
  const out = join(d, 'graphs', 'lab.json');
  mkdirSync(join(d, 'graphs'));
  await graphFromMap({
    map: asset('maps/lab.yaml'),
    regions: asset('maps/lab-regions.json'),
    out,
    spacing: 0.5,
    clearance: 0.2,
  });
  const doc = JSON.parse(readFileSync(out, 'utf8')) as { map?: string };
  assert.match(doc.map ?? '', /(\.\.\/)+.*assets\/maps\/lab\.yaml$/, 'relative to the graph file');
  const task = await readMapTask({
    world: 'ros2:x',
    spec: 'F dock',
    regions: { file: asset('maps/lab-regions.json') },
    graph: out,
  });
  assert.ok(task.map !== null);
  const m = await readMap(asset('maps/lab.yaml'));
  assert.equal(task.map, mapBlobText(m.name, m.grid));
  // The graph names a map that is not there: refused before anything connects, naming the graph and its "map".
  writeFileSync(out, JSON.stringify({ ...doc, map: 'gone.yaml' }));
  await assert.rejects(
    readMapTask({ world: 'ros2:x', spec: 'F dock', regions: { file: asset('maps/lab-regions.json') }, graph: out }),
    (e: unknown) => {
      assert.ok(e instanceof WitnessError);
      assert.equal(e.at.path, '$.map');
      assert.match(e.message, /lab\.json: its "map" .*gone\.yaml \(recorded with the run\)/);
      return true;
    },
  );
  // A graph with no "map" (older ones, hand-written ones) has none.
  const { map: _drop, ...without } = doc;
  writeFileSync(out, JSON.stringify(without));
  assert.equal(
    (
      await readMapTask({
        world: 'ros2:x',
        spec: 'F dock',
        regions: { file: asset('maps/lab-regions.json') },
        graph: out,
      })
    ).map,
    null,
  );
});

test("live: a map world's run sends its map to a Foxglove client on /witness/map", async () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-foxglove-map-'));
  const file = join(d, 'a.sqlite');
  const m = await readMap(asset('maps/lab.yaml'));
  const live = await serveFoxgloveLive({ port: 0, auditFile: file, pollMs: 20 });
  const client = new FoxgloveClient({ ws: new WebSocket(live.url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
  const topics = new Map<number, string>();
  const grids: { column_count: number; data: string }[] = [];
  const subscribed = new Promise<void>((resolve) => {
    client.on('advertise', (channels) => {
      for (const c of channels) topics.set(client.subscribe(c.id), c.topic);
      resolve();
    });
  });
  client.on('message', ({ subscriptionId, data }) => {
    if (topics.get(subscriptionId) === '/witness/map')
      grids.push(
        JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as {
          column_count: number;
          data: string;
        },
      );
  });
  try {
    await subscribed;
    for (let i = 0; i < 500 && live.subscribed() < topics.size; i++) await new Promise((r) => setTimeout(r, 10));
    const log = AuditLog.open(file);
    await log.startRun({
      world: 'lab-turtlebot3',
      backend: 'ros2',
      operator: 'ada',
      software: 'witness test',
      models: {},
      map: mapBlobText(m.name, m.grid),
    });
    await log.close();
    for (let i = 0; i < 500 && grids.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(grids.length, 1);
    assert.equal(grids[0]!.column_count, m.grid.width);
    assert.equal(Buffer.from(grids[0]!.data, 'base64').length, m.grid.width * m.grid.height);
    assert.equal(live.sent.map, 1);
  } finally {
    client.close();
    await live.close();
  }
});

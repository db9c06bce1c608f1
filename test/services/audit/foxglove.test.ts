/**
 * The MCAP export in Foxglove's own schemas: read back with @mcap/core, every foxglove message
 * decodes and validates against the schema its channel names, and carries what the log recorded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcapReader } from './mcap.js';
import { Ajv } from 'ajv';
import { writeFixture } from '../../api/audit-fixture.js';
import { openAuditReadOnly } from '../../../main/services/audit/store.js';
import { exportAudit } from '../../../main/services/audit/export.js';
import { MAZES } from '../../../main/core/world/maze.js';

interface Read {
  topic: string;
  schema: { name: string; encoding: string; data: string };
  t_ns: bigint;
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
        schema: { name: s.name, encoding: s.encoding, data: new TextDecoder().decode(s.data) },
        t_ns: m.logTime,
        doc: JSON.parse(new TextDecoder().decode(m.data)) as Record<string, unknown>,
      });
    }
    return out;
  } finally {
    await fh.close();
  }
}

test('audit export --format mcap: poses, the scene and the log in foxglove.* schemas that Foxglove and Lichtblick draw unconfigured', async () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-foxglove-'));
  const { small } = await writeFixture(join(d, 'a.sqlite'), 0);
  const db = openAuditReadOnly(join(d, 'a.sqlite'));
  try {
    await exportAudit(db, 'mcap', join(d, 'a.mcap'));
  } finally {
    db.close();
  }
  const all = await readMcap(join(d, 'a.mcap'));
  const on = (topic: string): Read[] => all.filter((m) => m.topic === topic);
  // The log's own JSON channels are still there beside them.
  assert.ok(on('/witness/run_start').length === 1 && on('/witness/failure_record').length === 2);

  const ajv = new Ajv({ strict: false, allErrors: true });
  const want = {
    '/witness/robot/pose': 'foxglove.PoseInFrame',
    '/witness/scene': 'foxglove.SceneUpdate',
    '/witness/log': 'foxglove.Log',
  } as const;
  for (const [topic, name] of Object.entries(want)) {
    const msgs = on(topic);
    assert.ok(msgs.length > 0, `${topic} has messages`);
    for (const m of msgs) {
      assert.equal(m.schema.name, name);
      assert.equal(m.schema.encoding, 'jsonschema');
      const validate = ajv.compile(JSON.parse(m.schema.data) as object);
      assert.ok(validate(m.doc), `${topic}: ${ajv.errorsText(validate.errors)}`);
      // The header's time is the message's log time.
      const ts = (m.doc['timestamp'] ??
        (m.doc['entities'] as { timestamp: unknown }[] | undefined)?.[0]?.timestamp) as { sec: number; nsec: number };
      assert.equal(BigInt(ts.sec) * 1_000_000_000n + BigInt(ts.nsec), m.t_ns);
    }
  }

  // Poses: every position the evidence recorded, in order, in the world frame.
  const poses = on('/witness/robot/pose').map(
    (m) => m.doc as { frame_id: string; pose: { position: { x: number; y: number } } },
  );
  assert.deepEqual(
    poses.map((p) => [p.pose.position.x, p.pose.position.y]),
    small.positions.slice(1).map(([, x, y]) => [x, y]),
  );
  assert.ok(poses.every((p) => p.frame_id === 'world'));

  // The scene: the maze's walls, the three regions, and the path of each of the two plans.
  type Entity = {
    id: string;
    cubes: unknown[];
    cylinders: unknown[];
    texts: { text: string }[];
    lines: { points: { x: number; y: number }[] }[];
  };
  const scenes = on('/witness/scene').map((m) => (m.doc as { entities: Entity[] }).entities);
  const walls = MAZES.medium.grid.flat().filter((c) => c === 1).length;
  assert.equal(scenes.length, 3, 'the run start, then each plan');
  for (const entities of scenes) {
    assert.equal(entities.find((e) => e.id === 'maze')!.cubes.length, walls);
    const regions = entities.find((e) => e.id === 'regions')!;
    assert.equal(regions.cylinders.length, 3);
    assert.deepEqual(
      regions.texts.map((t) => t.text),
      ['e0', 'e1', 'e2'],
    );
  }
  const planLines = scenes.slice(1).map((es) => es.find((e) => e.id === 'plan')!.lines[0]!.points);
  assert.equal(planLines.length, 2);
  // The first plan's path passes where the robot reached its nodes (c1 at (4, 14), c2 at (6, 10)).
  assert.ok(planLines[0]!.some((p) => p.x === 4 && p.y === 14) && planLines[0]!.some((p) => p.x === 6 && p.y === 10));

  // The log: two failure records (warning), a replan and the end (info), the escalation (error).
  const logs = on('/witness/log').map((m) => m.doc as { level: number; message: string });
  assert.deepEqual(
    logs.map((l) => l.level),
    [3, 3, 2, 4, 2],
  );
  assert.match(logs[0]!.message, /^failure grasp-missed/);
  assert.match(logs[1]!.message, /^failure tracking-timeout/);
  assert.match(logs[3]!.message, /^escalation: replanning budget R = 1 exhausted/);
  assert.match(logs[4]!.message, /^run ended: failed/);
});

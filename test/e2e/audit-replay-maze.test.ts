// The replay of an Ant-maze mission: drawn over its maze, rows down as in the live view, and the
// plan nodes the log does not place set along the corridors, not across walls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AuditLog } from '../../main/services/audit/store.js';
import { missionRecorder } from '../../main/services/audit/mission-recorder.js';
import { createDirectApi } from '../../main/api/direct.js';
import { MAZES, cellAt, isFree } from '../../main/core/world/maze.js';
import { openApp } from './harness.js';

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const REGIONS = {
  world: 'antmaze-medium',
  regions: [
    { name: 'e0', kind: 'disk', center: [0, 0], radius: 1.5 },
    { name: 'e1', kind: 'disk', center: [20, 0], radius: 1.5 },
  ],
};
const SPEC = 'F e1 & G F e0';
// Latent graph nodes are close together: a plan has a node every few metres of the way.
const PREFIX = ['start', 'c1', ...['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'], 'anchor:e1:0'];
const SUFFIX = [
  ...['b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8'],
  'anchor:e0:0',
  ...['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8'],
  'anchor:e1:0',
];

function planDoc(): Record<string, unknown> {
  const steps = [...PREFIX, ...SUFFIX].map((node) => ({ node, state: 0, from: 0, term: null, letter: [] }));
  return {
    status: 'ok',
    method: 'sagas',
    prefix: PREFIX,
    suffix: SUFFIX,
    cost: { prefix: 40, suffix: 60, objective: 50 },
    certificate: { formula: SPEC, steps, suffixStart: PREFIX.length, dwell: false },
  };
}

/** A mission in antmaze-medium: the robot reaches c1 only; every other plan node is placed by the replay. */
async function writeAntRun(file: string): Promise<string> {
  const log = AuditLog.open(file);
  const run = await log.startRun({
    world: 'antmaze-medium',
    backend: 'mujoco',
    operator: 'ada',
    software: 'witness test',
    models: {},
    spec: SPEC,
    regions: JSON.stringify(REGIONS),
    meta: { method: 'sagas', start: [4, 20], seed: 0 },
  });
  missionRecorder(log, run).plan(0, 'initial', planDoc(), 3);
  await log.flush();
  const at = (step: number, node: string, x: number, y: number): void => {
    void log.append(
      run,
      'checkpoint',
      { kind: 'waypoint', t: step, stream: 'prefix', index: 1, node, skipped: 0 },
      { step },
    );
    void log.append(
      run,
      'evidence',
      {
        instruction: `reach ${node}`,
        state: { x, y, labels: [] },
        action: 'waypoint',
        verifier: 'waypoint reached',
        failure_label: null,
      },
      { step },
    );
  };
  at(5, 'c1', 8, 20);
  void log.append(run, 'run_end', { outcome: 'aborted', reason: 'test' }, { step: 10 });
  await log.close();
  return run;
}

test('an Ant-maze run replays over its maze, rows down, its unplaced plan nodes in the corridors', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-e2e-replay-maze-'));
  const file = path.join(dir, 'audit.sqlite');
  const run = await writeAntRun(file);

  // The scene main sends: the maze picture, rows down, every plan node in a free cell.
  const api = createDirectApi({ auditFile: file, workspace: dir });
  try {
    const r = await api.auditReplay({ run });
    assert.equal(r.scene.yDown, true);
    assert.match(r.scene.picture ?? '', /^<svg /);
    const layout = MAZES.medium;
    for (const n of r.scene.nodes) {
      const c = cellAt(layout, n.x, n.y);
      assert.ok(c !== null && isFree(layout, c.i, c.j), `${n.id} at (${n.x}, ${n.y}) is in a wall`);
    }
    // And the plan's legs, drawn straight from node to node, stay off the walls.
    const at = new Map(r.scene.nodes.map((n) => [n.id, [n.x, n.y] as const]));
    const seq = [...PREFIX, ...SUFFIX];
    for (let k = 1; k < seq.length; k++) {
      const p = at.get(seq[k - 1]!)!,
        q = at.get(seq[k]!)!;
      for (let s = 0; s <= 200; s++) {
        const c = cellAt(layout, p[0] + ((q[0] - p[0]) * s) / 200, p[1] + ((q[1] - p[1]) * s) / 200);
        assert.ok(c !== null && isFree(layout, c.i, c.j), `the leg ${seq[k - 1]} → ${seq[k]} crosses a wall`);
      }
    }
  } finally {
    await api.close();
  }

  const app = await openApp({ auditFile: file });
  try {
    const { page } = app;
    await page.click('#tab-audit');
    await page.waitForSelector(`#audit-runs li.selected[data-run="${run}"]`);
    await page.waitForSelector('#audit-graph[data-picture="shown"]');
    // Scrub to the robot at (8, 20): in a rows-down maze (y from -6 to 26) it is near the bottom of the picture.
    await page.evaluate(`(() => {
      const r = document.getElementById('audit-scrub');
      r.value = '6';
      r.dispatchEvent(new Event('input'));
    })()`);
    await page.waitForSelector('#audit-replay[data-robot="8.00,20.00"]');
    const where = await page.evaluate<{ pic: Box; robot: Box }>(`(() => ({
      pic: document.querySelector('#audit-graph .gv-picture').getBoundingClientRect().toJSON(),
      robot: document.querySelector('#audit-graph .gv-robot').getBoundingClientRect().toJSON(),
    }))()`);
    const fy = ((where.robot.top + where.robot.bottom) / 2 - where.pic.top) / (where.pic.bottom - where.pic.top);
    const fx = ((where.robot.left + where.robot.right) / 2 - where.pic.left) / (where.pic.right - where.pic.left);
    assert.ok(Math.abs(fy - 26 / 32) < 0.05, `the robot is ${fy.toFixed(2)} down the picture (rows down: 0.81)`);
    assert.ok(Math.abs(fx - 14 / 32) < 0.05, `the robot is ${fx.toFixed(2)} across the picture (0.44)`);
    await app.screenshot('audit-replay-antmaze');
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

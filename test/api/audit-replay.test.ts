import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { createDirectApi } from '../../main/api/direct.js';
import { diffNodes } from '../../main/services/audit/plan-diff.js';
import { PLAN_1, writeFixture } from './audit-fixture.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'witness-audit-replay-'));

test('diffNodes: keeping "=" and "-" gives the old plan, "=" and "+" the new one; common ends are kept', () => {
  const nodes = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'anchor:e1:0'), { maxLength: 40 });
  fc.assert(
    fc.property(nodes, nodes, (a, b) => {
      const d = diffNodes(a, b);
      assert.deepEqual(
        d.filter((x) => x.op !== '+').map((x) => x.node),
        a,
      );
      assert.deepEqual(
        d.filter((x) => x.op !== '-').map((x) => x.node),
        b,
      );
    }),
    { seed: 19, numRuns: 100 },
  );
  assert.deepEqual(
    diffNodes(['s', 'x', 'g'], ['s', 'y', 'g']).map((x) => `${x.op}${x.node}`),
    ['=s', '-x', '+y', '=g'],
  );
});

test('auditReplay of a mission: plans with a replan, positions from evidence, monitor states, marks, and a scene that says what it guessed', async () => {
  const file = path.join(dir, 'small.sqlite');
  const fx = await writeFixture(file, 3000);
  const api = createDirectApi({ auditFile: file, workspace: dir });
  try {
    const r = await api.auditReplay({ run: fx.small.run });
    assert.deepEqual([r.axis, r.min, r.max], ['step', 0, 40]);
    assert.deepEqual(
      r.plans.map((p) => [p.at, p.trigger, p.plan.prefix[0]]),
      [
        [0, 'initial', 'start'],
        [30, 'replan', 'start@30'],
      ],
    );
    assert.deepEqual(r.plans[0]!.plan.prefix, PLAN_1.prefix);
    assert.deepEqual(r.plans[0]!.plan.prefixStates, [0, 0, 0, 1]);
    assert.deepEqual(
      r.positions.at.map((a, i) => [a, r.positions.x[i], r.positions.y[i]]),
      fx.small.positions,
    );
    assert.deepEqual(
      r.monitor.map((m) => [m.at, m.states]),
      [[12, [0, 1]]],
    );
    assert.deepEqual(
      r.marks.map((m) => `${m.at}:${m.kind}:${m.label}`),
      [
        '16:failure_record:grasp-missed',
        '30:failure_record:tracking-timeout',
        '30:replan:replan 1 after tracking-timeout',
        '40:escalation:replanning budget R = 1 exhausted; escalating with 2 failure record(s)',
        '40:run_end:failed',
      ],
    );
    const node = (id: string): [number, number, string] => {
      const n = r.scene.nodes.find((x) => x.id === id);
      assert.ok(n, `scene node ${id}`);
      return [n.x, n.y, n.kind];
    };
    assert.deepEqual(node('start'), [4, 20, 'start'], 'the run start');
    assert.deepEqual(node('c1'), [4, 14, 'cluster'], 'where the robot reached it');
    assert.deepEqual(node('anchor:e1:0'), [20, 0, 'anchor'], 'never reached: its region centre');
    assert.deepEqual(node('start@30'), [14, 4, 'start'], 'the replan start: where the robot last was');
    // Between its plan neighbours (8, 8) and (20, 0) along the maze's corridors: at a corner of the way, a free cell's
    // centre (the straight line's midpoint would be (14, 4)).
    assert.deepEqual(node('c5'), [16, 4, 'cluster'], 'interpolated between its plan neighbours');
    for (const p of r.plans) for (const id of [...p.plan.prefix, ...p.plan.suffix]) node(id);
    assert.deepEqual(r.scene.bounds, { minX: -6, minY: -6, maxX: 26, maxY: 26 });
    assert.match(r.scene.picture!, /^<svg [^>]*viewBox="-6 -6 32 32"/);
    assert.match(
      r.notes.join('\n'),
      /plan node positions are not recorded in the audit log: of 9 nodes, 5 are placed where the robot reached them, 1 anchors at their region's centre, 1 interpolated/,
    );
    assert.deepEqual(r.automaton?.states.length, 3);

    const b = await api.auditReplay({ run: fx.big!.run, maxPositions: 100 });
    assert.equal(b.positions.x.length, 100);
    assert.equal(b.positions.total, fx.big!.kinds['evidence']! + 1, 'the run start and every evidence');
    assert.deepEqual([b.positions.at[0], b.positions.at[99]], [0, 2996], 'first and last evidence kept');
    assert.match(b.notes.join('\n'), /robot positions recorded; 100 sent for the replay/);
    assert.deepEqual(b.plans, []);
  } finally {
    await api.close();
  }
});

test(
  'auditReplay and auditEvent on a real mission recorded by `witness run` (sagas-replan)',
  { timeout: 60_000 },
  async () => {
    const file = path.join(dir, 'real.sqlite');
    await promisify(execFile)(
      process.execPath,
      [
        path.join(ROOT, 'bin', 'witness.js'),
        'run',
        '--world',
        'pointmaze-medium',
        '--regions',
        path.join(ROOT, 'assets/regions/pointmaze-medium.json'),
        '--spec',
        'F e2 & G F e1 & G F e4 & G !e0',
        '--start',
        '4,20',
        '--dataset-steps',
        '50000',
        '--method',
        'sagas-replan',
        '--audit',
        file,
      ],
      { cwd: ROOT, maxBuffer: 1 << 24 },
    ).catch((e: { code?: number; stderr?: string }) => {
      // Exit 1 is a failed mission: still a recorded run.
      if (e.code !== 1) throw new Error(`witness run failed (exit ${e.code ?? '?'}): ${e.stderr ?? ''}`);
    });
    const api = createDirectApi({ auditFile: file, workspace: dir });
    try {
      const [run] = (await api.auditRuns({})).runs;
      assert.ok(run && run.events > 50 && run.spec === 'F e2 & G F e1 & G F e4 & G !e0', JSON.stringify(run));
      const r = await api.auditReplay({ run: run.id });
      assert.equal(r.axis, 'step');
      assert.ok(r.plans.length >= 1 && r.plans[0]!.plan.status === 'ok');
      assert.ok(r.positions.total > 10);
      assert.deepEqual([r.positions.x[0], r.positions.y[0]], [4, 20]);
      const ids = new Set(r.scene.nodes.map((n) => n.id));
      for (const p of r.plans) for (const id of [...p.plan.prefix, ...p.plan.suffix]) assert.ok(ids.has(id), id);
      assert.ok(
        r.scene.nodes.every(
          (n) =>
            n.x >= r.scene.bounds.minX &&
            n.x <= r.scene.bounds.maxX &&
            n.y >= r.scene.bounds.minY &&
            n.y <= r.scene.bounds.maxY,
        ),
      );
      assert.equal(r.plans[0]!.plan.prefixStates.length, r.plans[0]!.plan.prefix.length);
      assert.ok(r.monitor.length > 0);
      const replans = (await api.auditQuery({ filter: { run: run.id, kinds: ['replan'] }, limit: 10 })).events;
      if (replans.length > 0) {
        const d = await api.auditEvent({ id: replans[0]!.id });
        assert.ok(d.plans?.before && d.plans.after && d.plans.before.seq < d.plans.after.seq);
        assert.ok(
          d.plans.prefix.some((x) => x.op !== '='),
          'a replan changes the prefix',
        );
      }
    } finally {
      await api.close();
    }
  },
);

// The tamper suite: every table of an audit database (events, runs, blobs) and the schema's guards
// (its triggers), each altered the way a forger with SQLite at hand would — triggers dropped, the
// row changed, and (a careful forger) the triggers put back — must be reported by verify, naming
// the table and the row; `listRuns` (audit ls) must show the chained values, marked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AuditLog, chainHash, openAuditReadOnly, sha256 } from '../../../main/services/audit/store.js';
import { listRuns, verifyChain } from '../../../main/services/audit/forensics.js';
import { missionRecorder } from '../../../main/services/audit/mission-recorder.js';
import { MIGRATIONS } from '../../../main/services/audit/schema.js';

const d = mkdtempSync(join(tmpdir(), 'witness-tamper-'));
const TRIGGERS = [...MIGRATIONS[0]!.matchAll(/CREATE TRIGGER (\w+)[\s\S]*?END;/g)].map((m) => ({
  name: m[1]!,
  sql: m[0],
}));
const PICK = '{"type":"object","properties":{"target":{"type":"string"}}}';
const PLACE = '{"type":"object","properties":{"on":{"type":"string"}}}';

interface Evidence {
  readonly file: string;
  readonly mission: string;
  readonly act: string;
  readonly specSha: string;
  readonly regionsSha: string;
  readonly planSha: string;
}

/** Two runs through the real writer: a mission (spec, regions, a plan) and a tool loop (tool schemas). */
async function evidence(): Promise<Evidence> {
  const file = join(d, 'evidence.sqlite');
  let t = 1_760_000_000_000;
  const log = AuditLog.open(file, { now: () => (t += 5) });
  const mission = await log.startRun({
    world: 'pointmaze-medium',
    backend: 'mujoco',
    operator: 'ada',
    software: 'witness test',
    models: { embed: 'e1', policy: 'p1' },
    spec: 'F e1 & G !e0',
    regions: '{"world":"pointmaze-medium","regions":[]}',
    meta: { method: 'sagas', seed: 3 },
  });
  const rec = missionRecorder(log, mission);
  rec.plan(0, 'initial', { status: 'ok', method: 'sagas', cost: { prefix: 1, suffix: 2, objective: 2 } }, 1.5);
  for (let i = 0; i < 6; i++)
    void log.append(
      mission,
      'evidence',
      {
        instruction: `step ${i}`,
        state: { x: i, y: 0, labels: [] },
        action: 'waypoint',
        verifier: 'ok',
        failure_label: null,
      },
      { step: i },
    );
  await log.append(mission, 'run_end', { outcome: 'success' });
  const act = await log.startRun({
    world: 'tabletop',
    backend: 'mujoco',
    operator: 'bob',
    software: 'witness test',
    models: {},
    spec: 'the mug on the tray',
    meta: { via: 'cli', replans: 3 },
    toolSchemas: { pick: PICK, place: PLACE },
  });
  await log.append(
    act,
    'tool_call',
    { tool: 'pick', arguments: { target: 'mug' }, start_s: 0, end_s: 1, timeout_s: 10, response: { ok: true } },
    { tool: 'pick', step: 0 },
  );
  await log.append(act, 'run_end', { outcome: 'success' });
  assert.deepEqual(rec.errors, []);
  await log.close();
  const db = openAuditReadOnly(file);
  const blob = (kind: string): string =>
    (db.prepare('SELECT sha256 FROM blobs WHERE kind = ?').get(kind) as { sha256: string }).sha256;
  const r = { file, mission, act, specSha: blob('spec'), regionsSha: blob('regions'), planSha: blob('plan') };
  db.close();
  return r;
}

const made = evidence();
let copies = 0;

/**
 * A copy of the evidence tampered with: the triggers dropped, `sql` run, and (unless `keepDropped`)
 * the triggers created again exactly as the schema has them; then verified and listed.
 */
async function tamper(
  sql: string | ((db: Database.Database, e: Evidence) => void),
  o: { keepDropped?: string[] } = {},
): Promise<{ v: ReturnType<typeof verifyChain>; runs: ReturnType<typeof listRuns> }> {
  const e = await made;
  const copy = join(d, `t${copies++}.sqlite`);
  copyFileSync(e.file, copy);
  const raw = new Database(copy);
  raw.pragma('foreign_keys = OFF');
  for (const t of TRIGGERS) raw.exec(`DROP TRIGGER ${t.name}`);
  if (typeof sql === 'string') raw.exec(sql);
  else sql(raw, e);
  for (const t of TRIGGERS) if (o.keepDropped === undefined || !o.keepDropped.includes(t.name)) raw.exec(t.sql);
  raw.close();
  // Opened as verify opens it: a trigger Witness does not create is reported, not refused.
  const db = openAuditReadOnly(copy, { foreignSchema: 'report' });
  try {
    return { v: verifyChain(db), runs: listRuns(db) };
  } finally {
    db.close();
  }
}

const bad = (v: ReturnType<typeof verifyChain>, table: string, key: string, reason: RegExp): void => {
  assert.equal(v.ok, false, `tampering of ${table} ${key} reported`);
  assert.deepEqual([v.firstBad?.table, v.firstBad?.key], [table, key], JSON.stringify(v.firstBad));
  assert.match(v.firstBad!.reason, reason);
};

test('the untouched evidence verifies: two runs, every blob named by the chain, every trigger in place', async () => {
  const { v, runs } = await tamper('SELECT 1');
  assert.equal(v.ok, true, JSON.stringify(v.problems));
  assert.deepEqual([v.events, v.runs, v.blobs, v.problems.length], [12, 2, 6, 0]);
  assert.ok(runs.every((r) => r.tampered === undefined));
});

test('events: an altered body, a removed row, a forged row (even one chained correctly) for a run that never started', async () => {
  bad(
    (await tamper("UPDATE events SET body = replace(body, 'step 2', 'step 9') WHERE seq = 5")).v,
    'events',
    '5',
    /hash does not match its content/,
  );
  bad((await tamper('DELETE FROM events WHERE seq = 4')).v, 'events', '5', /sequence gap/);
  bad(
    (
      await tamper(
        "INSERT INTO events SELECT 13, run_id, t_ms + 1, NULL, 'evidence', NULL, NULL, '{}', hash, 'forged' FROM events WHERE seq = 12",
      )
    ).v,
    'events',
    '13',
    /hash does not match/,
  );
  const { v } = await tamper((db) => {
    const last = db.prepare('SELECT hash, t_ms FROM events ORDER BY seq DESC LIMIT 1').get() as {
      hash: string;
      t_ms: number;
    };
    db.prepare("INSERT INTO runs VALUES ('fake-run', ?, 'w', 'b', 'mallory', 's', '{}', NULL, NULL, '{}')").run(
      last.t_ms,
    );
    const h = chainHash(last.hash, 13, 'fake-run', last.t_ms + 1, null, 'evidence', null, null, '{}');
    db.prepare("INSERT INTO events VALUES (13, 'fake-run', ?, NULL, 'evidence', NULL, NULL, '{}', ?, ?)").run(
      last.t_ms + 1,
      last.hash,
      h,
    );
  });
  bad(v, 'events', '13', /before its run_start/);
  bad(
    (await tamper(`UPDATE events SET prev_hash = '${sha256('x')}' WHERE seq = 2`)).v,
    'events',
    '2',
    /does not chain/,
  );
});

test('runs: operator, world, metadata, models, specification, start time changed; a fake run inserted; a run row removed', async () => {
  const e = await made;
  const operator = await tamper(`UPDATE runs SET operator = 'mallory' WHERE id = '${e.mission}'`);
  bad(operator.v, 'runs', e.mission, /operator is "mallory" in the runs table but "ada" in its chained run_start/);
  const shown = operator.runs.find((r) => r.id === e.mission)!;
  assert.equal(shown.operator, 'ada', 'ls shows the chained operator, not the forged one');
  assert.match(shown.tampered ?? '', /operator/);
  bad(
    (await tamper(`UPDATE runs SET world = 'pointmaze-giant' WHERE id = '${e.mission}'`)).v,
    'runs',
    e.mission,
    /world/,
  );
  bad((await tamper(`UPDATE runs SET backend = 'ros2' WHERE id = '${e.act}'`)).v, 'runs', e.act, /backend/);
  bad((await tamper(`UPDATE runs SET software = 'witness 9' WHERE id = '${e.act}'`)).v, 'runs', e.act, /software/);
  bad(
    (await tamper(`UPDATE runs SET meta = '{"method":"sagas","seed":4}' WHERE id = '${e.mission}'`)).v,
    'runs',
    e.mission,
    /metadata/,
  );
  bad(
    (await tamper(`UPDATE runs SET models = '{"embed":"e2","policy":"p1"}' WHERE id = '${e.mission}'`)).v,
    'runs',
    e.mission,
    /models/,
  );
  bad((await tamper(`UPDATE runs SET spec_sha = NULL WHERE id = '${e.mission}'`)).v, 'runs', e.mission, /spec_sha/);
  bad(
    (await tamper(`UPDATE runs SET regions_sha = '${e.specSha}' WHERE id = '${e.mission}'`)).v,
    'runs',
    e.mission,
    /regions_sha/,
  );
  bad(
    (await tamper(`UPDATE runs SET started_ms = started_ms + 60000 WHERE id = '${e.act}'`)).v,
    'runs',
    e.act,
    /start time/,
  );
  const fake = await tamper(
    `INSERT INTO runs SELECT 'fake', started_ms, world, backend, 'mallory', software, models, spec_sha, regions_sha, meta FROM runs WHERE id = '${e.act}'`,
  );
  bad(fake.v, 'runs', 'fake', /no run_start event/);
  assert.match(fake.runs.find((r) => r.id === 'fake')?.tampered ?? '', /no run_start/, 'ls marks the fake run');
  const removed = await tamper(`DELETE FROM runs WHERE id = '${e.act}'`);
  bad(removed.v, 'runs', e.act, /has no row in the runs table/);
  assert.equal(removed.runs.find((r) => r.id === e.act)?.operator, 'bob', 'ls still lists the run from its run_start');
});

test('blobs: a kind changed (specification, tool schema), a body changed, a blob inserted, a named blob removed', async () => {
  const e = await made;
  bad(
    (await tamper(`UPDATE blobs SET kind = 'regions' WHERE sha256 = '${e.specSha}'`)).v,
    'blobs',
    e.specSha,
    /kind is "regions" but the chain names it as "spec"/,
  );
  const pick = sha256(PICK);
  bad(
    (await tamper(`UPDATE blobs SET kind = 'tool-schema:place' WHERE sha256 = '${pick}'`)).v,
    'blobs',
    pick,
    /"tool-schema:pick"/,
  );
  bad((await tamper(`UPDATE blobs SET kind = 'spec' WHERE sha256 = '${e.planSha}'`)).v, 'blobs', e.planSha, /"plan"/);
  bad(
    (await tamper(`UPDATE blobs SET body = 'F e2' WHERE sha256 = '${e.specSha}'`)).v,
    'blobs',
    e.specSha,
    /does not match its address/,
  );
  const extra = sha256('G !e1');
  bad(
    (await tamper(`INSERT INTO blobs VALUES ('${extra}', 'spec', 'G !e1')`)).v,
    'blobs',
    extra,
    /no chained event names this spec blob/,
  );
  bad(
    (await tamper(`DELETE FROM blobs WHERE sha256 = '${e.regionsSha}'`)).v,
    'blobs',
    e.regionsSha,
    /regions blob that event 1 names is missing/,
  );
});

test('schema: each trigger dropped, one replaced by a trigger that refuses nothing, one added — tampering even with every row intact', async () => {
  for (const t of TRIGGERS) {
    const { v } = await tamper('SELECT 1', { keepDropped: [t.name] });
    bad(v, 'schema', t.name, /missing \(dropped\)/);
  }
  const all = (await tamper('SELECT 1', { keepDropped: TRIGGERS.map((t) => t.name) })).v;
  assert.deepEqual(
    all.problems.map((p) => p.key),
    TRIGGERS.map((t) => t.name),
    'every missing trigger is listed',
  );
  const noop = await tamper('CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT 1; END', {
    keepDropped: ['events_no_update'],
  });
  bad(noop.v, 'schema', 'events_no_update', /altered/);
  bad(
    (await tamper('CREATE TRIGGER swallow BEFORE INSERT ON events BEGIN SELECT RAISE(IGNORE); END')).v,
    'schema',
    'swallow',
    /does not create was added/,
  );
  // Dropped triggers and an altered row: the row is the first bad one, the triggers are listed too.
  const e = await made;
  const both = (
    await tamper(`UPDATE runs SET operator = 'mallory' WHERE id = '${e.act}'`, { keepDropped: ['runs_no_update'] })
  ).v;
  bad(both, 'runs', e.act, /operator/);
  assert.deepEqual(
    both.problems.map((p) => `${p.table} ${p.key}`),
    ['schema runs_no_update', `runs ${e.act}`],
  );
});

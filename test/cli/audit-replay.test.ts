/**
 * `witness audit replay` on a local log: the text (the run's header as `show` prints it, the plans with their hash,
 * the marks and the rule verdicts in the log's order, the counts of positions) and the JSON (the replay the console
 * receives); a run that is not there exits as `show` does, with its error; usage errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { AuditReplay } from '../../main/contract/api.js';
import { AuditLog } from '../../main/services/audit/store.js';
import { AuditBrowser } from '../../main/app/audit.js';
import { writeFixture } from '../api/audit-fixture.js';
import { cli } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'witness-cli-replay-'));

/** A tool loop run under rules: a call refused, one allowed and observed, the end. */
async function rulesLog(file: string): Promise<string> {
  let t = 1_770_000_000_000;
  const log = AuditLog.open(file, { now: () => (t += 250) });
  const run = await log.startRun({ world: 'warehouse', backend: 'test', operator: 'op', software: 'test', models: {} });
  const verdict = (phase: 'predicted' | 'observed', ok: boolean, tool: string) => ({
    phase,
    ok,
    tool,
    arguments: {},
    letter: ok ? [] : ['holding'],
    open: [],
    ...(ok ? {} : { rule: 'no-drop-while-moving', proposition: 'moving' }),
    broken: [],
    observed: {},
    errors: [],
    rules: [{ name: 'no-drop-while-moving', states: [0], viable: true }],
  });
  await log.append(run, 'rule_verdict', verdict('predicted', false, 'drop'), { tool: 'drop' });
  await log.append(run, 'rule_verdict', verdict('predicted', true, 'stop'), { tool: 'stop' });
  await log.append(run, 'tool_call', { tool: 'stop', arguments: {}, response: { ok: true } }, { tool: 'stop' });
  await log.append(run, 'rule_verdict', verdict('observed', true, 'stop'), { tool: 'stop' });
  await log.append(run, 'run_end', { outcome: 'success' });
  await log.close();
  return run;
}

test('replay prints the run as show heads it, then its plans, marks and counts in the order of the log', async () => {
  const file = join(dir, 'mission.sqlite');
  const { small } = await writeFixture(file, 0);
  const r = await cli('audit', 'replay', file, small.run.slice(0, 8));
  assert.equal(r.code, 0, r.err);
  const show = await cli('audit', 'show', file, small.run);
  const head = show.out.split('\n').slice(0, 2).join('\n') + '\n';
  assert.ok(r.out.startsWith(head + 'replay on steps 0–40\n'), r.out);
  const db = new Database(file, { readonly: true });
  const shas = db
    .prepare("SELECT json_extract(body, '$.plan_sha') AS sha FROM events WHERE kind = 'plan' ORDER BY seq")
    .pluck()
    .all() as string[];
  db.close();
  assert.equal(shas.length, 2);
  const steps = r.out
    .split('\n')
    .filter((l) => l.startsWith('  '))
    .map((l) => l.trim().replace(/\s+/g, ' '));
  assert.deepEqual(
    steps.map((l) => l.replace(/ sha [0-9a-f]{16}…$/, '')),
    [
      'step 0 2 plan (initial) ok, cost 9, 4 + 4 nodes,',
      'step 16 13 failure_record grasp-missed',
      'step 30 16 failure_record tracking-timeout',
      'step 30 17 plan (replan) ok, cost 11, 3 + 4 nodes,',
      'step 30 18 replan replan 1 after tracking-timeout',
      'step 40 21 escalation replanning budget R = 1 exhausted; escalating with 2 failure record(s)',
      'step 40 22 run_end failed',
    ],
  );
  assert.ok(steps[0]!.endsWith(`sha ${shas[0]!.slice(0, 16)}…`));
  assert.ok(steps[3]!.endsWith(`sha ${shas[1]!.slice(0, 16)}…`));
  assert.match(
    r.out,
    new RegExp(
      `\npositions: ${small.positions.length} recorded, ${small.positions.length} in the replay; 2 plans, 5 marks, 0 rule verdicts, 1 monitor state changes\nnote: plan node positions are not recorded`,
    ),
  );
  // --positions thins what the replay sends, never what it counts.
  const few = await cli('audit', 'replay', file, small.run, '--positions', '2');
  assert.match(few.out, new RegExp(`\npositions: ${small.positions.length} recorded, 2 in the replay;`));
});

test('replay --json is the replay the console receives, positions and all', async () => {
  const file = join(dir, 'mission-json.sqlite');
  const { small } = await writeFixture(file, 0);
  const r = await cli('audit', 'replay', file, small.run.slice(0, 6), '--json', '--positions', '3');
  assert.equal(r.code, 0, r.err);
  const mine = JSON.parse(r.out) as AuditReplay;
  const browser = new AuditBrowser({ auditFile: file, workspace: dir });
  try {
    assert.deepEqual(mine, JSON.parse(JSON.stringify(browser.replay({ run: small.run, maxPositions: 3 }))));
  } finally {
    browser.close();
  }
  assert.equal(mine.positions.total, small.positions.length);
  assert.equal(mine.positions.x.length, 3);
  assert.deepEqual(
    mine.plans.map((p) => p.trigger),
    ['initial', 'replan'],
  );
  assert.ok(mine.plans.every((p) => /^[0-9a-f]{64}$/.test(p.sha)));
});

test('replay of a tool loop under rules: each verdict with its hash, a refusal once, on the time axis', async () => {
  const file = join(dir, 'rules.sqlite');
  const run = await rulesLog(file);
  const r = await cli('audit', 'replay', file, run);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n').filter((l) => l.startsWith('  '));
  assert.equal(lines.length, 4, r.out);
  assert.match(
    lines[0]!,
    /^ {2}\+0\.250 s +2 {2}rule_verdict \(predicted\) refused: rule "no-drop-while-moving" on moving \(drop\), hash [0-9a-f]{16}…$/,
  );
  assert.match(lines[1]!, /rule_verdict \(predicted\) ok \(stop\), hash /);
  assert.match(lines[2]!, /rule_verdict \(observed\) ok \(stop\), hash /);
  assert.match(lines[3]!, /^ {2}\+1\.250 s +6 {2}run_end success$/);
  assert.match(r.out, /replay on time 0–1250 ms since the start\n/);
  assert.match(r.out, /\npositions: 0 recorded, 0 in the replay; 0 plans, 2 marks, 3 rule verdicts, 0 monitor/);
  const json = JSON.parse((await cli('audit', 'replay', file, run, '--json')).out) as AuditReplay;
  assert.ok(lines[0]!.includes(`hash ${json.rules[0]!.hash.slice(0, 16)}…`));
});

test('replay of a run that is not there exits as show does, with its error; usage errors exit 2', async () => {
  const file = join(dir, 'bad.sqlite');
  await writeFixture(file, 0);
  const mine = await cli('audit', 'replay', file, 'no-such-run');
  const show = await cli('audit', 'show', file, 'no-such-run');
  assert.notEqual(mine.code, 0);
  assert.equal(mine.code, show.code);
  assert.equal(mine.err, show.err);
  assert.match(mine.err, /no run no-such-run/);
  assert.equal(mine.out, '');
  for (const [args, err] of [
    [[file], /name the run to replay/],
    [[file, 'x', '--robot', 'r'], /--robot filters a fleet store's sources/],
    [[file, 'x', '--positions', '1'], /--positions must be an integer in 2\.\.200000/],
    [['x'], /name the run to replay/],
  ] as const) {
    const r = await cli('audit', 'replay', ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, err);
  }
});

// The console's tool loop with a rules file: the rules offered, carried to the run, enforced (a refused call and the
// recovery), every verdict among the run's events and in its audit log; a rules file that does not register refused
// before anything moves, at its line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDirectApi } from '../../main/api/direct.js';
import type { ActEvent, ApiEvent } from '../../main/contract/api.js';
import { WitnessError } from '../../main/contract/errors.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { type RuleVerdict, verdictPlace } from '../../renderer/src/act/model.js';
import { rulesAt } from '../../renderer/src/audit/model.js';

const RULES = readFileSync(new URL('../../../assets/rules/warehouse.rules.json', import.meta.url), 'utf8');

function setup(): { api: ReturnType<typeof createDirectApi>; events: ApiEvent[]; audit: string; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-act-rules-'));
  const audit = path.join(dir, 'audit.sqlite');
  const api = createDirectApi({ workspace: dir, auditFile: audit });
  const events: ApiEvent[] = [];
  api.context.bus.subscribe((e) => events.push(e));
  return { api, events, audit, dir };
}

async function ended(events: ApiEvent[], run: string): Promise<Extract<ActEvent, { topic: 'act.end' }>> {
  for (let i = 0; i < 3000; i++) {
    const e = events.find((x) => x.topic === 'act.end' && x.run === run);
    if (e !== undefined) return e as Extract<ActEvent, { topic: 'act.end' }>;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the tool loop did not end');
}

const base = {
  world: 'tabletop',
  tools: 'shipped:tools',
  plan: 'shipped:plans/warehouse-rules.json',
  goal: 'objects.red_bin.on == "shelf_c4"',
};

test('the console runs the warehouse under its rules: the violating pick refused before it ran, then the recovery', async () => {
  const { api, events, dir } = setup();
  try {
    mkdirSync(path.join(dir, 'rules'));
    writeFileSync(path.join(dir, 'rules', 'mine.rules.json'), RULES);
    writeFileSync(path.join(dir, 'notes.json'), '{}');
    const o = await api.actOptions();
    assert.deepEqual(
      o.rules.map((r) => r.id),
      ['rules/mine.rules.json', 'shipped:rules/warehouse.rules.json'],
      'workspace rules files by their name, then the shipped ones',
    );
    assert.ok(o.plans.some((p) => p.id === base.plan));
    const r = await api.actRun({ ...base, rules: 'rules/mine.rules.json' });
    assert.deepEqual(
      r.rules.map((x) => x.name),
      ['clear_the_bin_first', 'place_after_pick', 'shelf_within_eight_calls'],
    );
    const end = await ended(events, r.run);
    assert.equal(end.outcome, 'success', end.reason);
    const steps = events.filter(
      (e): e is Extract<ActEvent, { topic: 'act.step' }> => e.topic === 'act.step' && e.run === r.run,
    );
    const verdicts = steps.filter((e) => e.kind === 'rule_verdict').map((e) => e.body as RuleVerdict);
    const first = verdicts[0]!;
    assert.equal(verdictPlace(first), 'refused-call', 'the first pick is refused: drawn as a call of its own');
    assert.deepEqual(
      [first.tool, first.rule, first.proposition],
      ['pick', 'clear_the_bin_first', 'lifting_loaded_bin'],
    );
    // The refusal comes before any call: nothing ran for it.
    const calls = events.filter((e) => e.topic === 'act.call' && e.run === r.run);
    assert.equal(calls.length, end.toolCalls, 'a call event for each call that ran, none for the refused one');
    const observed = verdicts.filter((v) => v.phase === 'observed');
    assert.equal(observed.length, end.toolCalls, 'a verdict on the evidence after each call that ran');
    assert.ok(observed.every((v) => v.ok && Array.isArray(v.obligations)));
    assert.ok(
      observed.some((v) => v.obligations!.some((x) => x.startsWith('place_after_pick:'))),
      'after a pick that holds something, a place is pending',
    );
  } finally {
    await api.close();
  }
});

test('a rules file the console does not offer, or one that does not register, is refused before anything moves', async () => {
  const { api, events, dir } = setup();
  try {
    const refused = async (rules: string): Promise<WitnessError> => {
      try {
        await api.actRun({ ...base, rules });
      } catch (e) {
        assert.ok(e instanceof WitnessError || e instanceof Error, String(e));
        return e as WitnessError;
      }
      throw new Error(`${rules} was accepted`);
    };
    const gone = await refused('nowhere.rules.json');
    assert.match(gone.message, /no rules file "nowhere\.rules\.json" \(the console offers: shipped:rules/);
    writeFileSync(
      path.join(dir, 'bad.rules.json'),
      RULES.replace('"placing": "call.tool == \\"place\\""', '"placing": "call.tool == \\"plase\\""'),
    );
    const bad = await refused('bad.rules.json');
    assert.match(bad.message, /bad\.rules\.json:\d+/);
    assert.match(bad.message, /"plase", which is no registered tool \(did you mean place\?\)/);
    assert.equal(events.filter((e) => e.topic === 'act.call').length, 0, 'nothing ran');
  } finally {
    await api.close();
  }
});

test('the audit log records the rules file and every verdict of the run; the replay shows each at its place, chained', async () => {
  const { api, events, audit } = setup();
  try {
    const r = await api.actRun({ ...base, rules: 'shipped:rules/warehouse.rules.json' });
    await ended(events, r.run);
    const db = openAuditReadOnly(audit);
    try {
      const meta = JSON.parse(
        (db.prepare('SELECT meta FROM runs WHERE id = ?').get(r.auditRun) as { meta: string }).meta,
      ) as Record<string, unknown>;
      assert.equal(meta['rules'], 'shipped:rules/warehouse.rules.json');
      const n = (
        db.prepare("SELECT count(*) AS n FROM events WHERE run_id = ? AND kind = 'rule_verdict'").get(r.auditRun) as {
          n: number;
        }
      ).n;
      const live = events.filter((e) => e.topic === 'act.step' && e.run === r.run && e.kind === 'rule_verdict');
      assert.equal(n, live.length, 'every verdict the tab saw is in the log');
      assert.ok(n > 0);
      // The replay: each verdict at its place, the chained event it is (seq and hash), the refusal a mark.
      const rows = db
        .prepare("SELECT seq, hash FROM events WHERE run_id = ? AND kind = 'rule_verdict' ORDER BY seq")
        .all(r.auditRun) as { seq: number; hash: string }[];
      const replay = await api.auditReplay({ run: r.auditRun! });
      assert.deepEqual(
        replay.rules.map((v) => [v.seq, v.hash]),
        rows.map((x) => [x.seq, x.hash]),
      );
      const first = replay.rules[0]!;
      assert.deepEqual(
        [first.phase, first.ok, first.tool, first.rule, first.proposition],
        ['predicted', false, 'pick', 'clear_the_bin_first', 'lifting_loaded_bin'],
      );
      assert.ok(
        replay.rules.every((v, i) => i === 0 || v.at >= replay.rules[i - 1]!.at),
        'in order on the axis',
      );
      const marks = replay.marks.filter((m) => m.kind === 'rule_verdict');
      assert.deepEqual(
        marks.map((m) => [m.seq, m.label]),
        [[first.seq, 'refused: rule "clear_the_bin_first" on lifting_loaded_bin (pick)']],
      );
      // The browser's table says each verdict in a line.
      const page = await api.auditQuery({
        filter: { run: r.auditRun!, kinds: ['rule_verdict'] },
        limit: 100,
        cursor: null,
      });
      assert.equal(page.events.length, n);
      assert.equal(
        page.events[0]!.summary,
        'pick predicted: REFUSED: rule "clear_the_bin_first" on lifting_loaded_bin',
      );
      assert.ok(page.events.some((e) => /^pick observed: ok · pending: place_after_pick: /.test(e.summary)));
      const shown = rulesAt(replay, first.at)!;
      assert.equal(shown.status, 'refused');
      assert.ok(
        shown.text.includes(`#${first.seq} (chain ${first.hash.slice(0, 12)}) predicted pick — refused`),
        shown.text,
      );
      const last = replay.rules[replay.rules.length - 1]!;
      assert.match(rulesAt(replay, replay.max)!.text, new RegExp(`verdicts? (\\d+–)?${replay.rules.length} of`));
      assert.equal(last.phase, 'observed');
      assert.equal(rulesAt(replay, first.at - 1)?.status ?? 'none', first.at > 0 ? 'none' : 'refused');
    } finally {
      db.close();
    }
  } finally {
    await api.close();
  }
});

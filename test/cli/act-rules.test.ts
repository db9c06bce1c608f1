/**
 * `witness act --rules`: the shipped warehouse rules refuse the scripted plan's first call before anything moves; the
 * loop records the refusal, replans to the plan's alternative and succeeds; every verdict is in the audit log, chained.
 * A bad rules file exits 2 with its file, line and JSON path before anything moves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { run } from '../../main/cli/main.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { assertCatalogued } from '../contract/catalogue.js';

const asset = (rel: string): string => fileURLToPath(new URL(`../../../assets/${rel}`, import.meta.url));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '',
    err = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await run(argv, { out: (s) => (out += s), err: (s) => (err += s), stdin });
  return { code, out, err };
}

const ARGS = [
  'act',
  '--world',
  'tabletop',
  '--tools',
  asset('tools'),
  '--plan',
  asset('plans/warehouse-rules.json'),
  '--goal',
  'objects.red_bin.on == "shelf_c4"',
  '--seed',
  '1',
];

test('the warehouse rules: the violating call is refused before motion, recorded, replanned, and the run succeeds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-act-rules-'));
  const db = join(dir, 'a.sqlite');
  const r = await cli(...ARGS, '--rules', asset('rules/warehouse.rules.json'), '--audit', db);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /1\. pick\(\{"target":"red_bin","approach_dz":-0\.02\}\) → rule "clear_the_bin_first" failed/);
  assert.match(r.out, /rule-refused \(transient\): the call would break rule "clear_the_bin_first"/);
  assert.match(r.out, /outcome: success/);
  const kinds = assertCatalogued(db);
  assert.ok((kinds['rule_verdict'] ?? 0) > 0);
  const a = openAuditReadOnly(db);
  try {
    const events = (
      a.prepare('SELECT kind, body FROM events ORDER BY seq').all() as { kind: string; body: string }[]
    ).map((e) => ({ kind: e.kind, body: JSON.parse(e.body) as Record<string, unknown> }));
    const first = events.findIndex((e) => e.kind === 'rule_verdict');
    assert.deepEqual(
      [
        events[first]!.body['phase'],
        events[first]!.body['ok'],
        events[first]!.body['rule'],
        events[first]!.body['proposition'],
      ],
      ['predicted', false, 'clear_the_bin_first', 'lifting_loaded_bin'],
    );
    const calls = events
      .filter((e) => e.kind === 'tool_call')
      .map((e) => (e.body['arguments'] as { target: string }).target);
    assert.equal(calls[0], 'red_bin_load', 'the refused pick of the loaded bin never reached the world');
    assert.ok(!calls.slice(0, calls.indexOf('tray')).includes('red_bin'));
    const failure = events.find((e) => e.kind === 'failure_record')!.body;
    assert.deepEqual([failure['stage'], failure['label']], ['rule', 'rule-refused']);
    assert.equal(events[first + 1]!.kind, 'failure_record');
    assert.equal(events.find((e) => e.kind === 'replan')!.body['trigger'], 'rule-refused');
    const verdicts = events.filter((e) => e.kind === 'rule_verdict');
    assert.equal(verdicts.filter((e) => e.body['phase'] === 'observed').length, calls.length, 'one per executed call');
    assert.ok(verdicts.every((e) => e.body['ok'] === true || e.body['phase'] === 'predicted'));
  } finally {
    a.close();
  }
  assert.equal((await cli('audit', 'verify', db)).code, 0, 'the chain verifies');
});

test('a bad rules file exits 2 with file:line, the JSON path and did-you-mean, before anything moves', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-act-rules-'));
  const file = join(dir, 'bad.rules.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        propositions: { picked: 'call.tool == "pik"' },
        rules: [{ name: 'r', ltl: 'G !picked' }],
      },
      null,
      2,
    ),
  );
  const r = await cli(...ARGS, '--rules', file, '--no-audit');
  assert.equal(r.code, 2, r.out + r.err);
  assert.match(
    r.err,
    /bad\.rules\.json:3: \$\.propositions\.picked: .*"pik", which is no registered tool \(did you mean pick\?\)/,
  );
  assert.equal(r.out, '');
});

test('witness bench rules: the loop with ten rules against the same loop without, per call and as a ratio', async () => {
  const r = await cli('bench', 'rules', '--calls', '20', '--runs', '1', '--json');
  assert.equal(r.code, 0, r.err);
  const rows = JSON.parse(r.out) as { config: string; calls: number; per_call_us: number; ratio: number }[];
  assert.deepEqual(
    rows.map((x) => [x.config, x.calls]),
    [
      ['no rules', 20],
      ['10 rules', 20],
    ],
  );
  assert.ok(rows.every((x) => x.per_call_us > 0 && Number.isFinite(x.ratio)));
  assert.equal(rows[0]!.ratio, 1);
});

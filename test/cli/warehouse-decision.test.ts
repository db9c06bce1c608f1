/** `witness demo warehouse` escalations answered from the command line: flags, a terminal, no operator; bad flags. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../../main/cli/main.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { queryEvents, verifyChain } from '../../main/services/audit/forensics.js';

const tmpDb = (): string => join(mkdtempSync(join(tmpdir(), 'witness-decide-')), 'a.sqlite');

/** Runs the CLI with a given stdin (a terminal or not), capturing both streams. */
async function cli(
  argv: string[],
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = Object.assign(new PassThrough(), { isTTY: false }),
): Promise<{ code: number; out: string; err: string }> {
  let out = '',
    err = '';
  const code = await run(argv, {
    out: (s) => {
      out += s;
    },
    err: (s) => {
      err += s;
    },
    stdin,
  });
  return { code, out, err };
}

function decisions(db: string): {
  decision: string;
  reason: string;
  operator: string | null;
  escalation: { n: number; cause: string; label: string };
}[] {
  const a = openAuditReadOnly(db);
  try {
    assert.equal(verifyChain(a).ok, true);
    return queryEvents(a, { kind: 'operator_decision', limit: 100 }).map(
      (e) => JSON.parse(e.body) as ReturnType<typeof decisions>[number],
    );
  } finally {
    a.close();
  }
}

test('--decision retry: the operator grants a round past R = 0, the recovery planner takes the load off, the bin reaches the shelf', async () => {
  const db = tmpDb();
  const r = await cli([
    'demo',
    'warehouse',
    '--replans',
    '0',
    '--decision',
    'retry',
    '--reason',
    'take the load off first',
    '--audit',
    db,
    '--json',
  ]);
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out) as {
    outcome: string;
    aborted: boolean;
    decisions: { decision: string; reason: string; escalation: number }[];
  };
  assert.deepEqual([j.outcome, j.aborted], ['success', false]);
  assert.deepEqual(
    j.decisions.map((d) => [d.decision, d.reason, d.escalation]),
    [['retry', 'take the load off first', 1]],
  );
  const ds = decisions(db);
  assert.equal(ds.length, 1);
  assert.deepEqual(
    [ds[0]!.decision, ds[0]!.reason, ds[0]!.escalation.n, ds[0]!.escalation.cause, ds[0]!.escalation.label],
    ['retry', 'take the load off first', 1, 'replan-budget', 'weight-limit'],
  );
  assert.equal(typeof ds[0]!.operator, 'string');
});

test('no --decision and stdin is not a terminal: abort, said on stderr, recorded in the audit log; skip goes on without the failed step', async () => {
  const db = tmpDb();
  const r = await cli(['demo', 'warehouse', '--replans', '0', '--audit', db]);
  assert.equal(r.code, 1);
  assert.match(
    r.err,
    /stdin is not a terminal and no --decision was given: aborting with reason "no operator \(stdin is not a terminal\)"/,
  );
  assert.match(
    r.out,
    /escalation #1 \(replan budget R = 0 exhausted; 1 failure record\(s\)\) → no operator decided abort: no operator \(stdin is not a terminal\)/,
  );
  assert.match(r.out, /outcome: escalated — .*; aborted by the operator: no operator \(stdin is not a terminal\)/);
  assert.deepEqual(
    decisions(db).map((d) => [d.decision, d.reason, d.operator]),
    [['abort', 'no operator (stdin is not a terminal)', null]],
  );

  const skip = await cli(['demo', 'warehouse', '--replans', '0', '--decision', 'skip', '--audit', db, '--json']);
  assert.equal(skip.code, 1);
  const j = JSON.parse(skip.out) as {
    outcome: string;
    decisions: { decision: string }[];
    failures: { tool: string; stage: string }[];
  };
  // The heavy pick is skipped; the place that followed has nothing to place (its precondition), skipped too.
  assert.equal(j.outcome, 'goal-not-met');
  assert.deepEqual(
    j.failures.map((f) => `${f.tool}:${f.stage}`),
    ['pick:postcondition', 'place:precondition'],
  );
  assert.deepEqual(
    j.decisions.map((d) => d.decision),
    ['skip', 'skip'],
  );
  assert.deepEqual(
    decisions(db).map((d) => d.decision),
    ['abort', 'skip', 'skip'],
  );
});

test('on a terminal the operator is asked (again after a wrong answer), and the answer is recorded', async () => {
  const db = tmpDb();
  const tty = Object.assign(new PassThrough(), { isTTY: true });
  tty.end('maybe\nretry\nthe load can come off\n');
  const r = await cli(['demo', 'warehouse', '--replans', '0', '--audit', db, '--json'], tty);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /the loop escalated \(#1, replan-budget\): replan budget R = 0 exhausted/);
  assert.match(
    r.err,
    /last failure: pick\(\{"target":"red_bin","approach_dz":-0\.02\}\) → postcondition "within_payload" failed/,
  );
  assert.match(r.err, /'maybe' is not one of abort, retry, skip/);
  assert.equal((JSON.parse(r.out) as { outcome: string }).outcome, 'success');
  assert.deepEqual(
    decisions(db).map((d) => [d.decision, d.reason]),
    [['retry', 'the load can come off']],
  );
  // The end of input before an answer is an abort.
  const closed = Object.assign(new PassThrough(), { isTTY: true });
  closed.end();
  const c = await cli(['demo', 'warehouse', '--replans', '0', '--no-audit'], closed);
  assert.equal(c.code, 1);
  assert.match(c.out, /decided abort: the operator closed the terminal \(end of input\)/);
});

test('bad decision flags exit 2 naming the flag and the allowed values', async () => {
  const bad = await cli(['demo', 'warehouse', '--decision', 'maybe', '--no-audit']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--decision <d>.* 'maybe' is invalid\. Allowed choices are abort, retry, skip/);
  const lone = await cli(['demo', 'warehouse', '--reason', 'because', '--no-audit']);
  assert.equal(lone.code, 2);
  assert.match(lone.err, /--reason goes with --decision \(abort\|retry\|skip\)/);
});

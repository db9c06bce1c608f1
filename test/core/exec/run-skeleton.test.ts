/**
 * The run skeleton every mission driver stands on: the trace (labels, positions, the monitor and its
 * audit events), the verdict and NCC, the records of a plan-driven run, the replanning budget and its
 * escalations, and the run's end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import type { Region } from '../../../main/core/world/regions.js';
import type { DocumentedPlan } from '../../../main/core/plan/document.js';
import type { MissionFailureRecord, OperatorDecision } from '../../../main/contract/failure.js';
import {
  type MissionAudit,
  type MissionControl,
  RunSkeleton,
  RunTrace,
  failed,
  lassoEnd,
  lassoTimes,
  nccOf,
} from '../../../main/core/exec/run-skeleton.js';
import { catalogueAudit } from '../../contract/catalogue.js';

const REGIONS: Region[] = [
  { name: 'a', kind: 'box', min: [0, 0], max: [1, 1] },
  { name: 'b', kind: 'box', min: [2, 0], max: [3, 1] },
];
const SPEC = 'G F a & G F b';
const formula = parseLtl(SPEC);
const automaton = translateFormula(formula).automaton;

type Row = { kind: string; body: unknown; step: number | undefined; failureLabel: string | undefined };

/** An audit log that keeps what it is given, each event checked against the audit catalogue. */
function recording(): MissionAudit & { rows: Row[]; plans: { t: number; trigger: string }[] } {
  const check = catalogueAudit();
  const rows: Row[] = [];
  const plans: { t: number; trigger: string }[] = [];
  return {
    rows,
    plans,
    plan: (t, trigger) => plans.push({ t, trigger }),
    event: (kind, body, o) => {
      check.event(kind, body);
      rows.push({ kind, body, step: o?.step, failureLabel: o?.failureLabel });
    },
  };
}

function record(over: Partial<MissionFailureRecord> = {}): MissionFailureRecord {
  return {
    source: 'mission',
    kind: 'tracking-timeout',
    label: 'tracking-timeout',
    t: 5,
    stream: 'prefix',
    index: 1,
    from: 'n0',
    to: 'n1',
    term: 'true',
    labels: [],
    latent: [],
    violated: 'n1',
    class: 'transient',
    action: 'penalize-edge',
    unrecoverable: false,
    rule: 'the goal to n1 timed out',
    ...over,
  };
}

/** A plan as a replan returns it: found (its prefix has 3 nodes), or not. */
const planOf = (found: boolean): DocumentedPlan =>
  ({
    result: found
      ? { status: 'ok', method: 'sagas', prefixLength: 3 }
      : { status: 'none', method: 'sagas', reason: { kind: 'no-accepting-prefix', message: 'nothing accepts' } },
    graph: { ids: [] },
    document: { status: found ? 'ok' : 'none' },
    planning_ms: 2,
  }) as unknown as DocumentedPlan;

const skeleton = (
  o: { audit?: MissionAudit; control?: MissionControl; replanning?: boolean; R?: number; signal?: AbortSignal } = {},
): RunSkeleton =>
  new RunSkeleton({
    automaton,
    formula,
    regions: REGIONS,
    lambda: 0.5,
    maxSteps: 100,
    replanning: o.replanning ?? true,
    R: o.R ?? 1,
    ...(o.audit ? { audit: o.audit } : {}),
    ...(o.control ? { control: o.control } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });

const NO_EXEC = { marks: { prefixDone: null, traversals: [] }, complete: false, steeredSteps: 0 };

test('the trace records the label and position of every step, and a monitor event only when the monitor moves', () => {
  const audit = recording();
  const trace = new RunTrace(automaton, REGIONS, audit);
  const first = trace.observe(5, 5);
  assert.deepEqual(first.label, []);
  const inA = trace.observe(0.5, 0.5);
  assert.deepEqual(inA.label, ['a']);
  const again = trace.observe(0.6, 0.5);
  assert.equal(again.changed, false);
  assert.deepEqual(trace.labels, [[], ['a'], ['a']]);
  assert.deepEqual(trace.positions, [5, 5, 0.5, 0.5, 0.6, 0.5]);
  assert.deepEqual(trace.lastLabel, ['a']);
  const events = audit.rows.filter((r) => r.kind === 'monitor_event');
  const changes = [first, inA, again].filter((s) => s.changed).length;
  assert.equal(events.length, changes);
  assert.ok(changes >= 1, 'entering a changes the monitor of G F a & G F b');
  // Each event is recorded at the step it happened on.
  const steps = [first, inA, again].flatMap((s, i) => (s.changed ? [i] : []));
  assert.deepEqual(
    events.map((e) => e.step),
    steps,
  );
});

test('the verdict judges the realised labels on the last suffix traversal; T_pre, T_suf and NCC follow the marks', () => {
  const labels = [[], ['a'], [], ['b'], ['a'], ['b'], ['a'], ['b']];
  const marks = { prefixDone: 1, traversals: [3, 5, 7] };
  const ok = lassoEnd(formula, labels, marks, 'the executor completed');
  assert.equal(ok.success, true);
  assert.equal(ok.failureMode, null);
  assert.match(ok.message, /prefix and 3 suffix traversal\(s\) realised/);
  // The last traversal's cycle (steps 6–7) never reaches b: the formula is not satisfied.
  const bad = lassoEnd(formula, [...labels.slice(0, 7), ['a']], marks, 'the waypoints were reached');
  assert.equal(bad.success, false);
  assert.equal(bad.failureMode, 'suffix');
  assert.equal(
    bad.message,
    'the waypoints were reached, but the realised label word does not satisfy the formula (finite-lasso check)',
  );
  assert.deepEqual(lassoTimes(marks), { T_pre: 1, T_suf: 2 });
  assert.deepEqual(lassoTimes({ prefixDone: 4, traversals: [] }), { T_pre: 4, T_suf: null });
  assert.equal(nccOf(true, 10, 20, 0.5, 100), 0.15);
  assert.equal(nccOf(true, 400, 400, 0.5, 100), 1, 'capped at C_max');
  assert.equal(nccOf(false, 10, 20, 0.5, 100), 1, 'a failure costs the whole budget');
  assert.equal(nccOf(true, 10, null, 0.5, 100), 1, 'no suffix time: the cost is the budget');
});

test("a run's plans, events and failure records go to its record and its audit log", () => {
  const audit = recording();
  const run = skeleton({ audit });
  run.recordPlan(planOf(true), 0, 'initial');
  assert.equal(run.plans.length, 1);
  assert.equal(run.plans[0]!.t, 0);
  assert.deepEqual(audit.plans, [{ t: 0, trigger: 'initial' }]);
  run.emit({ kind: 'waypoint', t: 3, stream: 'prefix', index: 0, node: 'n1', skipped: 0 });
  run.fail(record({ t: 4 }), 4);
  assert.equal(run.events.length, 1);
  assert.equal(run.failures.length, 1);
  assert.deepEqual(
    audit.rows.map((r) => [r.kind, r.step, r.failureLabel]),
    [
      ['checkpoint', 3, undefined],
      ['failure_record', 4, 'tracking-timeout'],
    ],
  );
});

test('within the budget a failure asks for a replan; past it, unattended, the run ends escalated and says so once', async () => {
  const audit = recording();
  const run = skeleton({ audit, R: 1 });
  assert.equal(await run.recover(record({ t: 5 }), 'prefix', 5), null, 'the first failure replans');
  assert.equal(run.replans, 1);
  assert.equal(run.replanned(planOf(true), 5, run.failures[0]!), null);
  const replan = audit.rows.find((r) => r.kind === 'replan');
  assert.deepEqual(replan?.body, {
    trigger: 'tracking-timeout',
    failure: 0,
    replan: 1,
    from_states: [...run.monitor.snapshot().states],
    prefix_nodes: 3,
  });
  const end = await run.recover(record({ t: 9, to: 'n2' }), 'prefix', 9);
  assert.ok(end !== null);
  assert.equal(end.failureMode, 'escalated');
  assert.equal(end.message, 'replanning budget R = 1 exhausted; escalating with 2 failure record(s)');
  assert.equal(end.escalation?.cause, 'replan-budget');
  assert.equal(end.escalation?.replans, 1);
  assert.equal(end.escalation?.failures.length, 2);
  assert.equal(end.escalation?.step, 9);
  assert.equal(audit.rows.filter((r) => r.kind === 'escalation').length, 0, 'not recorded before the run ends');
  const result = run.finish(end, 10, NO_EXEC);
  assert.equal(result.success, false);
  assert.equal(result.failureMode, 'escalated');
  assert.equal(result.ncc, 1);
  const escalations = audit.rows.filter((r) => r.kind === 'escalation');
  assert.equal(escalations.length, 1);
  assert.equal(escalations[0]!.step, 9, 'recorded at the step it escalates');
  const last = audit.rows[audit.rows.length - 1]!;
  assert.equal(last.kind, 'run_end');
  assert.equal(last.step, 10);
  assert.deepEqual(last.body, {
    outcome: 'failed',
    failureMode: 'escalated',
    message: end.message,
    steps: 10,
    T_pre: null,
    T_suf: null,
    ncc: 1,
    replans: 1,
  });
});

test('without replanning a failure ends the run in its stage; an unrecoverable one ends it whatever the budget', async () => {
  const plain = skeleton({ replanning: false, R: 3 });
  assert.equal(plain.budget, 0);
  const end = await plain.recover(record({ stream: 'suffix' }), 'suffix', 5);
  assert.deepEqual(end, {
    success: false,
    failureMode: 'suffix',
    message: 'tracking-timeout at n1: the goal to n1 timed out',
    escalationRecorded: false,
  });
  const run = skeleton({ R: 3 });
  const fatal = await run.recover(record({ unrecoverable: true, rule: 'no accepting continuation' }), 'prefix', 5);
  assert.deepEqual(fatal, failed('unrecoverable', 'no accepting continuation'));
  assert.equal(run.replans, 0);
  assert.equal(run.failures.length, 1);
});

test('past the budget an operator is asked: retry grants R more replans, abort ends the run with the escalation recorded once', async () => {
  const answers: OperatorDecision[] = [
    { decision: 'retry', reason: 'try again' },
    { decision: 'abort', reason: 'enough' },
  ];
  const asked: number[] = [];
  const control: MissionControl = {
    step: () => Promise.resolve({ go: true }),
    decide: (e) => {
      asked.push(e.n);
      return Promise.resolve(answers.shift()!);
    },
  };
  const audit = recording();
  const run = skeleton({ audit, control, R: 1 });
  assert.equal(await run.recover(record(), 'prefix', 1), null);
  assert.equal(await run.recover(record(), 'prefix', 2), null, 'retry: another replan');
  assert.equal(run.budget, 2);
  assert.equal(run.replans, 2);
  const end = await run.recover(record(), 'prefix', 3);
  assert.ok(end !== null);
  assert.equal(end.failureMode, 'escalated');
  assert.match(end.message, /the operator aborted: enough$/);
  assert.equal(end.escalationRecorded, true);
  assert.deepEqual(asked, [1, 2]);
  run.finish(end, 4, NO_EXEC);
  assert.equal(audit.rows.filter((r) => r.kind === 'escalation').length, 2, 'one per question, none at the end');
  assert.equal(audit.rows.filter((r) => r.kind === 'operator_decision').length, 2);
});

test('a replan that finds no plan ends the run escalated, with its plan recorded and no replan event', async () => {
  const audit = recording();
  const replanned: number[] = [];
  const control: MissionControl = {
    step: () => Promise.resolve({ go: true }),
    decide: () => Promise.resolve({ decision: 'abort', reason: 'no' }),
    replanned: (t) => replanned.push(t),
  };
  const run = skeleton({ audit, control, R: 2 });
  await run.recover(record(), 'prefix', 7);
  const end = run.replanned(planOf(false), 7, run.failures[0]!);
  assert.ok(end !== null);
  assert.equal(end.failureMode, 'escalated');
  assert.equal(end.message, 'replan 1 found no plan: nothing accepts');
  assert.equal(end.escalation?.cause, 'no-plan');
  assert.equal(end.escalation?.budget, 2);
  assert.deepEqual(audit.plans, [{ t: 7, trigger: 'replan' }]);
  assert.equal(audit.rows.filter((r) => r.kind === 'replan').length, 0);
  assert.deepEqual(replanned, []);
  assert.equal(run.replanned(planOf(true), 8, run.failures[0]!), null);
  assert.deepEqual(replanned, [8], 'the views see a plan that was found');
});

test("the run's end carries its records, its times and the operator's stop as 'stopped', not a failure", () => {
  const audit = recording();
  const run = skeleton({ audit });
  run.observe(0.5, 0.5);
  run.observe(2.5, 0.5);
  run.times.push(1, 2);
  run.disagreements.push({ t: 1, node: 'n1', planned: 0, monitor: [1] });
  const marks = { prefixDone: 0, traversals: [1] };
  const r = run.finish(failed('stopped', 'stopped by the operator'), 2, { marks, complete: false, steeredSteps: 4 });
  assert.equal(r.success, false);
  assert.equal(r.failureMode, 'stopped');
  assert.equal(r.steps, 2);
  assert.equal(r.T_pre, 0);
  assert.equal(r.T_suf, 1);
  assert.equal(r.ncc, 1);
  assert.equal(r.steeredSteps, 4);
  assert.equal(r.executorComplete, false);
  assert.deepEqual(Array.from(r.trajectory), [0.5, 0.5, 2.5, 0.5]);
  assert.deepEqual(Array.from(r.stepTimes_ms), [1, 2]);
  assert.deepEqual(r.labels, [['a'], ['b']]);
  assert.equal(r.disagreements.length, 1);
  assert.equal(r.monitorViable, true);
  const end = audit.rows.find((x) => x.kind === 'run_end');
  assert.equal((end?.body as { outcome: string }).outcome, 'stopped');
});

test("the caller's stop and the operator's both stop the run", () => {
  const caller = new AbortController(),
    operator = new AbortController();
  const control: MissionControl = {
    step: () => Promise.resolve({ go: true }),
    decide: () => Promise.resolve({ decision: 'abort', reason: 'no' }),
    signal: operator.signal,
  };
  const both = skeleton({ control, signal: caller.signal });
  assert.equal(both.stops.length, 2);
  assert.equal(both.stop?.aborted, false);
  operator.abort('E-STOP');
  assert.equal(both.stop?.aborted, true);
  assert.equal(skeleton().stop, undefined, 'no stop without a caller or an operator');
  const one = skeleton({ signal: caller.signal });
  assert.equal(one.stop, caller.signal);
});

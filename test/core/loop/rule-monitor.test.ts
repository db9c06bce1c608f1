import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerRules } from '../../../main/core/loop/rules.js';
import { RuleMonitor } from '../../../main/core/loop/rule-monitor.js';
import { predictState } from '../../../main/core/loop/predict.js';
import { runLoop, type LoopOptions } from '../../../main/core/loop/loop.js';
import { RecoveryPlanner, ScriptedPlanner, parseScript } from '../../../main/core/loop/planners.js';
import { LlmPlanner } from '../../../main/services/llm/openai-planner.js';
import { createServer } from 'node:http';
import type { Decide, Escalation } from '../../../main/contract/failure.js';
import { StepThroughWorld, VOCAB, tools } from './step-world.js';

const opts = (o: Partial<LoopOptions> = {}): LoopOptions => {
  let t = 0;
  return { replans: 2, goal: 'objects.red_mug.on == "tray"', clock: () => (t += 1), ...o };
};

const monitor = (propositions: Record<string, string>, rules: { name: string; ltl: string }[]): RuleMonitor =>
  new RuleMonitor(registerRules({ propositions, rules }, 'r.rules.json', tools(), VOCAB));

const PROPS = {
  picking: 'call.tool == "pick"',
  placing: 'call.tool == "place"',
  to_bin: 'call.tool == "place" && call.args.target == "red_bin"',
  holds_bin: 'gripper.holding == "red_bin"',
  tray_down: 'objects.tray.on == "floor"',
};

test('the predicted state: what the postconditions pin down is set, what they only constrain is open', () => {
  const w = new StepThroughWorld();
  const p = predictState(tools().get('pick')!, { target: 'red_mug' }, w.state);
  assert.equal((p.state['gripper'] as { holding: string }).holding, 'red_mug');
  assert.deepEqual([...p.unknown].sort(), ['gripper.load_N', 'gripper.payload_limit_N', 'gripper.width_cm']);
  const q = predictState(
    tools().get('place')!,
    { target: 'tray' },
    {
      ...w.state,
      gripper: { ...w.state.gripper, holding: 'red_mug' },
    },
  );
  assert.equal((q.state['objects'] as Record<string, { on: string }>)['red_mug']!.on, 'tray');
  assert.equal((q.state['gripper'] as { holding: string }).holding, '');
  assert.equal(w.state.gripper.holding, '', 'the observed state is not changed');
});

test('a call whose declared effect breaks a safety rule is refused before it runs, naming the rule and proposition', () => {
  const m = monitor(PROPS, [{ name: 'never_hold_bin', ltl: 'G !holds_bin' }]);
  const w = new StepThroughWorld();
  const v = m.predict({ tool: 'pick', args: { target: 'red_bin' } }, tools().get('pick')!, w.state);
  assert.deepEqual([v.ok, v.rule, v.proposition, v.phase], [false, 'never_hold_bin', 'holds_bin', 'predicted']);
  assert.ok(m.predict({ tool: 'pick', args: { target: 'red_mug' } }, tools().get('pick')!, w.state).ok);
  assert.deepEqual(
    m.status().map((s) => s.viable),
    [true],
    'predictions do not move the monitor',
  );
});

test('a response rule: after a pick, a second pick before a place is refused; obligations say what is pending', () => {
  const m = monitor(PROPS, [{ name: 'place_after_pick', ltl: 'G (picking -> X (!picking U placing))' }]);
  const w = new StepThroughWorld();
  const pick = { tool: 'pick', args: { target: 'red_mug' } };
  assert.ok(m.advance(pick, w.state).ok);
  assert.deepEqual(m.obligations(), ['place_after_pick: the next call must not make picking hold']);
  const v = m.predict(pick, tools().get('pick')!, w.state);
  assert.deepEqual([v.ok, v.rule, v.proposition], [false, 'place_after_pick', 'picking']);
  assert.ok(m.predict({ tool: 'place', args: { target: 'tray' } }, tools().get('place')!, w.state).ok);
});

test("pending obligations are what the calls so far added, not a safety rule's standing prohibition", () => {
  const m = monitor(PROPS, [
    { name: 'never_bin', ltl: 'G !to_bin' },
    { name: 'place_after_pick', ltl: 'G (picking -> X (!picking U placing))' },
  ]);
  const w = new StepThroughWorld();
  assert.deepEqual(m.obligations(), ['never_bin: the next call must not make to_bin hold']);
  assert.deepEqual(m.pending(), [], 'at the start nothing is pending');
  m.advance({ tool: 'pick', args: { target: 'red_mug' } }, w.state);
  assert.deepEqual(m.pending(), ['place_after_pick: the next call must not make picking hold']);
  m.advance({ tool: 'place', args: { target: 'tray' } }, w.state);
  assert.deepEqual(m.pending(), [], 'the place met it');
  assert.deepEqual(m.obligations(), ['never_bin: the next call must not make to_bin hold']);
});

test('a bounded recurrence: the last call of the window that does not place is refused', () => {
  const m = monitor(PROPS, [{ name: 'place_every_2', ltl: 'G F[<=2] placing' }]);
  const w = new StepThroughWorld();
  const pick = { tool: 'pick', args: { target: 'red_mug' } };
  assert.ok(m.predict(pick, tools().get('pick')!, w.state).ok);
  m.advance(pick, w.state);
  assert.equal(m.predict(pick, tools().get('pick')!, w.state).ok, false);
  assert.ok(m.predict({ tool: 'place', args: { target: 'tray' } }, tools().get('place')!, w.state).ok);
});

test('the loop refuses the violating call before motion, records it, replans to the alternative and succeeds', async () => {
  const plan = parseScript(
    {
      steps: [
        { tool: 'pick', args: { target: 'red_mug', approach_dz: -0.02 } },
        {
          tool: 'place',
          args: { target: 'red_bin' },
          on: { 'rule-refused': [{ tool: 'place', args: { target: 'tray' } }] },
        },
      ],
    },
    'plan.json',
  );
  const w = new StepThroughWorld();
  const kinds: string[] = [];
  const rules = monitor(PROPS, [{ name: 'nothing_in_bin', ltl: 'G !to_bin' }]);
  const r = await runLoop(tools(), w, new RecoveryPlanner(plan), 'g', opts({ rules, onEvent: (k) => kinds.push(k) }));
  assert.equal(r.outcome, 'success', r.reason);
  assert.deepEqual(
    w.calls.map((c) => (c as { args: { target: string } }).args.target),
    ['red_mug', 'tray'],
    'the refused place never reached the world',
  );
  const f = r.failures[0]!;
  assert.deepEqual(
    [f.stage, f.label, f.class, f.violated, f.rule?.proposition, f.rule?.phase],
    ['rule', 'rule-refused', 'transient', 'nothing_in_bin', 'to_bin', 'predicted'],
  );
  assert.equal(r.replans, 1);
  assert.equal(kinds.filter((k) => k === 'rule_verdict').length, 5, '3 predicted (one refused) + 2 observed');
});

class TrayKnockingWorld extends StepThroughWorld {
  override execute(skill: string, args: unknown): Promise<unknown> {
    if (skill === 'pick') this.state.objects.tray.on = 'floor';
    return super.execute(skill, args);
  }
}

test('a violation the prediction missed but the evidence shows escalates to the operator', async () => {
  const plan = parseScript({ steps: [{ tool: 'pick', args: { target: 'red_mug', approach_dz: -0.02 } }] }, 'p.json');
  const asked: Escalation[] = [];
  const decide: Decide = (e) => {
    asked.push(e);
    return Promise.resolve({ decision: 'abort', reason: 'the tray fell', operator: 'test' });
  };
  const rules = monitor(PROPS, [{ name: 'tray_stays', ltl: 'G !tray_down' }]);
  const r = await runLoop(tools(), new TrayKnockingWorld(), new RecoveryPlanner(plan), 'g', opts({ rules, decide }));
  assert.equal(r.outcome, 'escalated');
  assert.equal(asked.length, 1);
  assert.equal(asked[0]!.cause, 'rule-violation');
  assert.match(asked[0]!.reason, /rule "tray_stays" \(G !tray_down\) on tray_down/);
  const f = r.failures[0]!;
  assert.deepEqual([f.label, f.class, f.rule?.phase], ['rule-violated', 'permanent', 'observed']);
  assert.equal(r.aborted, true);
  const none = await runLoop(
    tools(),
    new TrayKnockingWorld(),
    new RecoveryPlanner(plan),
    'g',
    opts({ rules: monitor(PROPS, [{ name: 'tray_stays', ltl: 'G !tray_down' }]) }),
  );
  assert.equal(none.outcome, 'escalated', 'without an operator the run ends');
  assert.match(none.reason, /rule violation/);
});

test('the scripted and recovery planners skip a refused call (no alternative) and go on with the plan', async () => {
  const steps = {
    steps: [
      { tool: 'pick', args: { target: 'red_mug', approach_dz: -0.02 } },
      { tool: 'place', args: { target: 'red_bin' } },
      { tool: 'place', args: { target: 'tray' } },
    ],
  };
  for (const planner of [
    new ScriptedPlanner(parseScript(steps, 'p.json')),
    new RecoveryPlanner(parseScript(steps, 'p.json')),
  ]) {
    const w = new StepThroughWorld();
    const rules = monitor(PROPS, [{ name: 'nothing_in_bin', ltl: 'G !to_bin' }]);
    const r = await runLoop(tools(), w, planner, 'g', opts({ rules }));
    assert.equal(r.outcome, 'success', `${planner.constructor.name}: ${r.reason}`);
    assert.deepEqual(
      w.calls.map((c) => (c as { args: { target: string } }).args.target),
      ['red_mug', 'tray'],
    );
    assert.deepEqual(
      r.failures.map((f) => f.label),
      ['rule-refused'],
    );
  }
});

test('the LLM planner is told the rules and the pending obligations; its refused proposal comes back to it', async () => {
  const bodies: string[] = [];
  const replies = [
    { name: 'pick', arguments: '{"target": "red_mug", "approach_dz": -0.02}' },
    { name: 'pick', arguments: '{"target": "tray"}' },
    { name: 'place', arguments: '{"target": "tray"}' },
  ];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      const f = replies[bodies.length - 1] ?? { name: 'finish', arguments: '{}' };
      const message = { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: f }] };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ index: 0, finish_reason: 'tool_calls', message }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as { port: number }).port;
    const planner = new LlmPlanner(tools(), { baseUrl: `http://127.0.0.1:${port}`, model: 'm' });
    const rules = monitor(PROPS, [{ name: 'place_after_pick', ltl: 'G (picking -> X (!picking U placing))' }]);
    const r = await runLoop(tools(), new StepThroughWorld(), planner, 'g', opts({ rules }));
    assert.equal(r.outcome, 'success', r.reason);
    assert.match(bodies[0]!, /place_after_pick: G \(picking -> X \(!picking U placing\)\)/);
    assert.match(bodies[0]!, /picking := call.tool == \\"pick\\"/);
    assert.doesNotMatch(bodies[0]!, /Pending rule obligations/);
    assert.match(bodies[1]!, /Pending rule obligations: place_after_pick: the next call must not make picking hold/);
    assert.match(bodies[2]!, /"stage\\":\\"rule\\"/, 'the refused proposal is in its history');
    assert.deepEqual(
      r.failures.map((f) => [f.label, f.tool]),
      [['rule-refused', 'pick']],
    );
  } finally {
    server.close();
  }
});

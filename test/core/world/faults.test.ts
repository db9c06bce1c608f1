/**
 * Fault injection at the world's edge: each fault fires on its count and only there; counts restart with an episode;
 * the text form round-trips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { type WorldFault, faultText, parseFault, withFaults } from '../../../main/core/world/faults.js';
import { type NavState, type World, WorldError } from '../../../main/core/world/world.js';
import { WitnessError } from '../../../main/contract/errors.js';

const DT = 0.1;

/** A world that moves one metre in x per step and counts the skills it really ran. */
function fake(): World & { ran: string[] } {
  let x = 0,
    t = 0;
  const state = (): NavState => ({ observation: Float64Array.of(x, 0), pose: { x, y: 0 }, time_s: t });
  const ran: string[] = [];
  const spec = {
    id: 'fake',
    backend: 'mujoco' as const,
    description: '',
    observation: { dim: 2, names: ['x', 'y'] },
    action: { dim: 1, names: ['dx'] },
    taskSpace: { dim: 2, names: ['x', 'y'] },
    control_dt_s: DT,
  };
  return {
    spec,
    ran,
    navigation: {
      map: { bounds: { minX: 0, minY: 0, maxX: 100, maxY: 1 }, blocked: () => null, randomFree: () => [0, 0] },
      restObservation: (px, py) => Float32Array.of(px, py),
      observe: () => Promise.resolve(state()),
      reset: () => {
        x = 0;
        t = 0;
        return Promise.resolve(state());
      },
      step: () => {
        x += 1;
        t += DT;
        return Promise.resolve(state());
      },
    },
    tools: {
      vocabulary: () => ({ fields: {}, objects: [], objectFields: {}, propositions: [], skills: ['pick'] }),
      reset: () => Promise.resolve({}),
      observe: () => Promise.resolve({ ran: ran.length }),
      execute: (skill) => {
        ran.push(skill);
        return Promise.resolve({ status: 'ok', really: true });
      },
    },
    time_s: () => t,
    close: () => Promise.resolve(),
  };
}

async function drive(w: World, n: number): Promise<NavState[]> {
  const out: NavState[] = [];
  for (let i = 0; i < n; i++) out.push(await w.navigation!.step([1]));
  return out;
}

test('stuck: from step n the robot holds its pose for `steps` steps while world time goes on, then moves on from where it stopped', async () => {
  const w = withFaults(fake(), [{ at: 'step', n: 3, kind: 'stuck', steps: 2 }]);
  await w.navigation!.reset({ seed: 1 });
  const s = await drive(w, 6);
  assert.deepEqual(
    s.map((x) => x.pose.x),
    [1, 2, 2, 2, 3, 4],
  );
  assert.deepEqual(
    s.map((x) => Math.round(x.time_s / DT)),
    [1, 2, 3, 4, 5, 6],
    'time never stands still',
  );
  assert.equal(Math.round(w.time_s() / DT), 6);
  assert.equal((await w.navigation!.observe()).pose.x, 4);
  // A new episode: the count starts again, and so does the fault.
  await w.navigation!.reset({ seed: 1 });
  assert.deepEqual(
    (await drive(w, 4)).map((x) => x.pose.x),
    [1, 2, 2, 2],
  );
});

test('stuck without a length holds for the rest of the episode; observe says where it is held', async () => {
  const w = withFaults(fake(), [{ at: 'step', n: 1, kind: 'stuck' }]);
  await w.navigation!.reset({ seed: 1 });
  assert.deepEqual(
    (await drive(w, 50)).map((x) => x.pose.x),
    Array<number>(50).fill(0),
  );
  assert.equal((await w.navigation!.observe()).pose.x, 0);
  assert.equal(Math.round((await w.navigation!.observe()).time_s / DT), 50);
});

test('a step error rejects the n-th step only, with the kind asked for, naming the fault', async () => {
  const w = withFaults(fake(), [{ at: 'step', n: 2, kind: 'error', error: 'disconnected' }]);
  await w.navigation!.reset({ seed: 1 });
  await w.navigation!.step([1]);
  await assert.rejects(
    w.navigation!.step([1]),
    (e: unknown) =>
      e instanceof WorldError &&
      e.kind === 'disconnected' &&
      /step 2: injected fault step:2:error:disconnected/.test(e.message),
  );
  assert.equal((await w.navigation!.step([1])).pose.x, 2, 'the failed step did not move the robot');
});

test('a hung step answers only by its timeout, its signal or the world closing; the world is not stepped', async () => {
  const inner = fake();
  const w = withFaults(inner, [{ at: 'step', n: 2, kind: 'hang' }]);
  const nav = w.navigation!;
  await nav.reset({ seed: 1 });
  await nav.step([1]);
  const time = w.time_s();
  await assert.rejects(
    nav.step([1], { timeout_s: 0.01 }),
    (e: unknown) =>
      e instanceof WorldError &&
      e.kind === 'timeout' &&
      /step 2 \(injected fault step:2:hang\) took longer/.test(e.message),
  );
  assert.equal(w.time_s(), time, 'the hung step did not step the world');
  assert.equal((await nav.step([1])).pose.x, 2, 'the next step moves on');
  // Cancelled: aborted while it hangs, or before it starts.
  await nav.reset({ seed: 1 });
  await nav.step([1]);
  const ac = new AbortController();
  const hung = nav.step([1], { signal: ac.signal });
  ac.abort();
  await assert.rejects(hung, (e: unknown) => e instanceof WorldError && e.kind === 'cancelled');
  await nav.reset({ seed: 1 });
  await nav.step([1]);
  await assert.rejects(
    nav.step([1], { signal: AbortSignal.abort() }),
    (e: unknown) => e instanceof WorldError && e.kind === 'cancelled',
  );
  // Neither: it ends when the world closes.
  await nav.reset({ seed: 1 });
  await nav.step([1]);
  const waiting = nav.step([1]);
  await w.close();
  await assert.rejects(waiting, (e: unknown) => e instanceof WorldError && e.kind === 'closed');
});

test('skill faults fire on their attempt of their skill: an error without running it, or "ok" without acting', async () => {
  const inner = fake();
  const w = withFaults(inner, [
    { at: 'skill', skill: 'pick', attempt: 2, kind: 'error', error: 'timeout' },
    { at: 'skill', skill: 'pick', attempt: 3, kind: 'no-effect' },
  ]);
  const signal = new AbortController().signal;
  const run = (skill: string) => w.tools!.execute(skill, {}, { timeout_s: 1, signal });
  await w.tools!.reset({ seed: 1 });
  assert.deepEqual(await run('pick'), { status: 'ok', really: true });
  await assert.rejects(
    run('pick'),
    (e: unknown) => e instanceof WorldError && e.kind === 'timeout' && /skill pick \(attempt 2\)/.test(e.message),
  );
  assert.deepEqual(await run('pick'), { status: 'ok' });
  assert.deepEqual(await run('place'), { status: 'ok', really: true });
  assert.deepEqual(await run('pick'), { status: 'ok', really: true });
  assert.deepEqual(inner.ran, ['pick', 'place', 'pick'], 'the faulted attempts never reached the world');
  // Per episode.
  await w.tools!.reset({ seed: 2 });
  await run('pick');
  await assert.rejects(run('pick'));
});

test('no faults: the world itself', () => {
  const w = fake();
  assert.equal(withFaults(w, []), w);
});

test('the text form: examples, round trips, and refusals that name the flag', () => {
  assert.deepEqual(parseFault('step:40:stuck'), { at: 'step', n: 40, kind: 'stuck' });
  assert.deepEqual(parseFault('step:40:stuck:200'), { at: 'step', n: 40, kind: 'stuck', steps: 200 });
  assert.deepEqual(parseFault('step:3:hang'), { at: 'step', n: 3, kind: 'hang' });
  assert.deepEqual(parseFault('skill:pick:1:error:timeout'), {
    at: 'skill',
    skill: 'pick',
    attempt: 1,
    kind: 'error',
    error: 'timeout',
  });
  assert.deepEqual(parseFault('skill:place:2:no-effect'), {
    at: 'skill',
    skill: 'place',
    attempt: 2,
    kind: 'no-effect',
  });
  for (const bad of [
    '',
    'step',
    'step:0:stuck',
    'step:x:stuck',
    'step:1:stuck:0',
    'step:1:error:oops',
    'step:1:wobble',
    'step:1:hang:2',
    'skill::1:no-effect',
    'skill:pick:0:no-effect',
    'skill:pick:1:error',
    'skill:pick:1:no-effect:x',
    'arm:1:stuck',
  ]) {
    assert.throws(
      () => parseFault(bad),
      (e: unknown) =>
        e instanceof WitnessError && e.code === 'invalid-input' && e.message.startsWith(`--inject-fault '${bad}': `),
      bad,
    );
  }
  const fault = fc.oneof(
    fc.record({
      at: fc.constant('step' as const),
      n: fc.integer({ min: 1, max: 1e6 }),
      kind: fc.constant('stuck' as const),
      steps: fc.integer({ min: 1, max: 1e6 }),
    }),
    fc.record({
      at: fc.constant('step' as const),
      n: fc.integer({ min: 1, max: 1e6 }),
      kind: fc.constant('hang' as const),
    }),
    fc.record({
      at: fc.constant('step' as const),
      n: fc.integer({ min: 1, max: 1e6 }),
      kind: fc.constant('error' as const),
      error: fc.constantFrom('timeout' as const, 'aborted' as const, 'disconnected' as const),
    }),
    fc.record({
      at: fc.constant('skill' as const),
      skill: fc.stringMatching(/^[a-z_]{1,12}$/),
      attempt: fc.integer({ min: 1, max: 1e6 }),
      kind: fc.constant('no-effect' as const),
    }),
  );
  fc.assert(
    fc.property(fault, (f: WorldFault) => {
      assert.deepEqual(parseFault(faultText(f)), { ...f }); // fast-check builds null-prototype records
    }),
    { seed: 19, numRuns: 200 },
  );
});

// A WorkerLane: requests answered in order by one worker that keeps its state between them; a
// WitnessError crosses with its code, message and location; a request that runs away (past its time
// limit, out of memory) or is abandoned stops that worker alone, the next request gets a fresh one;
// closing fails what is pending and lets the process exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerLane } from '../../main/platform/workers.js';
import { WitnessError } from '../../main/contract/errors.js';

const URL_ = new URL('./lane-worker.js', import.meta.url);

function lane(o: { maxQueue?: number; heapMb?: number } = {}): { lane: WorkerLane; states: unknown[] } {
  const states: unknown[] = [];
  return {
    states,
    lane: new WorkerLane(URL_, null, {
      name: 'the test lane',
      ...(o.maxQueue !== undefined ? { maxQueue: o.maxQueue } : {}),
      ...(o.heapMb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: o.heapMb } } : {}),
      onState: (s) => states.push(s),
    }),
  };
}

const code = (p: Promise<unknown>): Promise<{ code: string; message: string; at?: unknown; internal?: boolean }> =>
  p.then(
    (v) => assert.fail(`expected a rejection, got ${JSON.stringify(v)}`),
    (e: unknown) =>
      e instanceof WitnessError
        ? { code: e.code, message: e.message, at: e.at }
        : { code: 'internal', message: (e as Error).message, internal: true },
  );

test('answers in order from one worker, which keeps its state; errors cross with code, message and location', async () => {
  const { lane: l, states } = lane();
  try {
    const answers = await Promise.all([1, 2, 3].map((i) => l.request('later', { i }, { timeLimitMs: 5000 })));
    assert.deepEqual(answers, [{ i: 1 }, { i: 2 }, { i: 3 }]);
    assert.deepEqual(states, [{ answered: 1 }, { answered: 2 }, { answered: 3 }]);
    const w = await code(l.request('witness', {}, { timeLimitMs: 5000 }));
    assert.deepEqual(w, {
      code: 'not-sqlite',
      message: '/x/a.sqlite: not an SQLite database',
      at: { file: '/x/a.sqlite', path: '$.file', line: 3, column: 7 },
    });
    const bug = await code(l.request('bug', {}, { timeLimitMs: 5000 }));
    assert.deepEqual([bug.internal, bug.message], [true, 'undefined is not a function']);
    assert.deepEqual(await l.request('echo', 'still the same worker', { timeLimitMs: 5000 }), 'still the same worker');
    assert.deepEqual(states.at(-1), { answered: 6 });
  } finally {
    await l.close();
  }
});

test("a request's progress reaches its caller, in order, before its answer; another request hears none of it", async () => {
  const { lane: l } = lane();
  try {
    const heard: unknown[] = [];
    const other: unknown[] = [];
    const [a, b] = await Promise.all([
      l.request('steps', 3, { timeLimitMs: 5000, progress: (p) => heard.push(p) }),
      l.request('echo', 'after', { timeLimitMs: 5000, progress: (p) => other.push(p) }),
    ]);
    assert.deepEqual([a, b], ['stepped', 'after']);
    assert.deepEqual(heard, [{ done: 1 }, { done: 2 }, { done: 3 }]);
    assert.deepEqual(other, []);
  } finally {
    await l.close();
  }
});

test('a request past its time limit stops its worker with a budget error naming it; the queue goes on in a fresh worker', async () => {
  const { lane: l, states } = lane();
  try {
    await l.request('echo', 1, { timeLimitMs: 5000 });
    const started = performance.now();
    const spin = code(l.request('spin', {}, { timeLimitMs: 300, what: 'auditQuery on /x/big.sqlite' }));
    const after = l.request('echo', 'next', { timeLimitMs: 5000 });
    const e = await spin;
    assert.equal(e.code, 'budget');
    assert.match(
      e.message,
      /^auditQuery on \/x\/big\.sqlite: stopped after 300 ms, the longest the test lane lets one request run$/,
    );
    assert.ok(performance.now() - started < 3000);
    assert.equal(await after, 'next');
    assert.deepEqual(states.slice(-2), [null, { answered: 1 }], 'the old worker gone, a fresh one answered');
  } finally {
    await l.close();
  }
});

test('a request that cannot be copied to the worker (nested 100 000 deep) is refused at once, naming it; the next is answered', async () => {
  const { lane: l, states } = lane();
  try {
    await l.request('echo', 1, { timeLimitMs: 5000 });
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    const started = performance.now();
    const refused = code(l.request('echo', deep, { timeLimitMs: 60_000, what: 'planGraph' }));
    const after = l.request('echo', 'next', { timeLimitMs: 60_000 });
    const e = await refused;
    assert.equal(e.code, 'invalid-input');
    assert.match(
      e.message,
      /^planGraph: its request cannot be passed to the test lane: Maximum call stack size exceeded$/,
    );
    assert.equal(await after, 'next');
    assert.ok(performance.now() - started < 5000, 'not held until its time limit');
    assert.deepEqual(states.at(-1), { answered: 2 }, 'the same worker answered');
  } finally {
    await l.close();
  }
});

test('abandoned: a waiting request leaves the queue, a running one stops its worker; both cancelled', async () => {
  const { lane: l } = lane();
  try {
    const running = new AbortController(),
      waiting = new AbortController();
    const spin = code(l.request('spin', {}, { timeLimitMs: 60_000, signal: running.signal }));
    const queued = code(l.request('echo', 'never', { timeLimitMs: 5000, signal: waiting.signal }));
    const third = l.request('echo', 'third', { timeLimitMs: 5000 });
    waiting.abort();
    assert.equal((await queued).code, 'cancelled');
    assert.equal(l.pending, 2);
    running.abort();
    assert.equal((await spin).code, 'cancelled');
    assert.equal(await third, 'third');
    const gone = new AbortController();
    gone.abort();
    assert.equal((await code(l.request('echo', 1, { timeLimitMs: 5000, signal: gone.signal }))).code, 'cancelled');
  } finally {
    await l.close();
  }
});

test('a worker out of memory fails its request alone (budget); the lane goes on', async () => {
  const { lane: l } = lane({ heapMb: 64 });
  try {
    const e = await code(l.request('hoard', {}, { timeLimitMs: 60_000, what: 'auditReplay on /x/a.sqlite' }));
    assert.equal(e.code, 'budget');
    assert.match(e.message, /^auditReplay on \/x\/a\.sqlite: needed more memory than the test lane may use \(64 MiB\)/);
    assert.equal(await l.request('echo', 'alive', { timeLimitMs: 5000 }), 'alive');
  } finally {
    await l.close();
  }
});

test('a full queue refuses with busy; closing cancels what is pending and refuses what comes after', async () => {
  const { lane: l, states } = lane({ maxQueue: 2 });
  const spin = code(l.request('spin', {}, { timeLimitMs: 60_000 }));
  const waiting = [
    code(l.request('echo', 1, { timeLimitMs: 5000 })),
    code(l.request('echo', 2, { timeLimitMs: 5000 })),
  ];
  const busy = await code(l.request('echo', 3, { timeLimitMs: 5000, what: 'auditRuns on /x/a.sqlite' }));
  assert.equal(busy.code, 'busy');
  assert.match(busy.message, /^auditRuns on \/x\/a\.sqlite: the test lane has 2 requests waiting already/);
  await l.close();
  for (const p of [spin, ...waiting]) {
    const e = await p;
    assert.equal(e.code, 'cancelled');
    assert.match(e.message, /the test lane closed before it was answered/);
  }
  assert.equal(states.at(-1), null);
  assert.equal((await code(l.request('echo', 4, { timeLimitMs: 5000 }))).code, 'cancelled');
});

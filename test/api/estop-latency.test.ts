// The E-STOP is never held back by an audit read or a translation: web mode as `witness web` serves it (the web
// server and the handlers on one event loop), the heaviest audit reads of a large log under way —
// the whole chain verified, the whole log exported, the run list — and an operator pressing E-STOP
// from another thread every 50 ms. Each press must be answered within 100 ms.
//
// How it is judged: the presses sent while the verification ran, at least eight of them. A read
// on the server's loop holds every one of those until it ends (seconds: each is late by what was
// left of the read), so their median is far over 100 ms. The machine this runs on is shared (two
// cores, other test processes, the read's own worker thread): one press may lose the CPU for a
// scheduler slice, so the median must be under 100 ms, at least 80 % of the presses under 100 ms,
// and none over one second.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { createDirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { startWebServer } from '../../main/api/web/server.js';
import { worldEntry } from '../../main/backends/catalogue.js';
import { writeSynthLog } from './audit-synth.js';
import { type EstopSample, startEstopProbe } from './estop-probe.js';

/** Runs in the log: its verification takes seconds here (a million-run log takes twenty: scripts/bench-estop.js). */
const RUNS = 100_000;
const now = (): number => performance.timeOrigin + performance.now();
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
};

function client(
  port: number,
  token: string,
): Promise<{
  call: (
    method: string,
    params: unknown,
  ) => Promise<{ ok: boolean; result?: unknown; error?: { code: string; message: string } }>;
  close: () => void;
}> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api?token=${token}`, { origin: `http://127.0.0.1:${port}` });
  let id = 0;
  const waiting = new Map<number, (m: { ok: boolean }) => void>();
  ws.on('message', (d: Buffer) => {
    const m = JSON.parse(d.toString()) as { id?: number; ok: boolean };
    if (m.id !== undefined) waiting.get(m.id)?.(m);
  });
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        call: (method, params) =>
          new Promise((done) => {
            waiting.set(++id, done);
            ws.send(JSON.stringify({ id, method, params }));
          }),
        close: () => ws.close(),
      }),
    );
  });
}

test('emergencyStop is answered within 100 ms while the whole chain of a large audit log is verified, the log exported and its runs listed', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'witness-estop-latency-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
  const big = path.join(root, 'big.sqlite');
  writeSynthLog(big, RUNS);
  const api = createDirectApi({ workspace: root, auditFile: path.join(root, 'session.sqlite') });
  const server = await startWebServer({ dispatch: createDispatcher(api), bus: api.context.bus, root });
  const reader = await client(server.port, server.token);
  const probe = await startEstopProbe({ port: server.port, token: server.token, intervalMs: 50 });
  let samples: EstopSample[] = [];
  let verified: Awaited<ReturnType<typeof reader.call>> | null = null;
  let readsAt = 0,
    verifiedAt = Infinity;
  let closed: Promise<void> | null = null;
  try {
    // Idle first (the first E-STOP opens the session's audit log and records the latch).
    await probe.more(6);
    const idle = probe
      .samples()
      .slice(1)
      .map((s) => s.ms);
    readsAt = now();
    const verify = reader.call('auditVerify', { file: big }).then((r) => {
      verifiedAt = now();
      verified = r;
    });
    const exported = reader.call('auditExport', { file: big, format: 'jsonl' });
    void reader.call('auditRuns', { file: big, limit: 200 });
    await probe.more(20);
    samples = await probe.stop();
    const under = samples.filter((s) => s.sentAt >= readsAt && s.sentAt < verifiedAt);
    const ms = under.map((s) => s.ms);
    t.diagnostic(
      `E-STOP answer, idle: median ${median(idle).toFixed(1)} ms, max ${Math.max(...idle).toFixed(1)} ms (${idle.length}); during the verification of ${RUNS} runs: median ${median(ms).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms (${ms.length} presses)`,
    );
    assert.ok(
      under.length >= 8,
      `${under.length} presses while the verification ran (it ended ${(verifiedAt - readsAt).toFixed(0)} ms after it started): need 8 to judge`,
    );
    assert.ok(
      median(ms) < 100,
      `median E-STOP answer ${median(ms).toFixed(1)} ms under the reads: ${ms.map((x) => x.toFixed(0)).join(', ')}`,
    );
    assert.ok(
      ms.filter((x) => x < 100).length >= 0.8 * ms.length,
      `E-STOP answers under the reads: ${ms.map((x) => x.toFixed(0)).join(', ')} ms`,
    );
    assert.ok(Math.max(...ms) < 1000, `slowest E-STOP answer ${Math.max(...ms).toFixed(0)} ms`);
    assert.ok(
      under.every((s) => s.ok),
      'every E-STOP answered, as a success',
    );
    await verify;
    assert.equal(verified!.ok, true, JSON.stringify(verified));
    assert.deepEqual(
      [(verified!.result as { ok: boolean }).ok, (verified!.result as { events: number }).events],
      [true, 2 * RUNS],
    );
    // The export of the whole log may still be under way: closing abandons it ('cancelled'), it never hangs.
    closed = api.close();
    const e = await Promise.race([exported, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000))]);
    assert.ok(e !== 'hung' && (e.ok || e.error?.code === 'cancelled'), JSON.stringify(e));
  } finally {
    if (samples.length === 0) await probe.stop();
    await (closed ?? api.close());
    reader.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
});

/** A specification whose translation takes seconds of synchronous work (eleven untils and a recurrence). */
const SLOW_SPEC = `${Array.from({ length: 11 }, (_, i) => `(a${i} U b${i})`).join(' & ')} & G F c`;

/** Propositions a0…a10, b0…b10 and c over the tabletop's fields and the call. */
function tabletopPropositions(): Record<string, string> {
  const propositions: Record<string, string> = { c: 'call.tool == "pick"' };
  for (let i = 0; i < 11; i++) {
    propositions[`a${i}`] = `objects.red_bin.on == "s${i}"`;
    propositions[`b${i}`] = `gripper.holding == "x${i}"`;
  }
  return propositions;
}

/** A rules file whose one rule is that formula. */
const slowRules = (): string =>
  JSON.stringify({ propositions: tabletopPropositions(), rules: [{ name: 'slow', ltl: SLOW_SPEC }] });

/**
 * A rules file of two rules that cannot both hold, found only once their conjunction (ten untils) is translated:
 * seconds of work, then the run is refused.
 */
function conflictingRules(): string {
  const untils = (from: number, to: number): string =>
    Array.from({ length: to - from }, (_, k) => `(a${from + k} U b${from + k})`).join(' & ');
  return JSON.stringify({
    propositions: tabletopPropositions(),
    rules: [
      { name: 'first', ltl: `${untils(0, 5)} & G F c` },
      { name: 'second', ltl: `${untils(5, 10)} & F G !c` },
    ],
  });
}

/** The presses sent between `from` and `to` judged as the other tests judge them; their answer times. */
function judge(samples: readonly EstopSample[], from: number, to: number, what: string): number[] {
  const ms = samples.filter((s) => s.sentAt >= from && s.sentAt < to).map((s) => s.ms);
  assert.ok(ms.length >= 8, `${ms.length} presses while ${what}: need 8 to judge`);
  assert.ok(median(ms) < 100, `median answer ${median(ms).toFixed(1)} ms: ${ms.map((x) => x.toFixed(0)).join(', ')}`);
  assert.ok(
    ms.filter((x) => x < 100).length >= 0.8 * ms.length,
    `answers: ${ms.map((x) => x.toFixed(0)).join(', ')} ms`,
  );
  assert.ok(Math.max(...ms) < 1000, `slowest answer ${Math.max(...ms).toFixed(0)} ms`);
  return ms;
}

test("emergencyStop is answered within 100 ms while a console mission's specification and a rules file's rules are translated", async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'witness-estop-translate-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
  const api = createDirectApi({ workspace: root, auditFile: path.join(root, 'session.sqlite') });
  const server = await startWebServer({ dispatch: createDispatcher(api), bus: api.context.bus, root });
  const editor = await client(server.port, server.token);
  const probe = await startEstopProbe({ port: server.port, token: server.token, intervalMs: 50 });
  let samples: EstopSample[] = [];
  const rules = slowRules();
  try {
    await probe.more(3);
    const from = now();
    const [planned, checked] = await Promise.all([
      editor.call('missionPlan', {
        job: 'plan-1',
        world: 'pointmaze-medium',
        spec: SLOW_SPEC,
        regions: '{"regions": []}',
      }),
      editor.call('rulesCheck', { text: rules, world: 'tabletop' }),
    ]);
    const to = now();
    samples = await probe.stop();
    // Translated, then checked: the regions are refused only once the formula's propositions are known.
    assert.equal(planned.ok, false);
    assert.match(planned.error!.message, /spec mentions a0, b0, .* which regions does not define/);
    assert.deepEqual([checked.ok, checked.result], [true, { diagnostics: [], tools: 'shipped:tools' }]);
    const ms = judge(samples, from, to, 'translating');
    t.diagnostic(
      `E-STOP answer while translating (${(to - from).toFixed(0)} ms): median ${median(ms).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms (${ms.length} presses)`,
    );
  } finally {
    if (samples.length === 0) await probe.stop();
    await api.close();
    editor.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test("the loop that answers the E-STOP answers within 100 ms while a tool loop's rules are registered for a run", async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'witness-estop-rules-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(path.join(root, 'slow.rules.json'), conflictingRules());
  const api = createDirectApi({ workspace: root, auditFile: path.join(root, 'session.sqlite') });
  const server = await startWebServer({ dispatch: createDispatcher(api), bus: api.context.bus, root });
  const operator = await client(server.port, server.token);
  // Pressing E-STOP would latch and refuse the run: its state is asked instead, answered on the same loop.
  const probe = await startEstopProbe({ port: server.port, token: server.token, intervalMs: 50, method: 'estopState' });
  let samples: EstopSample[] = [];
  try {
    // What a first run loads once per process is loaded first: the simulator's WebAssembly, the tool loop's modules
    // (each holds the loop for hundreds of milliseconds, once). Measured: what each run does, the rules registered.
    await (await worldEntry('tabletop').open()).close();
    await operator.call('actOptions', {});
    await probe.more(3);
    const from = now();
    const refused = await operator.call('actRun', {
      world: 'tabletop',
      tools: 'shipped:tools',
      plan: 'shipped:plans/warehouse.json',
      rules: 'slow.rules.json',
      goal: 'objects.red_bin.on == "shelf_c4"',
    });
    const to = now();
    samples = await probe.stop();
    // Registered in full (the conflict is known only once the conjunction is translated), so nothing runs after.
    assert.equal(refused.ok, false);
    assert.equal(refused.error?.code, 'invalid-input', JSON.stringify(refused.error));
    assert.match(refused.error?.message ?? '', /rules "first" and "second" cannot both hold/);
    const ms = judge(samples, from, to, 'registering the rules');
    t.diagnostic(
      `loop answer while registering (${(to - from).toFixed(0)} ms): median ${median(ms).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms (${ms.length} presses)`,
    );
  } finally {
    if (samples.length === 0) await probe.stop();
    await api.close();
    operator.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
});

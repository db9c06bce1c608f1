#!/usr/bin/env node
/**
 * The operator console's figures, in Chromium through the web mode (the end-to-end harness):
 *
 *  - time to first plan: Plan clicked → "Plan found" shown, with an empty backbone cache (the
 *    dataset and graph built), then again in the same session (backbone reused);
 *  - frame time with live plots at 60 Hz robot updates: a mission runs at 60 steps a second (every
 *    step a tick to the UI) while the page measures its frames; phases with the plots shown and
 *    hidden alternate in the same run, and the plots' cost is printed as ratios against the phases
 *    without them. Main-thread busy time per second comes from Chromium's own counters (CDP
 *    Performance.getMetrics TaskDuration), frame intervals from requestAnimationFrame.
 *
 * Usage: npm run build && node scripts/bench-console.js [--phase-s 5] [--rounds 2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const PHASE_S = arg('phase-s', 5);
const ROUNDS = arg('rounds', 2);

// An empty cache: the first plan builds the backbone as on a fresh machine.
const cache = mkdtempSync(path.join(tmpdir(), 'witness-bench-console-cache-'));
process.env.WITNESS_CACHE = cache;
const { openApp } = await import('../dist/test/e2e/harness.js');

const app = await openApp();
const { page } = app;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');

async function planOnce() {
  const t0 = performance.now();
  await page.click('#plan');
  await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 300_000 });
  const ms = performance.now() - t0;
  // The next plan must wait for this one's summary to be replaced.
  await page.evaluate("document.querySelector('#plan-summary .plan-status')?.classList.remove('ok')");
  return ms;
}

try {
  await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
  await page.selectOption('#world', 'pointmaze-medium');
  await page.fill('#start', '4,20');
  await page.fill('#dataset-steps', '50000');
  const cold = await planOnce();
  const warm = [];
  for (let i = 0; i < 3; i++) warm.push(await planOnce());
  console.log('Time to first plan (pointmaze-medium, start 4,20, 50k dataset steps), click → "Plan found":');
  console.log(`  empty cache (dataset + backbone built): ${f1(cold)} ms`);
  console.log(
    `  same session again (backbone reused), median of 3: ${f1(quantile(warm, 0.5))} ms  (ratio to the first: ${f2(quantile(warm, 0.5) / cold)})`,
  );

  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const busy = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return metrics.find((m) => m.name === 'TaskDuration').value * 1000;
  };

  await page.fill('#speed', '60');
  await page.fill('#replans', '100');
  // A mission that ends (success, or its step budget) is run again: every phase sees 60 Hz ticks.
  let restarts = 0;
  const ensureRunning = async () => {
    if ((await page.getAttribute('#run-state', 'data-state')) === 'running') return;
    await page.waitForSelector('#run:not([disabled])');
    await page.click('#run');
    await page.waitForSelector('#run-state[data-state="running"]');
    restarts++;
    await sleep(500);
  };
  await ensureRunning();
  restarts = 0;

  const phase = async (plotsOn) => {
    await ensureRunning();
    if (plotsOn) await page.check('#plots-show');
    else await page.uncheck('#plots-show');
    await sleep(300);
    const received0 = Number((await page.getAttribute('#mission-plots', 'data-received')) ?? 0);
    const draws0 = Number((await page.getAttribute('#mission-plots', 'data-draws')) ?? 0);
    const drawMs0 = Number((await page.getAttribute('#mission-plots', 'data-draw-ms')) ?? 0);
    const b0 = await busy();
    const t0 = performance.now();
    const frames = await page.evaluate(`new Promise((done) => {
      const out = [];
      let last = performance.now();
      const end = last + ${PHASE_S * 1000};
      const loop = (t) => {
        out.push(t - last);
        last = t;
        if (t < end) requestAnimationFrame(loop); else done(out.slice(1));
      };
      requestAnimationFrame(loop);
    })`);
    const wall = performance.now() - t0;
    const b1 = await busy();
    const state = await page.getAttribute('#run-state', 'data-state');
    const ticks = await page.evaluate(
      "Number(document.getElementById('run-live').textContent.match(/t=(\\d+)/)?.[1] ?? 0)",
    );
    const received = plotsOn
      ? Number((await page.getAttribute('#mission-plots', 'data-received')) ?? 0) - received0
      : NaN;
    const draws = Number((await page.getAttribute('#mission-plots', 'data-draws')) ?? 0) - draws0;
    const drawMs = Number((await page.getAttribute('#mission-plots', 'data-draw-ms')) ?? 0) - drawMs0;
    const points = Number((await page.getAttribute('#mission-plots', 'data-points')) ?? 0);
    return {
      plotsOn,
      frames,
      busyPerS: (b1 - b0) / (wall / 1000),
      state,
      ticks,
      received,
      wall,
      draws,
      drawMs,
      points,
    };
  };

  const phases = [];
  for (let r = 0; r < ROUNDS; r++) {
    phases.push(await phase(false));
    phases.push(await phase(true));
  }
  const lastTick = await page.evaluate(
    "Number(document.getElementById('run-live').textContent.match(/t=(\\d+)/)?.[1] ?? 0)",
  );
  if ((await page.getAttribute('#run-state', 'data-state')) === 'running') await page.click('#stop');
  const summary = (on) => {
    const ps = phases.filter((p) => p.plotsOn === on);
    const frames = ps.flatMap((p) => p.frames);
    return {
      frames: frames.length,
      mean: frames.reduce((a, b) => a + b, 0) / frames.length,
      p50: quantile(frames, 0.5),
      p95: quantile(frames, 0.95),
      max: Math.max(...frames),
      over25: frames.filter((f) => f > 25).length / frames.length,
      busy: ps.reduce((a, p) => a + p.busyPerS, 0) / ps.length,
      ok: ps.every((p) => p.state === 'running'),
    };
  };
  const off = summary(false),
    on = summary(true);
  const onPhases = phases.filter((p) => p.plotsOn);
  const tickRate = onPhases.reduce((a, p) => a + p.received, 0) / onPhases.reduce((a, p) => a + p.wall / 1000, 0);
  console.log(
    `\nFrame time with a mission at 60 steps/s (${ROUNDS} × ${PHASE_S} s per setting, alternated; ticks plotted at ${f1(tickRate)} Hz; last step ${lastTick}; missions restarted ${restarts}×):`,
  );
  console.log('  setting        frames  mean ms  p50 ms  p95 ms  max ms  >25 ms  main thread busy ms/s');
  for (const [name, s] of [
    ['plots hidden', off],
    ['plots shown', on],
  ]) {
    console.log(
      `  ${name.padEnd(13)}  ${String(s.frames).padStart(6)}  ${f1(s.mean).padStart(7)}  ${f1(s.p50).padStart(6)}  ${f1(s.p95).padStart(6)}  ${f1(s.max).padStart(6)}  ${(100 * s.over25).toFixed(1).padStart(5)}%  ${f1(s.busy).padStart(8)}`,
    );
  }
  const draws = onPhases.reduce((a, p) => a + p.draws, 0),
    drawMs = onPhases.reduce((a, p) => a + p.drawMs, 0);
  const onWall = onPhases.reduce((a, p) => a + p.wall / 1000, 0);
  console.log(
    `  plots' own redraws (4 charts, up to ${Math.max(...onPhases.map((p) => p.points))} points each): ${f1(draws / onWall)} per s, ${f2(drawMs / draws)} ms each = ${f1(drawMs / onWall)} ms/s of the main thread`,
  );
  console.log(
    `  ratios shown / hidden: mean frame ${f2(on.mean / off.mean)}, p95 frame ${f2(on.p95 / off.p95)}, main-thread busy ${f2(on.busy / off.busy)}`,
  );
  if (!on.ok || !off.ok)
    console.log('  note: a mission ended during a phase (the next phase ran it again); that phase had fewer ticks');
} finally {
  await app.close();
  rmSync(cache, { recursive: true, force: true });
}

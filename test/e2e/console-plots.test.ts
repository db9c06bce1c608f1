import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiEvent, MissionEvent } from '../../main/contract/api.js';
import { type AppUnderTest, openApp } from './harness.js';

type Tick = Extract<MissionEvent, { topic: 'mission.tick' }>;

/** Polls an expression in the page (waitForFunction would need eval, which the app's CSP refuses). */
async function until(app: AppUnderTest, expr: string, what: string, timeout_ms = 30_000): Promise<void> {
  const end = Date.now() + timeout_ms;
  while (!(await app.page.evaluate<boolean>(expr))) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Pixels of the plot's canvas close to `rgb` (a series' stroke). */
const strokePixels = (app: AppUnderTest, id: string, rgb: [number, number, number]): Promise<number> =>
  app.page.evaluate<number>(`(() => {
  const c = document.querySelector('#${id} canvas');
  const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - ${rgb[0]}) < 40 && Math.abs(px[i + 1] - ${rgb[1]}) < 40 && Math.abs(px[i + 2] - ${rgb[2]}) < 40 && px[i + 3] > 100) n++;
  return n;
})()`);

test('console: live plots of position, speed, distance to the next waypoint and automaton state at 60 robot updates a second; progress; a log filtered by level and text', async () => {
  const app = await openApp();
  const events: ApiEvent[] = [];
  const unsubscribe = app.api.context.bus.subscribe((e) => events.push(e));
  try {
    const { page } = app;
    await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
    await page.selectOption('#world', 'pointmaze-medium');
    await page.fill('#start', '4,20');
    await page.fill('#dataset-steps', '50000');
    await page.click('#plan');
    await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 60_000 });
    assert.equal(await page.getAttribute('#mission-plots', 'data-points'), '0');
    assert.equal(await page.textContent('#mission-progress'), 'no run yet');
    for (const id of ['plot-position', 'plot-speed', 'plot-distance', 'plot-automaton'])
      assert.equal(await page.locator(`#${id} canvas`).count(), 1, id);

    // 60 steps a second: every step is a tick to the UI.
    await page.fill('#speed', '60');
    await page.fill('#replans', '3');
    await page.click('#run');
    await page.waitForSelector('#run-state[data-state="running"]');
    await until(app, "Number(document.getElementById('mission-plots').dataset.received) >= 120", '120 ticks plotted');
    await page.click('#pause');
    await page.waitForSelector('#run-state[data-state="paused"]');
    const run = events.find(
      (e): e is Extract<MissionEvent, { topic: 'mission.state' }> =>
        e.topic === 'mission.state' && e.state === 'paused',
    )!.run;
    const ticks = (): Tick[] => events.filter((e): e is Tick => e.topic === 'mission.tick' && e.run === run);
    // Paused: the step in flight may still send one tick. Wait (a bounded poll) until the plots show the
    // newest tick there is, read afresh on every try, instead of sleeping for it to land.
    const newest = (): Tick => ticks().at(-1)!;
    const caughtUp = async (): Promise<boolean> => {
      const d = await page.evaluate<string>(
        '(() => { const d = document.getElementById("mission-plots").dataset; return d.lastT + "/" + d.received; })()',
      );
      return d === `${newest().t}/${ticks().length}`;
    };
    for (let i = 0; i < 600 && !(await caughtUp()); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(
      await caughtUp(),
      `the plots caught up with the ticks: the plots show ${await page.evaluate<string>(
        '(() => { const d = document.getElementById("mission-plots").dataset; return `t=${d.lastT}, ${d.received} received, ${d.draws} draws`; })()',
      )}; the server sent ${ticks().length} ticks, the newest t=${newest().t}`,
    );
    const last = newest();
    // Every tick drawn (none dropped at 60 Hz), each chart's newest point the newest tick's values.
    assert.equal(await page.getAttribute('#mission-plots', 'data-received'), String(ticks().length));
    assert.equal(
      await page.getAttribute('#mission-plots', 'data-points'),
      String(new Set(ticks().map((k) => k.t)).size),
    );
    const shown = (id: string): Promise<string | null> => page.getAttribute(`#${id}`, 'data-last');
    assert.equal(await shown('plot-position'), `${last.x},${last.y}`);
    assert.equal(await shown('plot-speed'), String(last.speed_mps));
    assert.equal(await shown('plot-distance'), String(last.distance_m));
    assert.equal(await shown('plot-automaton'), `${Math.min(...last.states)},${Math.max(...last.states)}`);
    assert.ok(last.speed_mps! > 0 && last.distance_m! > 0);
    // The lines are on the canvases in their series' colours.
    assert.ok((await strokePixels(app, 'plot-position', [0x1c, 0x7e, 0xd6])) > 50, 'x(t) drawn');
    assert.ok((await strokePixels(app, 'plot-position', [0xe8, 0x59, 0x0c])) > 50, 'y(t) drawn');
    assert.ok((await strokePixels(app, 'plot-speed', [0x2f, 0x9e, 0x44])) > 50, 'speed drawn');
    assert.ok((await strokePixels(app, 'plot-distance', [0x70, 0x48, 0xe8])) > 50, 'distance drawn');
    assert.ok((await strokePixels(app, 'plot-automaton', [0xc2, 0x25, 0x5c])) > 20, 'automaton state drawn');
    // Progress: waypoint k of n in its stream, suffix traversals of M, the elapsed time.
    const p = last.progress;
    const progress = page.locator('#mission-progress');
    assert.deepEqual(
      [
        await progress.getAttribute('data-stream'),
        await progress.getAttribute('data-index'),
        await progress.getAttribute('data-length'),
        await progress.getAttribute('data-traversals'),
        await progress.getAttribute('data-rounds'),
      ],
      [p.stream, String(p.index + 1), String(p.length), String(p.traversals), '2'],
    );
    assert.match(
      (await progress.textContent()) ?? '',
      new RegExp(
        `^${p.stream}: waypoint ${p.index + 1} of ${p.length} · suffix traversals ${p.traversals} of 2 · elapsed \\d\\d:\\d\\d$`,
      ),
    );
    await app.screenshot('console-plots-live');

    // Stop: the log has information (the start, checkpoints) and a warning (the operator's stop).
    await page.click('#pause');
    await page.waitForSelector('#run-state[data-state="running"]');
    await page.click('#stop');
    await page.waitForSelector('#mission-log li.stopped');
    await page.waitForSelector('#mission-progress[data-ended="true"]');
    assert.match((await progress.textContent()) ?? '', /^stopped after \d+ steps · elapsed \d\d:\d\d$/);
    const visible = (): Promise<string[]> =>
      page.evaluate<string[]>(
        "[...document.querySelectorAll('#mission-log li:not([hidden])')].map((l) => l.getAttribute('data-level') + ' ' + l.textContent)",
      );
    const all = await visible();
    assert.ok(
      all.some((l) => /^info INFO t=0 run started/.test(l)),
      all.join('\n'),
    );
    assert.ok(
      all.some((l) => /^warn WARN t=\d+ STOPPED: stopped by the operator/.test(l)),
      all.join('\n'),
    );
    assert.ok(all.length >= 2);
    await page.selectOption('#log-level', 'warn');
    const warnings = await visible();
    assert.ok(
      warnings.length >= 1 && warnings.every((l) => l.startsWith('warn ') || l.startsWith('error ')),
      warnings.join('\n'),
    );
    assert.equal(warnings.length, all.filter((l) => !l.startsWith('info ')).length);
    assert.equal(await page.getAttribute('#log-count', 'data-shown'), String(warnings.length));
    assert.equal(await page.getAttribute('#log-count', 'data-total'), String(all.length));
    assert.equal(await page.textContent('#log-count'), `${warnings.length} of ${all.length}`);
    await app.screenshot('console-log-warnings');
    await page.selectOption('#log-level', 'error');
    assert.deepEqual(
      await visible(),
      all.filter((l) => l.startsWith('error ')),
    );
    await page.selectOption('#log-level', 'info');
    await page.fill('#log-filter', 'run started');
    assert.deepEqual(
      (await visible()).map((l) =>
        l.replace(/\(audit run [^)]+\)/, '(audit run …)').replace(/sha256 [0-9a-f]{12}…/, 'sha256 …'),
      ),
      ['info INFO t=0 run started (audit run …): executing the plan shown, sha256 …'],
    );
    await page.fill('#log-filter', '');
    assert.equal((await visible()).length, all.length);
    // The operator can fold the plots away.
    await page.uncheck('#plots-show');
    assert.equal(await page.isVisible('#mission-plots'), false);
    await page.check('#plots-show');
    assert.equal(await page.isVisible('#mission-plots'), true);
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors, []);
  } finally {
    unsubscribe();
    await app.close();
  }
});

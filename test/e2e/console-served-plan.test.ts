/**
 * The console runs the plan it drew: for each planner chosen in the Mission tab, the plan's sha256
 * shown under the summary is the sha of the first plan event of the run's audit log, which records
 * the method chosen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { openApp } from './harness.js';

test('console: Plan then Run with LF-GAS, GA-GAS and SAGAS — the sha shown is the first plan event of each audit run, with the method chosen', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
    await page.selectOption('#world', 'pointmaze-medium');
    await page.fill('#start', '4,20');
    await page.fill('#dataset-steps', '20000');
    const shown: { method: string; sha: string }[] = [];
    for (const method of ['lf-gas', 'ga-gas', 'sagas']) {
      await page.selectOption('#method', method);
      await page.click('#plan');
      await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 120_000 });
      const sha = (await page.getAttribute('#plan-sha', 'data-sha')) ?? '';
      assert.match(sha, /^[0-9a-f]{64}$/);
      assert.equal(
        await page.getAttribute('#plan-sha', 'title'),
        `sha256 ${sha}: the plan document as served; the audit log's plan event records the same`,
      );
      assert.match(
        (await page.textContent('#plan-sha')) ?? '',
        new RegExp(`^${method} plan \\(Run executes it\\), sha256 ${sha.slice(0, 12)}…$`),
      );
      if (method === 'lf-gas') await app.screenshot('console-plan-sha');
      shown.push({ method, sha });
      await page.click('#run');
      await page.waitForSelector('#run-state[data-state="running"]');
      assert.match(
        (await page.textContent('#mission-log')) ?? '',
        new RegExp(`executing the plan shown, sha256 ${sha.slice(0, 12)}…`),
      );
      await page.click('#stop');
      await page.waitForSelector('#mission-log li.stopped, #mission-log li.ok, #mission-log li.failed', {
        timeout: 60_000,
      });
    }
    assert.equal(new Set(shown.map((s) => s.sha)).size, 3, 'three plans, three documents');
    const db = openAuditReadOnly(app.api.context.auditFile);
    try {
      const runs = db.prepare('SELECT id, meta FROM runs ORDER BY started_ms').all() as { id: string; meta: string }[];
      assert.equal(runs.length, 3);
      runs.forEach((run, i) => {
        const first = JSON.parse(
          (
            db
              .prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'plan' ORDER BY seq LIMIT 1")
              .get(run.id) as { body: string }
          ).body,
        ) as { plan_sha: string; method: string; trigger: string };
        assert.deepEqual(
          [first.trigger, first.method, first.plan_sha],
          ['initial', shown[i]!.method, shown[i]!.sha],
          `run ${i + 1} (${shown[i]!.method})`,
        );
        assert.equal((JSON.parse(run.meta) as { method: string }).method, shown[i]!.method);
      });
    } finally {
      db.close();
    }
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors, []);
  } finally {
    await app.close();
  }
});

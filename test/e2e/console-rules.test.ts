/**
 * Rules over the tool loop in the console: the warehouse example with its rules in the Tool loop tab (the violating
 * pick drawn refused where it would have happened, with the rule and proposition; the replan and the recovery after
 * it; each call's verdict beside it), the run's verdicts in the audit replay, and a broken rules file in the Editors
 * tab with its problems as markers at their lines.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AppUnderTest, openApp } from './harness.js';

const RULES = readFileSync(new URL('../../../assets/rules/warehouse.rules.json', import.meta.url), 'utf8');
/** A misspelled tool in a proposition and a misspelled proposition in a rule. */
const BROKEN = RULES.replace('"call.tool == \\"place\\""', '"call.tool == \\"plase\\""').replace(
  '"ltl": "G !lifting_loaded_bin"',
  '"ltl": "G !lifting_loaded_bim"',
);

let app: AppUnderTest;
before(async () => {
  const workspace = path.join(mkdtempSync(path.join(tmpdir(), 'witness-rules-e2e-')), 'workspace');
  mkdirSync(path.join(workspace, 'rules'), { recursive: true });
  writeFileSync(path.join(workspace, 'rules', 'broken.rules.json'), BROKEN);
  app = await openApp({ workspace });
});
after(async () => {
  await app.close();
});

test('Tool loop tab with the warehouse rules: the refused pick where it would have happened, then the recovery', async () => {
  const { page } = app;
  await page.click('#tab-act');
  await page.waitForSelector('#act-rules option[value="shipped:rules/warehouse.rules.json"]', { state: 'attached' });
  await page.selectOption('#act-plan', 'shipped:plans/warehouse-rules.json');
  await page.selectOption('#act-rules', 'shipped:rules/warehouse.rules.json');
  await page.click('#act-run');
  await page.waitForSelector('#act-outcome', { timeout: 120_000 });
  assert.match((await page.textContent('#act-outcome')) ?? '', /^SUCCESS: the goal verifier confirms the goal/);
  assert.match((await page.textContent('#act-rule-list')) ?? '', /clear_the_bin_first: G !lifting_loaded_bin/);

  // The refused pick is the first node of the call list, though it never ran; the recovery follows it.
  const calls = page.locator('#act-tree .act-call');
  const first = calls.first();
  assert.equal(await first.getAttribute('data-status'), 'refused');
  assert.equal(await first.getAttribute('data-tool'), 'pick');
  assert.equal(
    await first.locator('.act-rule').textContent(),
    'refused: rule "clear_the_bin_first" on lifting_loaded_bin',
  );
  assert.match((await first.locator('.act-node-head').textContent()) ?? '', /pick\(target=red_bin, .*not run/);
  await first.locator('.act-node-head').click();
  const details = (await first.locator('.act-details').textContent()) ?? '';
  assert.match(details, /refused before anything moved: rule "clear_the_bin_first" \(G !lifting_loaded_bin\)/);
  assert.match(details, /Rules \(predicted\)/);
  assert.match(details, /Failure record.*rule-refused \(transient\)/s);
  assert.equal(await page.locator('#act-tree .act-refused').count(), 1, 'one refusal');
  // The replan after the refusal, then the calls that recover: the load off first, the bin last, all allowed.
  const tree = (await page.textContent('#act-tree')) ?? '';
  assert.ok(tree.indexOf('replan 1') > tree.indexOf('refused: rule'), 'the replan follows the refusal');
  const ran = JSON.parse(
    await page.evaluate<string>(`JSON.stringify([...document.querySelectorAll('#act-tree .act-call')].slice(1).map((n) =>
      [n.getAttribute('data-tool'), n.getAttribute('data-status'), n.getAttribute('data-rules'),
        /target=([a-z_0-9]+)/.exec(n.querySelector('.act-node-head').textContent)?.[1] ?? '']))`),
  ) as [string, string, string, string][];
  // (A grasp that misses is retried in place: only the calls that passed are listed here.)
  assert.deepEqual(
    ran.filter((x) => x[1] === 'ok').map((x) => `${x[0]} ${x[3]}`),
    ['pick red_bin_load', 'place tray', 'pick red_bin', 'place shelf_c4'],
  );
  assert.deepEqual(
    ran[ran.length - 1]!.slice(0, 3),
    ['place', 'ok', 'ok'],
    'the bin placed on the shelf, no obligation left',
  );
  assert.ok(
    ran.some((x) => x[2] === 'pending'),
    'after a pick that holds something, a place is pending',
  );
  assert.ok(
    ran.every((x) => x[2] === 'ok' || x[2] === 'pending'),
    'every call that ran was allowed and kept the rules',
  );
  await app.screenshot('act-rules-warehouse');

  // The audit replay: the verdicts at the cursor, each with its seq and chain hash; the refusal a mark.
  await page.click('#act-audit');
  await page.waitForSelector('#tab-audit[aria-selected="true"]');
  await page.waitForSelector('#audit-scrub:not([disabled])');
  await page.evaluate(`(() => {
    const r = document.querySelector('#audit-scrub');
    r.value = r.max;
    r.dispatchEvent(new Event('input'));
  })()`);
  await page.waitForSelector('#audit-rules:not(:empty)');
  assert.match(
    (await page.textContent('#audit-rules')) ?? '',
    /^rules, verdicts? .*of \d+: #\d+ \(chain [0-9a-f]{12}\)/,
  );
  assert.match(
    (await page.getAttribute('#audit-marks', 'title')) ?? '',
    /refused: rule "clear_the_bin_first" on lifting_loaded_bin \(pick\)/,
  );
  await app.screenshot('act-rules-audit-replay');
  assert.deepEqual(app.internalErrors, []);
  assert.deepEqual(app.pageErrors, []);
});

test('Editors tab: a broken rules file has its problems marked at their lines, with did-you-mean', async () => {
  const { page } = app;
  await page.click('#tab-editors');
  await page.click('.editors-file[data-path="rules/broken.rules.json"]');
  await page.waitForSelector('.editors-tab[data-path="rules/broken.rules.json"][aria-selected="true"]');
  await page.waitForSelector('#editors-problems li.problem', { timeout: 15_000 });
  const read = `JSON.stringify([...document.querySelectorAll('#editors-problems li.problem')].map((li) =>
    [li.getAttribute('data-start-line'), li.querySelector('.message')?.textContent ?? '']))`;
  let problems: [string, string][] = [];
  for (let i = 0; i < 100 && problems.length < 2; i++) {
    problems = JSON.parse(await page.evaluate<string>(read)) as [string, string][];
    if (problems.length < 2) await page.waitForTimeout(100);
  }
  const lineOf = (needle: string): string => String(BROKEN.split('\n').findIndex((l) => l.includes(needle)) + 1);
  assert.deepEqual(
    problems.map((p) => p[0]),
    [lineOf('"plase'), lineOf('lifting_loaded_bim')],
    JSON.stringify(problems),
  );
  assert.match(problems[0]![1], /"plase", which is no registered tool \(did you mean place\?\)/);
  assert.match(problems[1]![1], /unknown proposition "lifting_loaded_bim" \(did you mean lifting_loaded_bin\?\)/);
  assert.match((await page.textContent('#editors-status')) ?? '', /against the tools of shipped:tools/);
  // The marker is drawn in the text (Monaco's squiggle), on the name.
  await page.waitForSelector('#editors-host .squiggly-error');
  await app.screenshot('editors-rules-diagnostics');
  assert.deepEqual(app.internalErrors, []);
});

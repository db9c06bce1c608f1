/**
 * The Editors tab offers the specification patterns as templates: completing a pattern's name in a .ltl file inserts
 * its formula with a tab stop per parameter; Tab moves from one to the next, and what is typed into one stop is typed
 * into each place that parameter occurs. The result is checked like any specification.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { openApp, type AppUnderTest } from './harness.js';

const WS = path.join(mkdtempSync(path.join(tmpdir(), 'witness-patterns-')), 'workspace');
mkdirSync(path.join(WS, 'specs'), { recursive: true });
writeFileSync(path.join(WS, 'specs/mission.ltl'), 'F e1\n');

let app: AppUnderTest;
before(async () => {
  app = await openApp({ workspace: WS });
});
after(async () => {
  await app.close();
});

const editorText = async (page: Page): Promise<string> =>
  (await page.locator('#editors-host .view-lines').innerText()).replace(/\u00a0/g, ' ').trim();

async function waitText(page: Page, want: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const text = await editorText(page);
    if (text === want || Date.now() > deadline) return text;
    await page.waitForTimeout(50);
  }
}

/** Clears the editor, types `prefix`, opens completion and picks the row of the pattern `name`. */
async function insertPattern(page: Page, prefix: string, name: string, shot?: string): Promise<void> {
  await page.click('#editors-host .view-lines');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(prefix);
  await page.keyboard.press('Control+Space');
  const row = page.locator('.suggest-widget.visible .monaco-list-row', {
    has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }),
  });
  await row.waitFor();
  if (shot !== undefined) await app.screenshot(shot);
  await row.click();
}

/** Waits until the status shows the automaton of `text` (as the API's check gives it), so the check is of this text. */
async function waitChecked(page: Page, text: string): Promise<void> {
  const a = (await app.api.ltlCheck({ text, world: 'pointmaze-medium' })).automaton!;
  await page
    .locator('#editors-status', {
      hasText: `automaton: ${a.states} states, ${a.edges} edges, ${a.accepting} accepting`,
    })
    .waitFor();
  assert.equal(await page.locator('#editors-problems li.problem').count(), 0);
}

/**
 * Types each value into the current tab stop and moves on with Tab; Escape leaves the snippet. What is typed can open
 * the completion list (a region's name), where Tab would accept a completion instead of moving on: it is given time to
 * open (late on a loaded machine) and closed first (Escape with the list open closes only the list).
 */
async function fillStops(page: Page, values: readonly string[]): Promise<void> {
  const suggest = page.locator('.suggest-widget.visible');
  for (const [i, v] of values.entries()) {
    await page.keyboard.type(v);
    if (i === values.length - 1) break;
    if (
      await suggest.waitFor({ timeout: 600 }).then(
        () => true,
        () => false,
      )
    ) {
      await page.keyboard.press('Escape');
      await suggest.waitFor({ state: 'hidden' });
    }
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Escape');
}

test('a robotic mission pattern from completion: ordered visit over three regions, checked', async () => {
  const { page } = app;
  await page.click('#tab-editors');
  await page.click('.editors-file[data-path="specs/mission.ltl"]');
  await page.waitForSelector('#editors-host .monaco-editor .view-lines');
  await page.locator('#editors-status', { hasText: 'automaton:' }).waitFor();

  await insertPattern(page, 'ordered', 'ordered-visit');
  assert.equal(
    await waitText(page, 'F (l1 & F (l2 & F l3)) & !l2 U l1 & !l3 U l2'),
    'F (l1 & F (l2 & F l3)) & !l2 U l1 & !l3 U l2',
  );
  await fillStops(page, ['e1', 'e2', 'e3']);
  assert.equal(
    await waitText(page, 'F (e1 & F (e2 & F e3)) & !e2 U e1 & !e3 U e2'),
    'F (e1 & F (e2 & F e3)) & !e2 U e1 & !e3 U e2',
  );
  await waitChecked(page, 'F (e1 & F (e2 & F e3)) & !e2 U e1 & !e3 U e2');
  await app.screenshot('editors-pattern-ordered-visit');
});

test('a property pattern with a scope: response before R, each parameter filled once wherever it occurs', async () => {
  const { page } = app;
  await insertPattern(page, 'response', 'response-before', 'editors-pattern-completion');
  await fillStops(page, ['e0', 'e1', 'e5']);
  const want = 'F e5 -> (e0 -> !e5 U (e1 & !e5)) U e5';
  assert.equal(await waitText(page, want), want);
  await waitChecked(page, want);
  await app.screenshot('editors-pattern-response-before');
  assert.deepEqual(app.internalErrors, []);
});

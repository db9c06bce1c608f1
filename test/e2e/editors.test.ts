import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { openApp, type AppUnderTest } from './harness.js';

const PICK = readFileSync(new URL('../../../assets/tools/pick.json', import.meta.url), 'utf8');

function workspace(files: Record<string, string>): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'witness-editors-')), 'workspace');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

async function openFile(page: Page, rel: string): Promise<void> {
  await page.click('#tab-editors');
  await page.click(`.editors-file[data-path="${rel}"]`);
  await page.waitForSelector(`.editors-tab[data-path="${rel}"][aria-selected="true"]`);
  await page.waitForSelector('#editors-host .monaco-editor .view-lines');
}

/** Replaces the editor's text by typing it (as a person would: auto-closing brackets and all). */
async function typeAll(page: Page, text: string): Promise<void> {
  await page.click('#editors-host .view-lines');
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
}

interface Problem {
  severity: string;
  owner: string;
  range: string;
  message: string;
}

/**
 * The problems list, read in one page evaluation: the list re-renders as checks finish, and reading it
 * item by item can ask for an item that has just been replaced. (A string expression: the tests'
 * tsconfig has no DOM library.)
 */
const READ_PROBLEMS = `JSON.stringify([...document.querySelectorAll('#editors-problems li.problem')].map((li) => {
  const a = (n) => li.getAttribute('data-' + n) ?? '';
  return { severity: a('severity'), owner: a('owner'), message: li.querySelector('.message')?.textContent ?? '',
    range: a('start-line') + ':' + a('start-column') + '-' + a('end-line') + ':' + a('end-column') };
}))`;

async function problems(page: Page): Promise<Problem[]> {
  return JSON.parse(await page.evaluate<string>(READ_PROBLEMS)) as Problem[];
}

/** The editor's visible text (Monaco renders spaces as no-break spaces). */
const editorText = async (page: Page): Promise<string> =>
  (await page.locator('#editors-host .view-lines').innerText()).replace(/\u00a0/g, ' ');

/**
 * The editor's text once it matches `re` (Monaco renders an accepted completion a frame later), else its text after 5
 * s.
 */
async function waitEditorText(page: Page, re: RegExp): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const text = await editorText(page);
    if (re.test(text) || Date.now() > deadline) return text;
    await page.waitForTimeout(50);
  }
}

/** Waits until the problems list satisfies `ok` (checks run a moment after typing stops). */
async function waitProblems(page: Page, ok: (ps: Problem[]) => boolean, what: string): Promise<Problem[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ps = await problems(page);
    if (ok(ps)) return ps;
    if (Date.now() > deadline) throw new Error(`${what}: problems are ${JSON.stringify(ps)}`);
    await page.waitForTimeout(100);
  }
}

async function hoverText(page: Page, token: string): Promise<string> {
  await page.mouse.move(0, 0);
  await page
    .locator('#editors-host .view-line span span', { hasText: new RegExp(`^${token}$`) })
    .first()
    .hover();
  const hover = page.locator('.monaco-hover:not(.hidden) .monaco-hover-content').first();
  await hover.waitFor({ state: 'visible', timeout: 5000 });
  return (await hover.textContent()) ?? '';
}

// One browser for the file (launching Chromium is most of an e2e test's time); each test uses its own files.
const TOOL = PICK.replace('"gripper.width_cm > 1.5"', '"gripper.widht_cm > 1.5"').replace(
  '"timeout_s": 10',
  '"timeout_s": 10,\n  "retries": 2',
);
const WS = workspace({
  'specs/patrol.ltl': 'G F (e1 & F e2)\n',
  'tools/pick.json': TOOL,
  'save/patrol.ltl': 'G F e1\n',
  'save/other.ltl': 'F e2\n',
});
let app: AppUnderTest;
before(async () => {
  app = await openApp({ workspace: WS });
});
after(async () => {
  await app.close();
});

function noCspErrors(app: AppUnderTest): void {
  assert.deepEqual(
    app.pageErrors.filter((e) => /Content Security Policy|Refused to|unsafe-eval/i.test(e)),
    [],
  );
  assert.deepEqual(app.internalErrors, []);
}

test("LTL editor: exact syntax-error range, hover with the automaton size, completion of the world's regions, unknown propositions flagged", async () => {
  const { page } = app;
  await openFile(page, 'specs/patrol.ltl');
  await page.locator('#editors-status', { hasText: 'automaton: 3 states, 8 edges, 1 accepting' }).waitFor();
  assert.match(
    (await page.textContent('#editors-status'))!,
    /^pointmaze-medium: 6 propositions \(e0, e1, e2, e3, e4, e5\)/,
  );
  assert.equal(await page.inputValue('#editors-world'), 'pointmaze-medium');
  assert.ok(await page.locator('#editors-use').isVisible());

  const hover = await hoverText(page, 'e1');
  assert.match(hover, /e1 — disk at \(20, 0\), radius 1\.5 m \(pointmaze-medium\)/);
  assert.match(hover, /Büchi automaton: 3 states, 8 edges, 1 accepting/);
  await app.screenshot('editors-ltl-hover');

  await typeAll(page, 'G (e1 & )');
  const syntax = await waitProblems(page, (ps) => ps.some((p) => p.owner === 'witness'), 'syntax error');
  assert.deepEqual(syntax, [
    { severity: 'error', owner: 'witness', range: '1:9-1:10', message: "expected a formula after '&', found ')'" },
  ]);
  // Monaco draws the squiggle a frame or more after the marker is set: wait for it to be drawn.
  await page.waitForSelector('#editors-host .squiggly-error', { state: 'attached', timeout: 10_000 });
  assert.equal((await page.locator('#editors-host .squiggly-error').count()) > 0, true);
  await app.screenshot('editors-ltl-syntax-error');

  await typeAll(page, 'F e9 & G F e1');
  const unknown = await waitProblems(page, (ps) => ps.some((p) => /e9/.test(p.message)), 'unknown proposition');
  assert.equal(unknown.length, 1);
  assert.equal(unknown[0]!.range, '1:3-1:5');
  assert.match(
    unknown[0]!.message,
    /^unknown proposition "e9" \(did you mean e\d\?\); pointmaze-medium has e0, e1, e2, e3, e4, e5$/,
  );
  assert.match(await hoverText(page, 'e9'), /unknown proposition "e9"/);

  await page.keyboard.press('End');
  await page.keyboard.type(' & F e');
  await page.keyboard.press('Control+Space');
  await page.waitForSelector('.suggest-widget.visible .monaco-list-row');
  const rows = JSON.parse(
    await page.evaluate<string>(`JSON.stringify([...document.querySelectorAll('.suggest-widget.visible .monaco-list-row')]
    .map((row) => [Number(row.getAttribute('data-index')), row.querySelector('.label-name')?.textContent ?? '']))`),
  ) as [number, string][];
  const labels = rows.sort((a, b) => a[0] - b[0]).map((r) => r[1]);
  assert.deepEqual(labels.slice(0, 6), ['e0', 'e1', 'e2', 'e3', 'e4', 'e5']);
  await app.screenshot('editors-ltl-completion');
  await page.keyboard.press('Enter');
  assert.match(await waitEditorText(page, /F e9 & G F e1 & F e0/), /F e9 & G F e1 & F e0/);
  noCspErrors(app);
});

test("LTL editor: Spot's M, ^ and 1 are read; X stays refused in a specification, at its position, with the reason", async () => {
  const { page } = app;
  await openFile(page, 'specs/patrol.ltl');
  await typeAll(page, 'G F (e1 M e2) & G (e3 ^ e4) & F 1');
  await page.locator('#editors-status', { hasText: /automaton: \d+ states/ }).waitFor();
  assert.deepEqual(await waitProblems(page, (ps) => ps.length === 0, 'M, ^ and 1 accepted'), []);
  assert.match(await hoverText(page, 'M'), /strong release/);
  await app.screenshot('editors-ltl-spot-syntax');
  await typeAll(page, 'G (e1 -> X e2)');
  const next = await waitProblems(page, (ps) => ps.some((p) => p.owner === 'witness'), 'X refused');
  assert.deepEqual(
    next.map((p) => [p.severity, p.range]),
    [['error', '1:10-1:11']],
  );
  assert.match(next[0]!.message, /the next operator X is not supported: specifications must be stutter-invariant/);
  await app.screenshot('editors-ltl-next-refused');
  noCspErrors(app);
});

test('tool editor: the JSON schema and a misspelled field in a CEL condition, with "did you mean"', async () => {
  const text = TOOL;
  const { page } = app;
  await openFile(page, 'tools/pick.json');
  assert.equal(await page.inputValue('#editors-world'), 'tabletop');
  assert.equal(await page.locator('#editors-use').isVisible(), false);
  const ps = await waitProblems(
    page,
    (p) => p.some((x) => x.owner === 'witness') && p.some((x) => x.owner === 'json'),
    'tool problems',
  );
  const line = text.split('\n').findIndex((l) => l.includes('widht')) + 1;
  const col = text.split('\n')[line - 1]!.indexOf('gripper.widht_cm') + 1;
  const cel = ps.find((p) => p.owner === 'witness')!;
  assert.equal(cel.range, `${line}:${col}-${line}:${col + 'gripper.widht_cm'.length}`);
  assert.equal(
    cel.message,
    '$.postconditions[0].expr: unknown field "gripper.widht_cm" (did you mean gripper.width_cm?)',
  );
  const schema = ps.filter((p) => p.owner === 'json');
  assert.equal(schema.length, 1, JSON.stringify(schema));
  assert.match(schema[0]!.message, /retries/);
  assert.match((await page.textContent('#editors-status')) ?? '', /^tabletop: skills pick, place, move/);
  await app.screenshot('editors-tool-check');

  // A new tool file starts from a template that registers cleanly; conditions complete the world's fields.
  await page.click('#editors-new');
  await page.locator('dialog.editors-dialog[open] input.path-input').fill('tools/place2.json');
  await page.locator('dialog.editors-dialog[open] [data-choice="ok"]').click();
  await page.waitForSelector('.editors-tab[data-path="tools/place2.json"][aria-selected="true"]');
  const created = readFileSync(path.join(WS, 'tools/place2.json'), 'utf8');
  assert.match(created, /"name": "place2"/);
  assert.deepEqual((await app.api.toolCheck({ text: created, world: 'tabletop' })).diagnostics, []);
  await page.waitForSelector('.editors-file[data-path="tools/place2.json"]');
  await page.click('#editors-host .view-lines');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText('{\n  "postconditions": [{ "name": "held", "expr": "gripper.');
  await page.keyboard.press('Control+Space');
  await page.locator('.suggest-widget.visible .monaco-list-row', { hasText: 'gripper.width_cm' }).waitFor();
  await page.locator('.suggest-widget.visible .monaco-list-row', { hasText: 'gripper.load_N' }).click();
  assert.match(await waitEditorText(page, /"expr": "gripper\.load_N/), /"expr": "gripper\.load_N/);
  noCspErrors(app);
});

test('saving: Ctrl+S writes the file, a change on disk opens the conflict dialog, unsaved edits are never dropped silently', async () => {
  const ws = WS;
  const file = path.join(ws, 'save/patrol.ltl');
  const { page } = app;
  await openFile(page, 'save/patrol.ltl');
  await typeAll(page, 'G F (e1 & F e3)');
  await page.waitForSelector('.editors-tab.dirty[data-path="save/patrol.ltl"]');
  await page.waitForSelector('.editors-file.dirty[data-path="save/patrol.ltl"]');
  // Twice in a row: the second save waits for the first and is not mistaken for a conflict. Both report
  // "Saved" (counted as the status line is written), and only then is the absence of a dialog checked.
  await page.evaluate(`(() => {
    const status = document.querySelector('#status');
    window.__savedCount = 0;
    new MutationObserver(() => {
      if (/^Saved save\\/patrol\\.ltl$/.test(status.textContent)) window.__savedCount++;
    }).observe(status, { childList: true, characterData: true, subtree: true });
  })()`);
  await page.keyboard.press('Control+S');
  await page.keyboard.press('Control+S');
  await page.waitForSelector('.editors-tab[data-path="save/patrol.ltl"]:not(.dirty)');
  assert.equal(readFileSync(file, 'utf8'), 'G F (e1 & F e3)');
  for (let i = 0; i < 500 && (await page.evaluate<number>('window.__savedCount')) < 2; i++)
    await page.waitForTimeout(20);
  assert.ok((await page.evaluate<number>('window.__savedCount')) >= 2, 'both saves report "Saved"');
  assert.equal(await page.locator('dialog.editors-dialog[open]').count(), 0);

  // Somebody else changes the file; saving mine asks instead of overwriting.
  writeFileSync(file, 'G F e4\n');
  await page.click('#editors-host .view-lines');
  await page.keyboard.press('End');
  await page.keyboard.type(' & F e2');
  await page.keyboard.press('Control+S');
  const dialog = page.locator('dialog.editors-dialog[open]');
  await dialog.waitFor();
  assert.match(
    (await dialog.textContent()) ?? '',
    /save\/patrol\.ltl: the file changed on disk since it was opened\. Your edits are not saved yet\./,
  );
  await app.screenshot('editors-save-conflict');
  assert.equal(readFileSync(file, 'utf8'), 'G F e4\n');
  await dialog.locator('[data-choice="save-as"]').click();
  await page.locator('dialog.editors-dialog[open] input.path-input').fill('save/patrol-mine.ltl');
  await page.locator('dialog.editors-dialog[open] [data-choice="ok"]').click();
  await page.waitForSelector('.editors-tab[data-path="save/patrol-mine.ltl"][aria-selected="true"]');
  assert.equal(readFileSync(path.join(ws, 'save/patrol-mine.ltl'), 'utf8'), 'G F (e1 & F e3) & F e2');
  assert.equal(readFileSync(file, 'utf8'), 'G F e4\n');
  assert.equal(await page.locator('.editors-tab[data-path="save/patrol.ltl"]').count(), 0);

  // Unsaved edits survive switching files; closing or reloading asks first.
  await page.click('#editors-host .view-lines');
  await page.keyboard.press('End');
  await page.keyboard.type(' & F e5');
  await openFile(page, 'save/other.ltl');
  await page.click('.editors-tab[data-path="save/patrol-mine.ltl"]');
  await page.locator('#editors-host .view-lines', { hasText: 'F e2 & F e5' }).waitFor();
  await page.click('#editors-reload');
  await page.locator('dialog.editors-dialog[open] [data-choice="cancel"]').click();
  await page.click('.editors-tab[data-path="save/patrol-mine.ltl"] .close');
  const ask = page.locator('dialog.editors-dialog[open]');
  assert.match((await ask.textContent()) ?? '', /Save your changes to save\/patrol-mine\.ltl before closing it\?/);
  await app.screenshot('editors-unsaved-close');
  await ask.locator('[data-choice="cancel"]').click();
  assert.equal(await page.locator('.editors-tab.dirty[data-path="save/patrol-mine.ltl"]').count(), 1);
  assert.equal(readFileSync(path.join(ws, 'save/patrol-mine.ltl'), 'utf8'), 'G F (e1 & F e3) & F e2');

  // "Use in mission" hands the text (unsaved edits included) to the console and shows it.
  await page.click('#editors-use');
  await page.waitForSelector('#tab-mission[aria-selected="true"]');
  assert.match(
    (await page.textContent('#status')) ?? '',
    /save\/patrol-mine\.ltl sent to the mission console \(with unsaved edits\)/,
  );

  // Leaving the page with unsaved edits asks the browser to confirm.
  const before = new Promise<string>((resolve) =>
    page.once('dialog', (d) => {
      resolve(d.type());
      void d.dismiss();
    }),
  );
  await page.close({ runBeforeUnload: true });
  assert.equal(await before, 'beforeunload');
  noCspErrors(app);
});

/**
 * The console at a 1024 × 768 window: the editor's open tabs show their whole names, and the live plots under the
 * maze keep their titles whole and apart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApp } from './harness.js';

const PICK = readFileSync(new URL('../../../assets/tools/pick.json', import.meta.url), 'utf8');

interface Clip {
  name: string;
  clipped: boolean;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Each element's text and whether it is cut: wider than its box, or outside its container's box. */
const clips = (items: string, container: string): string => `JSON.stringify((() => {
  const c = document.querySelector(${JSON.stringify(container)}).getBoundingClientRect();
  return [...document.querySelectorAll(${JSON.stringify(items)})].map((e) => {
    const b = e.getBoundingClientRect();
    return { name: e.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom,
      clipped: e.scrollWidth > e.clientWidth + 1 || b.left < c.left - 1 || b.right > c.right + 1 || b.width === 0 };
  });
})())`;

const overlap = (a: Clip, b: Clip): boolean =>
  a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;

test('layout at 1024 px: the editor tabs show their whole names, and the plot titles are whole and apart', async () => {
  const app = await openApp({ viewport: { width: 1024, height: 768 } });
  try {
    const { page } = app;
    const files = ['tools/pick_from_shelf.json', 'tools/place_on_shelf.json', 'specs/patrol_all_rooms.ltl'];
    for (const f of files) {
      mkdirSync(path.dirname(path.join(app.workspace, f)), { recursive: true });
      writeFileSync(path.join(app.workspace, f), f.endsWith('.ltl') ? 'G F e1 & G F e4' : PICK);
    }
    await page.click('#tab-editors');
    for (const f of files) {
      await page.click(`.editors-file[data-path="${f}"]`);
      await page.waitForSelector(`.editors-tab[data-path="${f}"][aria-selected="true"]`);
    }
    const tabs = JSON.parse(await page.evaluate<string>(clips('.editors-tab .name', '.editors-tabs'))) as Clip[];
    assert.equal(tabs.length, files.length);
    assert.deepEqual(
      tabs.filter((t) => t.clipped).map((t) => t.name),
      [],
      'every tab name is shown whole',
    );
    await app.screenshot('layout-editors-1024');

    await page.click('#tab-mission');
    await page.waitForSelector('#mission-plots .plot .u-title');
    const titles = JSON.parse(
      await page.evaluate<string>(clips('#mission-plots .u-title', '#mission-plots')),
    ) as Clip[];
    assert.equal(titles.length, 4);
    assert.deepEqual(
      titles.filter((t) => t.clipped).map((t) => t.name),
      [],
      'every plot title is shown whole',
    );
    for (const [i, a] of titles.entries())
      for (const b of titles.slice(i + 1)) assert.ok(!overlap(a, b), `"${a.name}" and "${b.name}" overlap`);
    await app.screenshot('layout-plots-1024');
    assert.deepEqual(app.pageErrors, []);
  } finally {
    await app.close();
  }
});

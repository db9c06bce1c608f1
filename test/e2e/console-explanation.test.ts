/**
 * The Mission tab says why a mission cannot be planned: the conjuncts that cannot hold together,
 * listed under the planner's reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.js';

test('console: an infeasible mission lists the conjuncts that conflict', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
    await page.selectOption('#world', 'pointmaze-medium');
    await page.fill('#spec', 'G F e1 & F e2 & G !e2');
    await page.fill('#start', '4,20');
    await page.fill('#dataset-steps', '50000');
    await page.click('#plan');
    await page.waitForSelector('#plan-summary .plan-status.infeasible', { timeout: 120_000 });
    assert.equal(
      await page.textContent('#plan-why'),
      'Why: these 2 conjuncts contradict each other: no graph can meet them together',
    );
    assert.deepEqual(await page.locator('.plan-why-items li').allTextContents(), [
      'conjunct 2: F e2',
      'conjunct 3: G !e2',
    ]);
    // A contradiction names no region and no cut: the world view draws nothing for it.
    assert.equal(await page.isHidden('#why-legend'), true);
    assert.equal(await page.getAttribute('#mission-graph', 'data-why-cut'), '0');
    await app.screenshot('console-explanation');
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

// A band across the whole maze between the start (top rows) and e1 (the bottom right corner): every path to e1
// crosses it, so "never w" forbids every plan to e1.
const BAND = { name: 'w', kind: 'box', min: [-2, 8], max: [22, 12] };

test('console: the world view draws the forbidden region, the cut every plan would cross, and a legend', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
    await page.selectOption('#world', 'pointmaze-medium');
    const regions = JSON.parse(await page.inputValue('#regions')) as { regions: unknown[] };
    await page.fill('#regions', JSON.stringify({ ...regions, regions: [...regions.regions, BAND] }));
    await page.fill('#spec', 'F e1 & G !w');
    await page.fill('#start', '4,20');
    await page.fill('#dataset-steps', '50000');
    assert.equal(await page.isHidden('#why-legend'), true);
    await page.click('#plan');
    await page.waitForSelector('#plan-summary .plan-status.infeasible', { timeout: 120_000 });
    const view = page.locator('#mission-graph');
    const drawn = async (k: string): Promise<number> => Number(await view.getAttribute(`data-${k}`));
    const forbidden = await drawn('why-forbidden');
    const cut = await drawn('why-cut');
    const cutEdges = await drawn('why-cut-edges');
    assert.ok(forbidden > 0, 'the forbidden region is drawn');
    assert.ok(cut > 0 && cut <= forbidden, `the cut is drawn (${cut} of ${forbidden} nodes)`);
    assert.ok(cutEdges >= cut, `each cut node is entered by an edge (${cutEdges})`);
    const legend = await page.locator('#why-legend li').allTextContents();
    assert.deepEqual(legend, [
      `"w" forbidden on every path: ${forbidden} nodes`,
      `the cut: ${cut} node${cut === 1 ? '' : 's'} every plan would cross, ${cutEdges} edges into them`,
    ]);
    // The cut's edges are drawn where their nodes are, in the cut's colour.
    const colours = await page.evaluate(() => {
      const m = (globalThis as unknown as { __witnessTest: { mission: { graph: { cy: import('cytoscape').Core } } } })
        .__witnessTest.mission;
      return m.graph.cy.edges('.why-cut-edge').map((e) => e.style('line-color') as string);
    });
    assert.equal(colours.length, cutEdges);
    await app.screenshot('console-explanation-cut');
    // Close up: a cut node and the edges into it.
    const focused = await page.evaluate(() => {
      const g = (
        globalThis as unknown as {
          __witnessTest: { mission: { graph: { cy: import('cytoscape').Core; focus(id: string): boolean } } };
        }
      ).__witnessTest.mission.graph;
      const i = g.cy.nodes('.why-cut').first().data('index') as number;
      const id = (g as unknown as { scene(): { nodes: { id: string }[] } }).scene().nodes[i]!.id;
      return g.focus(id);
    });
    assert.equal(focused, true);
    await app.screenshot('console-explanation-cut-close');
    // A feasible mission clears the drawing and the legend.
    await page.fill('#spec', 'F e1');
    await page.click('#plan');
    await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 120_000 });
    assert.equal(await drawn('why-cut'), 0);
    assert.equal(await drawn('why-cut-edges'), 0);
    assert.equal(await page.isHidden('#why-legend'), true);
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

test('console: a region that labels no place is named in the legend, with nothing drawn for it', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
    await page.selectOption('#world', 'pointmaze-medium');
    const regions = JSON.parse(await page.inputValue('#regions')) as { regions: unknown[] };
    // Inside a wall: no state of the dataset lies there.
    const wall = { name: 'q', kind: 'disk', center: [8, 0], radius: 0.5 };
    await page.fill('#regions', JSON.stringify({ ...regions, regions: [...regions.regions, wall] }));
    await page.fill('#spec', 'F e1 & F q');
    await page.fill('#start', '4,20');
    await page.fill('#dataset-steps', '50000');
    await page.click('#plan');
    await page.waitForSelector('#plan-summary .plan-status.infeasible', { timeout: 120_000 });
    assert.deepEqual(await page.locator('#why-legend li').allTextContents(), [
      '"q" is labelled nowhere: no node of the graph to mark',
    ]);
    const view = page.locator('#mission-graph');
    assert.equal(await view.getAttribute('data-why-cut'), '0');
    assert.equal(await view.getAttribute('data-why-unreachable'), '0');
    assert.equal(await view.getAttribute('data-why-forbidden'), '0');
    await app.screenshot('console-explanation-nowhere');
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

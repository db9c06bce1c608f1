/**
 * Why a plan cannot be made, in the console: the Graph tab plans a specification whose two conjuncts
 * conflict (a goal behind a forbidden region), says why in its plan line, and draws the cut — the
 * forbidden nodes around what the start reaches — with a dashed red border.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApp } from './harness.js';

// The goal a lies behind the door b; c is reachable without crossing it; z is reachable from nowhere.
const GRAPH = {
  nodes: [
    { id: 's', pos: [0, 0] },
    { id: 'b1', labels: ['b'], pos: [1, 0.5] },
    { id: 'b2', labels: ['b'], pos: [1, -0.5] },
    { id: 'a', labels: ['a'], pos: [2, 0] },
    { id: 'c', labels: ['c'], pos: [0, 1] },
    { id: 'z', labels: ['z'], pos: [2, 1] },
  ],
  edges: [
    { from: 's', to: 'b1', weight: 1 },
    { from: 's', to: 'b2', weight: 1 },
    { from: 'b1', to: 'a', weight: 1 },
    { from: 'b2', to: 'a', weight: 1 },
    { from: 's', to: 'c', weight: 1 },
  ],
  start: 's',
};

test('an infeasible plan says which conjuncts conflict and draws the cut on the graph', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    const loadErrors = app.pageErrors.length;
    mkdirSync(path.join(app.workspace, 'graphs'), { recursive: true });
    writeFileSync(path.join(app.workspace, 'graphs', 'door.json'), JSON.stringify(GRAPH));
    await page.click('#tab-graph');
    await page.fill('#graph-path', 'graphs/door.json');
    await page.fill('#graph-spec', 'F c & F a & G !b');
    await page.click('#graph-open');
    await page.waitForSelector('#graph-view[data-why-cut="2"]');
    const status = (await page.textContent('#graph-status')) ?? '';
    assert.match(status, /infeasible: .*Why: the conjuncts F a and G !b cannot hold together on this graph/);
    const cut = await page.evaluate(() => {
      const g = (globalThis as unknown as { __witnessTest: { graph: { view: { cy: import('cytoscape').Core } } } })
        .__witnessTest.graph;
      return g.view.cy.nodes('.why-cut').map((n) => n.style('border-color') as string);
    });
    assert.equal(cut.length, 2);
    // The edges from the start into the cut (s–b1, s–b2); those from the goal's side are not the cut.
    assert.equal(await page.getAttribute('#graph-view', 'data-why-cut-edges'), '2');
    await app.screenshot('plan-explanation-cut');
    // A feasible spec clears the cut.
    await page.fill('#graph-spec', 'F c & F a');
    await page.click('#graph-open');
    await page.waitForSelector('#graph-view[data-why-cut="0"]');
    assert.match((await page.textContent('#graph-status')) ?? '', /plan: prefix/);
    // A region only an island carries: drawn as unreachable, with no cut.
    await page.fill('#graph-spec', 'F z');
    await page.click('#graph-open');
    await page.waitForSelector('#graph-view[data-why-unreachable="1"]');
    assert.equal(await page.getAttribute('#graph-view', 'data-why-cut'), '0');
    assert.equal(await page.getAttribute('#graph-view', 'data-why-cut-edges'), '0');
    await app.screenshot('plan-explanation-unreachable');
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors.slice(loadErrors), []);
  } finally {
    await app.close();
  }
});

// A maze scene's region names and its anchors' labels do not overlap on screen: each region's name
// (in the world picture) is measured where the browser draws it, each anchor's label where
// Cytoscape draws it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GraphScene, SceneNode } from '../../main/contract/api.js';
import type { Region } from '../../main/core/world/regions.js';
import { MAZES, mazeBounds } from '../../main/core/world/maze.js';
import { mazePicture } from '../../main/services/ui/scene.js';
import { regionColours } from '../../main/core/world/svg.js';
import { openApp } from './harness.js';

interface Box {
  id: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

const REGIONS: Region[] = [
  { name: 'e0', kind: 'disk', center: [0, 0], radius: 1.5 },
  { name: 'e1', kind: 'disk', center: [20, 0], radius: 1.5 },
  { name: 'e2', kind: 'disk', center: [8, 8], radius: 1.5 },
  { name: 'dock', kind: 'rect', min: [14, 14], max: [18, 18] },
] as Region[];

/** Anchors at their regions' centres (where a region's name used to be drawn), and a few plain nodes. */
function labelScene(): GraphScene {
  const layout = MAZES.medium;
  const centre = (r: Region): [number, number] =>
    r.kind === 'disk' ? [r.center[0], r.center[1]] : [(r.min[0] + r.max[0]) / 2, (r.min[1] + r.max[1]) / 2];
  const nodes: SceneNode[] = REGIONS.map((r) => {
    const [x, y] = centre(r);
    return { id: `anchor:${r.name}:0`, x, y, kind: 'anchor', labels: [r.name], soft: {}, support: 0, anchorOf: r.name };
  });
  nodes.push({ id: 'start', x: 4, y: 20, kind: 'start', labels: [], soft: {}, support: 0 });
  return {
    world: 'label test',
    bounds: mazeBounds(layout),
    picture: mazePicture(layout, 'label test', REGIONS),
    yDown: true,
    propositions: REGIONS.map((r) => r.name),
    nodes,
    edges: [],
    colours: Object.fromEntries(regionColours(REGIONS)),
  };
}

const overlap = (a: Box, b: Box): boolean => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

test('region names in a maze picture are drawn clear of the anchors’ labels', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await page.click('#tab-graph');
    const scene = labelScene();
    await page.evaluate(
      (m) =>
        (globalThis as unknown as { __witnessTest: { graph: { post(m: unknown): void } } }).__witnessTest.graph.post(m),
      { kind: 'scene', scene, plan: null, automaton: null },
    );
    await page.waitForSelector('#graph-view[data-picture="shown"]');
    // The picture laid over its own box in the page, so the browser places its text; the anchors' label boxes.
    const boxes = await page.evaluate<{ regions: Box[]; anchors: Box[] }>(`(() => {
      const g = globalThis.__witnessTest.graph.view;
      const pb = g.pictureBox();
      const holder = document.createElement('div');
      holder.style.cssText = 'position:fixed;opacity:0;pointer-events:none;left:' + pb.left + 'px;top:' + pb.top + 'px;width:' + (pb.right - pb.left) + 'px;height:' + (pb.bottom - pb.top) + 'px';
      holder.innerHTML = ${JSON.stringify(scene.picture!)}.replace('<svg ', '<svg width="100%" height="100%" preserveAspectRatio="none" ');
      document.body.append(holder);
      const regions = [...holder.querySelectorAll('svg svg text')].map((t) => {
        const b = t.getBoundingClientRect();
        return { id: t.textContent, x1: b.left, y1: b.top, x2: b.right, y2: b.bottom };
      });
      holder.remove();
      const host = g.cy.container().getBoundingClientRect();
      const anchors = g.cy.nodes('.anchor').map((n) => {
        const b = n.renderedBoundingBox({ includeNodes: false, includeLabels: true, includeOverlays: false });
        return { id: n.id(), x1: host.left + b.x1, y1: host.top + b.y1, x2: host.left + b.x2, y2: host.top + b.y2 };
      });
      return { regions, anchors };
    })()`);
    await app.screenshot('graph-region-labels');
    assert.deepEqual(
      boxes.regions.map((b) => b.id).sort(),
      REGIONS.map((r) => r.name).sort(),
      'every region’s name was measured',
    );
    assert.equal(boxes.anchors.length, REGIONS.length);
    for (const a of boxes.anchors) assert.ok(a.x2 - a.x1 > 0 && a.y2 - a.y1 > 0, `${a.id} has a drawn label`);
    for (const r of boxes.regions)
      for (const a of boxes.anchors) assert.ok(!overlap(r, a), `region ${r.id}'s name overlaps ${a.id}'s label`);
    // And the region names clear of each other.
    for (const r of boxes.regions)
      for (const s of boxes.regions) if (r !== s) assert.ok(!overlap(r, s), `${r.id} overlaps ${s.id}`);
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

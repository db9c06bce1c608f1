import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { WitnessError, errorReport } from '../../main/contract/errors.js';

const REGIONS = readFileSync(new URL('../../../assets/regions/pointmaze-medium.json', import.meta.url), 'utf8');
const SPEC = 'F e2 & G F e1 & G F e4 & G !e0';

test('missionGraph: the latent graph and the product graph of a planned mission, with its plan on each; bad input refused', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-mgraph-'));
  const api = createDirectApi({ workspace: dir, auditFile: path.join(dir, 'audit.sqlite') });
  try {
    const r = await api.missionPlan({
      job: 'j',
      world: 'pointmaze-medium',
      spec: SPEC,
      regions: REGIONS,
      start: [4, 20],
      datasetSteps: 20_000,
      seed: 0,
    });
    assert.equal(r.plan.status, 'ok');
    const clusters = r.scene.nodes.filter((n) => n.kind === 'cluster');

    const latent = await api.missionGraph({ session: r.session, view: 'latent' });
    assert.equal(latent.view, 'latent');
    assert.deepEqual(
      latent.scene.nodes.map((n) => n.id),
      clusters.map((n) => n.id),
    );
    assert.ok(latent.scene.edges.length > 0 && latent.scene.edges.length < r.scene.edges.length);
    for (const [u, v] of latent.scene.edges)
      assert.ok(latent.scene.nodes[u] !== undefined && latent.scene.nodes[v] !== undefined);
    const onClusters = r.plan.prefix.filter((id) => id.startsWith('c'));
    assert.deepEqual(latent.plan!.prefix, onClusters);
    assert.match(
      latent.note,
      new RegExp(
        `the task's ${r.scene.nodes.filter((n) => n.kind === 'anchor').length} anchors and its start are not part of it`,
      ),
    );

    const product = await api.missionGraph({ session: r.session, view: 'product' });
    const ids = new Set(product.scene.nodes.map((n) => n.id));
    assert.equal(ids.size, product.scene.nodes.length, 'product node ids are unique');
    // Every plan step is a product state of the drawing: node@q<state>.
    r.plan.prefix.forEach((id, i) =>
      assert.ok(ids.has(`${id}@q${r.plan.prefixStates[i]}`), `${id}@q${r.plan.prefixStates[i]}`),
    );
    assert.deepEqual(
      product.plan!.suffix,
      r.plan.suffix.map((id, i) => `${id}@q${r.plan.suffixStates[i]}`),
    );
    assert.equal(product.scene.start, `${r.scene.start}@q${r.plan.prefixStates[0]}`);
    // One copy of the maze per automaton state, side by side: nodes of different states do not overlap.
    const b = r.scene.bounds,
      W = b.maxX - b.minX;
    const inCopy = (id: string): number => Math.floor((product.scene.nodes.find((n) => n.id === id)!.x - b.minX) / W);
    const states = new Set(r.plan.prefixStates);
    if (states.size > 1)
      assert.ok(new Set(r.plan.prefix.map((id, i) => inCopy(`${id}@q${r.plan.prefixStates[i]}`))).size > 1);
    // Its picture: a copy of the maze and a caption per state the product uses.
    const nq = Number(/per automaton state \((\d+)\)/.exec(product.note)?.[1]);
    assert.ok(nq >= 2 && nq <= r.automaton.states.length, product.note);
    assert.equal((product.scene.picture!.match(/class="q-caption"/g) ?? []).length, nq);
    assert.equal(
      (product.scene.picture!.match(/fill="#5b5f6b"/g) ?? []).length,
      nq * (r.scene.picture!.match(/fill="#5b5f6b"/g) ?? []).length,
      'walls of every copy',
    );

    const rejected = async (p: Promise<unknown>): Promise<{ code: string; path?: string }> => {
      try {
        await p;
      } catch (e) {
        assert.ok(e instanceof WitnessError, String(e));
        const rep = errorReport(e);
        return { code: rep.code, ...(rep.path !== undefined ? { path: rep.path } : {}) };
      }
      throw new Error('not rejected');
    };
    assert.deepEqual(await rejected(api.missionGraph({ session: 'nope', view: 'latent' })), {
      code: 'not-found',
      path: '$.session',
    });
    const dispatch = createDispatcher(api, () => {});
    const bad = await dispatch('missionGraph', { session: r.session, view: 'sideways' });
    assert.equal(bad.ok, false);
    assert.match(JSON.stringify(bad), /view/);
  } finally {
    await api.close();
  }
});

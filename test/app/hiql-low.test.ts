/**
 * AP-HIQL's low-level choice (app/hiql.ts hiqlExecutor): 'hiql' hands π_h's subgoal offset to
 * HIQL's own π_l unchanged; 'pi-low' hands the backbone's π_low the unit direction toward it (the
 * input SAGAS's tracker gives π_low), and never calls π_l. ψ and π_h are the same either way.
 * π_low on a legged body also gets the tracker's stall recovery; HIQL's own π_l and a point mass get
 * none, and the benchmark's results header says which method has one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hiqlExecutor, hiqlRecovery, unitRows } from '../../main/app/hiql.js';
import { hiqlTracking } from '../../main/bench/mission-bench.js';
import { LEGGED_EXEC } from '../../main/core/exec/executor.js';
import type { LoadedModels } from '../../main/services/models/bundle.js';
import type { HiqlPolicies } from '../../main/services/models/hiql-bundle.js';

function fakes(): { models: LoadedModels; hiql: HiqlPolicies; calls: string[]; seen: Float32Array[] } {
  const calls: string[] = [],
    seen: Float32Array[] = [];
  const models = {
    embed: (x: Float32Array) => {
      calls.push('embed');
      return Promise.resolve(Float32Array.from(x.subarray(0, 2)));
    },
    act: (_x: Float32Array, d: Float32Array) => {
      calls.push('pi-low');
      seen.push(Float32Array.from(d));
      return Promise.resolve(new Float32Array([0.5]));
    },
  } as unknown as LoadedModels;
  const hiql = {
    subgoal: () => {
      calls.push('pi-h');
      return Promise.resolve(new Float32Array([3, 4]));
    },
    act: (_x: Float32Array, z: Float32Array) => {
      calls.push('pi-l');
      seen.push(Float32Array.from(z));
      return Promise.resolve(new Float32Array([-0.5]));
    },
  } as unknown as HiqlPolicies;
  return { models, hiql, calls, seen };
}

test('AP-HIQL executor: π_l gets the raw subgoal offset, π_low its unit direction', async () => {
  const obs = new Float32Array([1, 2, 3]);
  for (const low of ['hiql', 'pi-low'] as const) {
    const f = fakes();
    const ex = hiqlExecutor(f.models, f.hiql, low);
    const z = await ex.subgoal(obs, await ex.embed(obs, 1), 1);
    const a = await ex.act(obs, z, 1);
    assert.deepEqual(f.calls, ['embed', 'pi-h', low === 'hiql' ? 'pi-l' : 'pi-low']);
    assert.deepEqual([...a], [low === 'hiql' ? -0.5 : 0.5]);
    assert.deepEqual(
      [...f.seen[0]!].map((v) => +v.toFixed(6)),
      low === 'hiql' ? [3, 4] : [0.6, 0.8],
    );
  }
  // The default is HIQL's own π_l.
  const f = fakes();
  await hiqlExecutor(f.models, f.hiql).act(obs, new Float32Array([1, 0]), 1);
  assert.deepEqual(f.calls, ['pi-l']);
});

test('unitRows: each row to unit length, a zero row stays zero, the input untouched', () => {
  const z = new Float32Array([3, 4, 0, 0, 0, -2]);
  const u = unitRows(z, 3);
  assert.deepEqual(
    [...u].map((v) => +v.toFixed(6)),
    [0.6, 0.8, 0, 0, 0, -1],
  );
  assert.deepEqual([...z], [3, 4, 0, 0, 0, -2]);
});

test("AP-HIQL stall recovery: π_low on a legged body gets the tracker's; HIQL's π_l and a point mass none", () => {
  assert.deepEqual(hiqlRecovery('pi-low', 'legged'), LEGGED_EXEC.recovery);
  assert.notEqual(LEGGED_EXEC.recovery, null);
  assert.equal(hiqlRecovery('hiql', 'legged'), null, "the paper's AP-HIQL has none");
  assert.equal(hiqlRecovery('pi-low', 'point'), null, "SAGAS's point-mass executor has none either");
});

test('bench header: names the stall recovery of each AP-HIQL method that has one, so older files are not resumed', () => {
  assert.deepEqual(hiqlTracking(['sagas', 'ap-hiql', 'ap-hiql-pilow'], 'legged'), {
    hiqlRecovery: { 'ap-hiql-pilow': LEGGED_EXEC.recovery },
  });
  assert.deepEqual(hiqlTracking(['sagas', 'ap-hiql'], 'legged'), {});
  assert.deepEqual(hiqlTracking(['sagas', 'ap-hiql-pilow'], 'point'), {});
});

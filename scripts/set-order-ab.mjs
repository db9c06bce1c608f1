#!/usr/bin/env node
// The degeneralization's acceptance-set order on the mission benchmarks (issue 22's finding): for
// the 300 tasks of each point maze (seed 1, 100 per difficulty, as `witness bench ltl` draws
// them), the automaton with the sets as built and outer-first (TranslateOptions.setOrder), and,
// where they differ, each planner's first plan on both (the same augmented graph): objective
// better / worse / same, and plans that become feasible or infeasible. Needs `npm run build` and
// the worlds' navigate backbones (generated into the cache on first use, as the benchmark does).
//
//   node scripts/set-order-ab.mjs [pointmaze-medium pointmaze-large pointmaze-giant]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(new URL('..', import.meta.url).pathname);
const M = (p) => import(pathToFileURL(resolve(root, 'dist', p)).href);
const { openBackbone } = await M('main/app/backbone.js');
const { benchBackbone } = await M('main/app/backbone.js');
const { benchTask } = await M('main/bench/tasks.js');
const { worldEntry } = await M('main/backends/catalogue.js');
const { createRng } = await M('main/core/random/rng.js');
const { augmentTask } = await M('main/services/plan/inputs.js');
const { DEFAULT_AUGMENT } = await M('main/core/graph/augment.js');
const { plan, DEFAULT_PLAN } = await M('main/core/plan/plan.js');
const { translateFormula } = await M('main/core/ltl/translate.js');
const { parseLtl } = await M('main/core/ltl/parser.js');

const worlds =
  process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['pointmaze-medium', 'pointmaze-large', 'pointmaze-giant'];
const METHODS = ['sagas', 'lf-gas', 'ga-gas'];
console.log(
  '| world | tasks | automata changed | states as built → outer-first | larger | ' +
    METHODS.map((m) => `${m}: better / worse / same / now feasible / now infeasible`).join(' | ') +
    ' |',
);
console.log('|---|---:|---:|---|---:|' + METHODS.map(() => '---|').join(''));
for (const worldId of worlds) {
  const b = await openBackbone(benchBackbone({ world: worldId }), {});
  try {
    const world = worldEntry(worldId);
    const taskWorld = { id: world.id, map: world.map, restObservation: world.restObservation };
    const tally = Object.fromEntries(METHODS.map((m) => [m, [0, 0, 0, 0, 0]]));
    let n = 0,
      changed = 0,
      larger = 0,
      before = 0,
      after = 0;
    for (const d of ['easy', 'medium', 'hard'])
      for (let i = 0; i < 100; i++) {
        const task = benchTask(world.layout, 1, d, i);
        const f = parseLtl(task.formula);
        const built = translateFormula(f, { setOrder: 'as-built' }).automaton,
          outer = translateFormula(f, { setOrder: 'outer-first' }).automaton;
        n++;
        before += built.states.length;
        after += outer.states.length;
        if (outer.states.length > built.states.length) larger++;
        if (outer.states.length === built.states.length) continue;
        changed++;
        const used = { regions: task.regions.filter((r) => built.aps.includes(r.name)) };
        const t = await augmentTask(b, taskWorld, used, task.start, DEFAULT_AUGMENT, createRng(task.seed));
        for (const method of METHODS) {
          const x = plan(t.graph, outer, { ...DEFAULT_PLAN, method }),
            y = plan(t.graph, built, { ...DEFAULT_PLAN, method });
          const c = tally[method];
          if (x.status === 'ok' && y.status !== 'ok') c[3]++;
          else if (x.status !== 'ok' && y.status === 'ok') c[4]++;
          else if (x.status !== 'ok' || Math.abs(x.cost.objective - y.cost.objective) < 1e-9) c[2]++;
          else if (x.cost.objective < y.cost.objective) c[0]++;
          else c[1]++;
        }
      }
    console.log(
      `| ${worldId} | ${n} | ${changed} | ${before} → ${after} | ${larger} | ${METHODS.map((m) => tally[m].join(' / ')).join(' | ')} |`,
    );
  } finally {
    await b.models.close();
  }
}

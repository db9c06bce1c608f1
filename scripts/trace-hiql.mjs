#!/usr/bin/env node
// Traces AP-HIQL (π_low) missions of `bench ltl` one by one (docs/BENCHMARKS.md, "Why AP-HIQL (π_low)
// overturns the Ant"): the benchmark's own tasks (seed 1), the same cached π_h, every step's
// observation, π_h's subgoal offset and the goal's latent offset recorded; then, per task, how the
// run ended and what came before: steps spent within 1.5 m of where it ended, stalled steps (moved
// < 0.5 m in 40) of the last 100, the nearest wall over the last 50 steps, and the latent progress
// toward the goal over the last 200. Needs the build (`npx tsc -p tsconfig.json`).
//
//   node scripts/trace-hiql.mjs --world antmaze-medium --graph G --data D --hiql DIR --tasks easy-2,hard-44 [--models
//   DIR] [--out trace.json]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: o } = parseArgs({
  options: {
    world: { type: 'string' },
    graph: { type: 'string' },
    data: { type: 'string' },
    models: { type: 'string' },
    hiql: { type: 'string' },
    tasks: { type: 'string' },
    out: { type: 'string' },
  },
});
for (const k of ['world', 'graph', 'data', 'hiql', 'tasks']) {
  if (o[k] === undefined) {
    console.error(
      `--${k} is required\nusage: node scripts/trace-hiql.mjs --world W --graph G --data D --hiql DIR --tasks easy-2,… [--models DIR] [--out FILE]`,
    );
    process.exit(2);
  }
}
const D = new URL('../dist/main/', import.meta.url).href;
const { worldEntry } = await import(`${D}backends/catalogue.js`);
const { benchTask } = await import(`${D}bench/tasks.js`);
const { openBackbone } = await import(`${D}app/backbone.js`);
const { prepareMission } = await import(`${D}app/mission.js`);
const { runHiqlTask } = await import(`${D}app/hiql.js`);
const { loadHiql } = await import(`${D}services/models/hiql-bundle.js`);
const { mazeClearance } = await import(`${D}core/world/maze.js`);

const entry = worldEntry(o.world);
if (entry.layout === undefined) {
  console.error(`${o.world} is not a maze world`);
  process.exit(2);
}
const clearance = mazeClearance(entry.layout);
const b = await openBackbone({
  kind: 'files',
  graph: o.graph,
  data: o.data,
  models: o.models ?? new URL(`../assets/models/${o.world}`, import.meta.url).pathname,
});
const world = await entry.open();
const hiql = await loadHiql(o.hiql);
let steps = null;
const subgoal = hiql.subgoal.bind(hiql);
hiql.subgoal = async (x, g, r) => {
  const z = await subgoal(x, g, r);
  steps?.push({ x: Array.from(x), goal: Array.from(g), subgoal: Array.from(z) });
  return z;
};
const norm = (v) => Math.hypot(...v);
const out = {};
try {
  for (const id of o.tasks.split(',')) {
    const m = /^(easy|medium|hard)-(\d+)$/.exec(id);
    if (m === null) throw new Error(`--tasks: "${id}" is not a task id like easy-2`);
    const t = benchTask(entry.layout, 1, m[1], Number(m[2]));
    const task = await prepareMission({
      world: o.world,
      spec: t.formula,
      regions: { text: JSON.stringify({ regions: t.regions }) },
      start: t.start,
      seed: t.seed,
      backbone: b,
    });
    steps = [];
    const r = await runHiqlTask(task, hiql, { world, low: 'pi-low' });
    const X = steps.map((s) => s.x),
      n = X.length;
    const end = X[n - 1];
    let near = 0;
    for (let k = n - 1; k >= 0 && Math.hypot(X[k][0] - end[0], X[k][1] - end[1]) <= 1.5; k--) near = n - 1 - k;
    let stalled = 0;
    for (let k = Math.max(40, n - 100); k < n; k++)
      if (Math.hypot(X[k][0] - X[k - 40][0], X[k][1] - X[k - 40][1]) < 0.5) stalled++;
    let wall = Infinity;
    for (let k = Math.max(0, n - 50); k < n; k++) wall = Math.min(wall, clearance(X[k][0], X[k][1]));
    const progress = n > 200 ? norm(steps[n - 201].goal) - norm(steps[n - 1].goal) : null;
    out[id] = {
      success: r.success,
      message: r.message,
      steps: r.steps,
      recoveries: r.recoveries,
      near,
      stalled,
      wall,
      progress,
      trace: steps,
    };
    console.log(
      `${id}: ${r.success ? 'success' : r.message} (${r.steps} steps, ${r.recoveries.length} recoveries); within 1.5 m of the end for ${near} steps; stalled ${stalled} of the last 100; nearest wall over the last 50 ${wall.toFixed(2)} m; latent progress over the last 200 ${progress === null ? '—' : progress.toFixed(1)}`,
    );
  }
} finally {
  await world.close();
  await hiql.close();
  await b.models.close();
}
if (o.out !== undefined) writeFileSync(o.out, JSON.stringify(out));

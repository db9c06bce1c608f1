// Per-trial anatomy of `witness backbone eval`'s executor trials (the evaluation itself runs them,
// and tells each one): every failed trial with how far ahead its target was recorded (span, steps),
// how close the body came in latent units and where it ended in metres, then the spans' median and
// 90th percentile. Usage: node scripts/executor-trials.mjs WORLD BUNDLE [TRIALS]
const { evaluateBackbone } = await import(new URL('../dist/main/app/train.js', import.meta.url).href);
const { antUprightness } = await import(new URL('../dist/main/core/data/ant-gait.js', import.meta.url).href);
const [world, models, trials = '200'] = process.argv.slice(2);
if (models === undefined) {
  console.error('usage: node scripts/executor-trials.mjs WORLD BUNDLE [TRIALS]');
  process.exit(2);
}
const rows = [];
const ev = await evaluateBackbone({
  world,
  models,
  pairs: 20,
  trials: Number(trials),
  onTrial: (t, heldOut) => {
    const k = heldOut.obsDim,
      at = (r) => heldOut.observations.subarray(r * k, r * k + k);
    const start = at(t.row),
      goal = at(t.target);
    rows.push({
      t: rows.length,
      i: t.row,
      j: t.target,
      span: t.target - t.row,
      reached: t.reached,
      startUp: +antUprightness(start).toFixed(2),
      startSpeed: +Math.hypot(start[15], start[16]).toFixed(2),
      goalDistM: +Math.hypot(goal[0] - start[0], goal[1] - start[1]).toFixed(2),
      finalDistM: +Math.hypot(goal[0] - t.last[0], goal[1] - t.last[1]).toFixed(2),
      minL: +t.minLatent.toFixed(2),
    });
  },
});
console.log(
  `${world} ${models}: ${rows.filter((r) => r.reached >= 0).length}/${rows.length} (${(ev.policy_success * 100).toFixed(1)} %)`,
);
for (const r of rows.filter((r) => r.reached < 0)) console.log(JSON.stringify(r));
const spans = rows.map((r) => r.span).sort((a, b) => a - b);
console.log('span median', spans[spans.length >> 1], 'p90', spans[Math.floor(spans.length * 0.9)]);

// Per-trial anatomy of `witness backbone eval`'s executor trials (the same held-out data, the same
// trials, drawn as services/training/evaluate.ts policySuccess draws them): each failed trial with
// how far ahead its target was recorded (span, steps), how close the body came in latent units
// and where it ended in metres. Usage: node scripts/executor-trials.mjs WORLD BUNDLE [TRIALS]
const D = new URL('../dist/main', import.meta.url).pathname;
const { worldEntry } = await import(`${D}/backends/catalogue.js`);
const { loadModels } = await import(`${D}/services/models/bundle.js`);
const { defaultConfig, generateDataset } = await import(`${D}/core/data/generators.js`);
const { subgoals } = await import(`${D}/services/training/policy-trainer.js`);
const { createRng } = await import(`${D}/core/random/rng.js`);
const { antUprightness } = await import(`${D}/core/data/ant-gait.js`);
const world = process.argv[2], models = process.argv[3], trials = Number(process.argv[4] ?? 200);
const HELD_OUT_SEED = 1_000_003; // main/app/train.ts's held-out seed
const e = worldEntry(world);
const m = await loadModels(models, { expectWorld: world });
const sim = await e.stepper();
const heldOut = generateDataset(sim, world, defaultConfig('navigate', 20000, HELD_OUT_SEED, sim.agent, sim.layout));
const n = heldOut.terminals.length, k = heldOut.obsDim, d = m.manifest.dims.latent, H = m.manifest.H_TD;
const latent = await m.embed(heldOut.observations, n);
const sg = subgoals(heldOut.terminals, latent, d, H);
const rng = createRng(HELD_OUT_SEED);
const rows = [];
for (let t = 0; t < trials; t++) {
  const idx = rng.int(0, sg.rows.length - 1);
  const i = sg.rows[idx], j = sg.targets[idx];
  const goal = latent.slice(j * d, j * d + d);
  const rec = heldOut.observations.subarray(i * k, i * k + k);
  let state = sim.reset(rng.int(0, 2 ** 31 - 1), Array.from(rec));
  let reached = -1, minL = Infinity, minUp = 1, lastL = 0;
  for (let step = 0; step < 5 * Math.ceil(H); step++) {
    const obs = Float32Array.from(state);
    minUp = Math.min(minUp, antUprightness(obs));
    const z = await m.embed(obs, 1);
    const dir = new Float32Array(d); let len = 0;
    for (let q = 0; q < d; q++) { dir[q] = goal[q] - z[q]; len += dir[q] ** 2; }
    len = Math.sqrt(len); minL = Math.min(minL, len); lastL = len;
    if (len <= H / 2) { reached = step; break; }
    for (let q = 0; q < d; q++) dir[q] /= len;
    state = sim.act(await m.act(obs, dir, 1));
  }
  const gx = heldOut.observations[j * k], gy = heldOut.observations[j * k + 1];
  rows.push({ t, i, j, span: j - i, reached, startUp: +antUprightness(rec).toFixed(2), minUp: +minUp.toFixed(2), startSpeed: +Math.hypot(rec[15], rec[16]).toFixed(2),
    goalDistM: +Math.hypot(gx - rec[0], gy - rec[1]).toFixed(2), finalDistM: +Math.hypot(gx - state[0], gy - state[1]).toFixed(2), minL: +minL.toFixed(2), lastL: +lastL.toFixed(2) });
}
const ok = rows.filter((r) => r.reached >= 0).length;
console.log(`${world} ${models}: ${ok}/${trials}`);
for (const r of rows.filter((r) => r.reached < 0)) console.log(JSON.stringify(r));
const spans = rows.map((r) => r.span).sort((a, b) => a - b);
console.log('span median', spans[spans.length >> 1], 'p90', spans[Math.floor(spans.length * 0.9)]);
sim.close(); await m.close();

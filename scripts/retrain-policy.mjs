// π_low retrained on a bundle's own ψ, with the recipe's knobs `witness train policy` does not take
// (hidden widths of actor and critics, TD3+BC α): node scripts/retrain-policy.mjs BUNDLE DATA OUT HIDDEN STEPS ALPHA,
// e.g. node scripts/retrain-policy.mjs assets/models/antmaze-giant ant-giant.wds giant-p128 128,128 30000 1.
// Writes OUT (the bundle: the same embed.onnx, a new policy.onnx) and OUT-embed (ψ as `train embed` writes it).
import { mkdirSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const D = new URL('../dist/main', import.meta.url).pathname;
const { trainPolicyBundle } = await import(`${D}/app/train.js`);
const [bundle, data, out, hidden, steps, alpha] = process.argv.slice(2);
if (alpha === undefined) {
  console.error('usage: node scripts/retrain-policy.mjs BUNDLE DATA OUT HIDDEN STEPS ALPHA (e.g. 128,128 30000 1)');
  process.exit(2);
}
const m = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
const ed = out + '-embed';
mkdirSync(ed, { recursive: true });
copyFileSync(join(bundle, 'embed.onnx'), join(ed, 'embed.onnx'));
writeFileSync(
  join(ed, 'embed.json'),
  JSON.stringify({
    world: m.world,
    dims: { obs: m.dims.obs, latent: m.dims.latent },
    normalization: m.normalization,
    training: m.training.embed,
  }),
);
const t0 = Date.now();
const r = await trainPolicyBundle({
  data,
  embed: ed,
  out,
  config: {
    hidden: hidden.split(',').map(Number),
    batch: 256,
    steps: Number(steps),
    alpha: Number(alpha),
    H_TD: 8,
    seed: 0,
  },
  checkpoint: {},
  progress: (s, n) => {
    if (s % 2000 === 1) console.log(`policy ${s}/${n} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  },
});
console.log('done', r.seconds);

// Two datasets of one world as one, the first file's rows then the second's (a study helper: the
// mixed-regime π_low of docs/BENCHMARKS.md): node scripts/merge-datasets.mjs A.wds B.wds OUT.wds.
// The generator record names both parts (kind "mixed"), so the result is never taken for either regime.
const D = new URL('../dist/main', import.meta.url).pathname;
const { readDataset, writeDataset } = await import(`${D}/services/datasets/format.js`);
const [a, b, out] = process.argv.slice(2);
if (out === undefined) {
  console.error('usage: node scripts/merge-datasets.mjs A.wds B.wds OUT.wds');
  process.exit(2);
}
const read = (file, opts) =>
  readDataset(file, opts).catch((e) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(2);
  });
const x = await read(a);
const y = await read(b, { expectWorld: x.worldId });
if (x.obsDim !== y.obsDim || x.actDim !== y.actDim) {
  console.error(`${b}: ${y.obsDim}-D observations and ${y.actDim}-D actions, ${a} has ${x.obsDim} and ${x.actDim}`);
  process.exit(2);
}
const cat = (p, q) => {
  const r = new p.constructor(p.length + q.length);
  r.set(p);
  r.set(q, p.length);
  return r;
};
const { report: _drop, ...rest } = x;
await writeDataset(out, {
  ...rest,
  observations: cat(x.observations, y.observations),
  actions: cat(x.actions, y.actions),
  terminals: cat(x.terminals, y.terminals),
  generator: { kind: 'mixed', parts: [x.generator, y.generator] },
});
console.log(`wrote ${out}: ${x.terminals.length + y.terminals.length} transitions`);

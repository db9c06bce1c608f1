/** `witness graph …`: the latent reachability graph, built once per dataset and model bundle. */
import { Command } from 'commander';
import { readDataset } from '../services/datasets/format.js';
import { loadModels } from '../services/models/bundle.js';
import { DEFAULT_GRAPH } from '../core/graph/build.js';
import { buildArtifact } from '../services/graph/build-artifact.js';
import { type GraphArtifact, graphJson, readGraph, writeGraph } from '../services/graph/store.js';
import { writeFileAtomic } from '../services/datasets/io.js';
import { ModelError } from '../core/models/manifest.js';
import { CliError, type Output } from './errors.js';
import { action } from './flags.js';
import { progressBar } from './progress.js';

function connectivity(a: GraphArtifact): { components: number; degreeMean: number } {
  const g = a.graph;
  const parent = Int32Array.from({ length: g.nodeCount }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  g.edgeU.forEach((u, e) => { parent[find(u)] = find(g.edgeV[e]!); });
  const comps = new Set(Array.from({ length: g.nodeCount }, (_, i) => find(i))).size;
  return { components: comps, degreeMean: (2 * g.edgeU.length) / Math.max(1, g.nodeCount) };
}

export function graphCommand(io: Output, setExit: (c: number) => void): Command {
  const graph = new Command('graph').description('the latent reachability graph (nodes, edges, raw-state supports)');
  const run = (body: () => Promise<void>) => action(io, setExit, body);
  graph
    .command('build')
    .description('build the graph from a dataset and a model bundle (temporal-efficiency filter, leader clustering, edges within H_TD)')
    .requiredOption('--data <file>', 'the dataset (.wds)')
    .requiredOption('--models <dir>', 'the model bundle')
    .requiredOption('--out <file>', 'graph file to write (.wgraph)')
    .option('--te-threshold <x>', 'temporal-efficiency cosine threshold', (v: string) => Number(v), DEFAULT_GRAPH.teThreshold)
    .action((o: { data: string; models: string; out: string; teThreshold: number }) => run(async () => {
      if (!(o.teThreshold >= -1 && o.teThreshold <= 1)) throw new CliError(`--te-threshold must be in [-1, 1], got ${o.teThreshold}`);
      const d = await readDataset(o.data);
      const m = await loadModels(o.models);
      try {
        if (m.manifest.world !== d.worldId) throw new ModelError(o.models, 'world', `the models are for ${m.manifest.world}, the dataset for ${d.worldId}`);
        const started = Date.now();
        const n = d.terminals.length;
        const bar = progressBar(io, 'graph build');
        let artifact: GraphArtifact;
        try {
          artifact = await buildArtifact(d, m, o.teThreshold, bar);
        } catch (e) {
          if (e instanceof RangeError) throw new CliError(`${o.data} with ${o.models}: ${e.message}`);
          throw e;
        }
        const g = artifact.graph;
        await writeGraph(o.out, artifact);
        const c = connectivity(artifact);
        io.out(`wrote ${o.out}: ${g.nodeCount} nodes, ${g.edgeU.length} edges, ${c.components} component(s) (${g.componentsBefore} before ${g.bridges} bridge edge(s)), ${g.retained}/${n} states kept by the temporal-efficiency filter, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      } finally {
        await m.close();
      }
    })());
  graph
    .command('info')
    .description('node and edge counts, connectivity, provenance; with --models, refuse a stale graph')
    .argument('<file>', 'graph file (.wgraph)')
    .option('--models <dir>', 'check that the graph was built with this model bundle')
    .option('--json', 'print JSON')
    .action((file: string, o: { models?: string; json?: boolean }) => run(async () => {
      let expect: { models?: { embed: string; policy: string } } = {};
      if (o.models !== undefined) {
        const m = await loadModels(o.models);
        expect = { models: { embed: m.manifest.files['embed.onnx'].sha256, policy: m.manifest.files['policy.onnx'].sha256 } };
        await m.close();
      }
      const a = await readGraph(file, expect);
      const c = connectivity(a);
      const info = {
        world: a.world, nodes: a.graph.nodeCount, edges: a.graph.edgeU.length, components: c.components, meanDegree: c.degreeMean,
        states: a.graph.support.length, retained: a.graph.retained, bridges: a.graph.bridges, params: a.params, dataset: a.dataset, models: a.models,
      };
      if (o.json) io.out(JSON.stringify(info, null, 2) + '\n');
      else io.out(`${file}: ${info.world}, ${info.nodes} nodes, ${info.edges} edges, ${info.components} component(s), mean degree ${info.meanDegree.toFixed(1)}, H_TD ${a.params.H_TD}, ${info.states} supported states\n`);
    })());
  graph
    .command('export')
    .description('write the graph as plain JSON (node latents, task-space positions, supports, edges) for inspection')
    .argument('<file>', 'graph file (.wgraph)')
    .requiredOption('--out <json>', 'JSON file to write')
    .action((file: string, o: { out: string }) => run(async () => {
      const a = await readGraph(file);
      await writeFileAtomic(o.out, new TextEncoder().encode(JSON.stringify(graphJson(a)) + '\n'));
      io.out(`wrote ${o.out}\n`);
    })());
  return graph;
}

/** `witness graph …`: the latent reachability graph, built once per dataset and model bundle. */
import { Command } from 'commander';
import { GRAPH_DEFAULTS } from '../contract/defaults.js';
import type { Output } from './errors.js';
import { action } from './flags.js';
import { progressBar } from './progress.js';

const graphs = (): Promise<typeof import('../app/graph.js')> => import('../app/graph.js');

export function graphCommand(io: Output, setExit: (c: number) => void): Command {
  const graph = new Command('graph').description('the latent reachability graph (nodes, edges, raw-state supports)');
  const run = (body: () => Promise<void>) => action(io, setExit, body);
  graph
    .command('build')
    .description('build the graph from a dataset and a model bundle (temporal-efficiency filter, leader clustering, edges within H_TD)')
    .requiredOption('--data <file>', 'the dataset (.wds)')
    .requiredOption('--models <dir>', 'the model bundle')
    .requiredOption('--out <file>', 'graph file to write (.wgraph)')
    .option('--te-threshold <x>', 'temporal-efficiency cosine threshold', (v: string) => Number(v), GRAPH_DEFAULTS.teThreshold)
    .action((o: { data: string; models: string; out: string; teThreshold: number }) => run(async () => {
      const r = await (await graphs()).buildGraphFile({ ...o, progress: progressBar(io, 'graph build') });
      io.out(`wrote ${o.out}: ${r.nodes} nodes, ${r.edges} edges, ${r.components} component(s) (${r.componentsBefore} before ${r.bridges} bridge edge(s)), ${r.retained}/${r.states} states kept by the temporal-efficiency filter, ${r.seconds.toFixed(1)} s\n`);
    })());
  graph
    .command('info')
    .description('node and edge counts, connectivity, provenance; with --models, refuse a stale graph')
    .argument('<file>', 'graph file (.wgraph)')
    .option('--models <dir>', 'check that the graph was built with this model bundle')
    .option('--json', 'print JSON')
    .action((file: string, o: { models?: string; json?: boolean }) => run(async () => {
      const info = await (await graphs()).graphInfo(file, o.models);
      if (o.json) io.out(JSON.stringify(info, null, 2) + '\n');
      else io.out(`${file}: ${info.world}, ${info.nodes} nodes, ${info.edges} edges, ${info.components} component(s), mean degree ${info.meanDegree.toFixed(1)}, H_TD ${info.params.H_TD}, ${info.states} supported states\n`);
    })());
  graph
    .command('export')
    .description('write the graph as plain JSON (node latents, task-space positions, supports, edges) for inspection')
    .argument('<file>', 'graph file (.wgraph)')
    .requiredOption('--out <json>', 'JSON file to write')
    .action((file: string, o: { out: string }) => run(async () => {
      await (await graphs()).exportGraph(file, o.out);
      io.out(`wrote ${o.out}\n`);
    })());
  return graph;
}

/** `witness graph …`: the latent reachability graph, built once per dataset and model bundle. */
import { Command } from 'commander';
import { GRAPH_DEFAULTS, MAP_GRAPH_DEFAULTS } from '../contract/defaults.js';
import type { Output } from './errors.js';
import { action, numberFlag, pointFlag } from './flags.js';
import { progressBar } from './progress.js';
import { printable, printableJson } from './printable.js';

const graphs = (): Promise<typeof import('../app/graph.js')> => import('../app/graph.js');
const maps = (): Promise<typeof import('../app/maps.js')> => import('../app/maps.js');

const num = (x: number): string => String(Math.round(x * 1000) / 1000);

export function graphCommand(io: Output, setExit: (c: number) => void): Command {
  const graph = new Command('graph').description('the latent reachability graph (nodes, edges, raw-state supports)');
  const run = (body: () => Promise<void>) => action(io, setExit, body);
  graph
    .command('build')
    .description(
      'build the graph from a dataset and a model bundle (temporal-efficiency filter, leader clustering, edges within H_TD)',
    )
    .requiredOption('--data <file>', 'the dataset (.wds)')
    .requiredOption('--models <dir>', 'the model bundle')
    .requiredOption('--out <file>', 'graph file to write (.wgraph)')
    .option(
      '--te-threshold <x>',
      'temporal-efficiency cosine threshold',
      numberFlag('--te-threshold', -1, 1),
      GRAPH_DEFAULTS.teThreshold,
    )
    .action((o: { data: string; models: string; out: string; teThreshold: number }) =>
      run(async () => {
        const r = await (await graphs()).buildGraphFile({ ...o, progress: progressBar(io, 'graph build') });
        io.out(
          `wrote ${o.out}: ${r.nodes} nodes, ${r.edges} edges, ${r.components} component(s) (${r.componentsBefore} before ${r.bridges} bridge edge(s)), ${r.retained}/${r.states} states kept by the temporal-efficiency filter, ${r.seconds.toFixed(1)} s\n`,
        );
        if (r.warning !== null) io.err(`warning: ${r.warning}\n`);
      })(),
    );
  graph
    .command('info')
    .description('node and edge counts, connectivity, provenance; with --models, refuse a stale graph')
    .argument('<file>', 'graph file (.wgraph)')
    .option('--models <dir>', 'check that the graph was built with this model bundle')
    .option('--json', 'print JSON')
    .action((file: string, o: { models?: string; json?: boolean }) =>
      run(async () => {
        const info = await (await graphs()).graphInfo(file, o.models);
        if (o.json) io.out(printableJson(info, 2) + '\n');
        else
          io.out(
            `${file}: ${printable(info.world)}, ${info.nodes} nodes, ${info.edges} edges, ${info.components} component(s), mean degree ${info.meanDegree.toFixed(1)}, H_TD ${info.params.H_TD}, ${info.states} supported states\n`,
          );
      })(),
    );
  graph
    .command('export')
    .description('write the graph as plain JSON (node latents, task-space positions, supports, edges) for inspection')
    .argument('<file>', 'graph file (.wgraph)')
    .requiredOption('--out <json>', 'JSON file to write')
    .action((file: string, o: { out: string }) =>
      run(async () => {
        await (await graphs()).exportGraph(file, o.out);
        io.out(`wrote ${o.out}\n`);
      })(),
    );
  graph
    .command('from-map')
    .description(
      'a labelled graph for `witness plan` from a ROS map_server map (YAML + PGM/PNG/BMP) and a regions file',
    )
    .argument('<map.yaml>', 'the map YAML (image, resolution, origin, negate, occupied_thresh, free_thresh, mode)')
    .requiredOption(
      '--regions <file>',
      "the regions file (docs/FORMATS.md); its world, when given, must be the map's file name without the extension",
    )
    .requiredOption('--out <file>', 'graph JSON to write')
    .option(
      '--start <x,y>',
      "the start in the map frame, metres (default: the node nearest the map frame's origin (0, 0))",
      pointFlag,
    )
    .option(
      '--spacing <m>',
      'lattice spacing in metres',
      numberFlag('--spacing', 1e-6, 1e6),
      MAP_GRAPH_DEFAULTS.spacing,
    )
    .option(
      '--clearance <m>',
      'clearance from occupied and unknown cells, metres',
      numberFlag('--clearance', 0, 1e6),
      MAP_GRAPH_DEFAULTS.clearance,
    )
    .action(
      (
        file: string,
        o: { regions: string; out: string; start?: [number, number]; spacing: number; clearance: number },
      ) =>
        run(async () => {
          const r = await (
            await maps()
          ).graphFromMap({
            map: file,
            regions: o.regions,
            out: o.out,
            spacing: o.spacing,
            clearance: o.clearance,
            ...(o.start !== undefined ? { start: o.start } : {}),
          });
          const others = r.components - 1;
          const labels = Object.entries(r.perLabel)
            .map(([l, n]) => `${l} ${n}`)
            .join(', ');
          io.out(
            `wrote ${o.out}: ${r.nodes} nodes, ${r.edges} edges, ${r.components} lattice component(s)${others > 0 || r.dropped > 0 ? ` (kept the start's; ${r.dropped} node(s) in ${others} other(s) dropped)` : ''}; ` +
              `start ${r.start.id} at (${num(r.start.pos[0])}, ${num(r.start.pos[1])})${r.start.from === 'nearest-origin' ? ' (the node nearest the map origin (0, 0))' : ''}; ` +
              `nodes per label: ${labels === '' ? 'none' : labels}${r.regionNodes.length > 0 ? ` (own node for ${r.regionNodes.join(', ')})` : ''}; ` +
              (r.crossings > 0 ? `${r.crossings} crossing node(s) where edges pass through regions; ` : '') +
              `spacing ${num(r.spacing)} m on a ${r.map.width}×${r.map.height} ${r.map.format.toUpperCase()} at ${r.map.resolution} m; ${r.seconds.toFixed(2)} s\n`,
          );
        })(),
    );
  return graph;
}

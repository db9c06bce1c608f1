/** `witness world …`: the embedded worlds. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { POINTMAZE_IDS, layoutOf, pointMazeSpec, sceneFile } from '../backends/mujoco/pointmaze.js';
import { MAZES, freeCells, validateLayout } from '../core/world/maze.js';
import { pointMazeMjcf } from '../core/world/mjcf.js';
import { mazeSvg } from '../core/world/svg.js';
import { readDataset } from '../services/datasets/format.js';
import { writeFileAtomic } from '../services/datasets/io.js';
import { readLayoutFile } from '../services/worlds/layout-file.js';
import { readGraph } from '../services/graph/store.js';
import { loadModel } from '../backends/mujoco/runtime.js';
import { CliError, EXIT, type Output } from './errors.js';
import { action } from './flags.js';

const encoder = new TextEncoder();

export function worldCommand(io: Output, setExit: (c: number) => void): Command {
  const world = new Command('world').description('the embedded worlds (MuJoCo point mazes)');
  const run = (body: () => Promise<number | void>) => action(io, setExit, body);

  world
    .command('ls')
    .description('list the worlds')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) => run(async () => {
      const rows = POINTMAZE_IDS.map((id) => {
        const layout = layoutOf(id);
        const spec = pointMazeSpec(id);
        return {
          id, backend: spec.backend, description: spec.description,
          cells: [layout.grid.length, layout.grid[0]!.length], freeCells: freeCells(layout).length,
          observation: spec.observation.names, action: spec.action.names, control_dt_s: spec.control_dt_s, scene: sceneFile(id),
        };
      });
      if (o.json) io.out(JSON.stringify(rows, null, 2) + '\n');
      else for (const r of rows) io.out(`${r.id.padEnd(18)} ${`${r.cells[0]}×${r.cells[1]}`.padEnd(6)} ${String(r.freeCells).padStart(3)} free cells  ${r.description}\n`);
      return Promise.resolve();
    })());

  world
    .command('check')
    .description('check a maze layout (.json) or an MJCF scene (.xml) before using it')
    .argument('<file>', 'layout JSON { id, grid, unit_m?, offset_m? } or MJCF scene')
    .action((file: string) => run(async () => {
      if (file.toLowerCase().endsWith('.xml')) {
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (e) {
          throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
        }
        const { model, data } = await loadModel(text, file, 'scene');
        const found = `${model.nq} position coordinates, ${model.nu} actuators, ${model.ngeom} geoms`;
        data.delete();
        model.delete();
        io.out(`${file}: MJCF compiles: ${found}\n`);
      } else {
        const layout = readLayoutFile(file);
        io.out(`${file}: layout ${layout.id}, ${layout.grid.length}×${layout.grid[0]!.length} cells, ${freeCells(layout).length} free, all connected\n`);
      }
    })());

  world
    .command('render')
    .description('draw a world from above as SVG (walls, free cells, optional trajectories)')
    .argument('<world>', 'world id, e.g. pointmaze-medium, or a layout .json file')
    .requiredOption('--out <file>', 'SVG file to write')
    .option('--data <file>', 'draw the trajectories of this dataset')
    .option('--graph <file>', 'draw this latent graph (.wgraph) at its nodes\' task-space positions')
    .action((id: string, o: { out: string; data?: string; graph?: string }) => run(async () => {
      const layout = id.toLowerCase().endsWith('.json') ? readLayoutFile(id) : layoutOf(id);
      const data = o.data !== undefined ? await readDataset(o.data, id.endsWith('.json') ? {} : { expectWorld: id }) : undefined;
      const g = o.graph !== undefined ? await readGraph(o.graph, id.endsWith('.json') ? {} : { world: id }) : undefined;
      const svg = mazeSvg(layout, `${id}${o.data ? ` — ${o.data}` : ''}`, data, g ? { positions: g.positions, edgeU: g.graph.edgeU, edgeV: g.graph.edgeV } : undefined);
      await writeFileAtomic(o.out, encoder.encode(svg));
      io.out(`wrote ${o.out}\n`);
    })());

  world
    .command('scenes')
    .description('write the MJCF scenes of assets/scenes from the maze layouts (--check: verify they match)')
    .option('--check', 'exit 1 if a scene file differs from what the layouts generate')
    .action((o: { check?: boolean }) => run(async () => {
      let stale = 0;
      for (const [name, layout] of Object.entries(MAZES)) {
        validateLayout(layout);
        const id = `pointmaze-${name}`;
        const file = sceneFile(id);
        const want = pointMazeMjcf(layout);
        if (o.check) {
          let have = '';
          try {
            have = readFileSync(file, 'utf8');
          } catch {
            have = '';
          }
          if (have !== want) {
            stale++;
            io.err(`stale: ${file}\n`);
          }
        } else {
          await writeFileAtomic(file, encoder.encode(want));
          io.out(`wrote ${file}\n`);
        }
      }
      if (stale > 0) throw new CliError(`${stale} scene file(s) differ from the layouts; run \`witness world scenes\``, EXIT.negative);
    })());
  return world;
}

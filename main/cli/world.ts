/** `witness world …`: the embedded worlds. */
import { Command } from 'commander';
import { CliError, EXIT, type Output } from './errors.js';
import { action } from './flags.js';

const worlds = (): Promise<typeof import('../app/worlds.js')> => import('../app/worlds.js');

export function worldCommand(io: Output, setExit: (c: number) => void): Command {
  const world = new Command('world').description('the embedded worlds (MuJoCo point mazes)');
  const run = (body: () => Promise<number | void>) => action(io, setExit, body);

  world
    .command('ls')
    .description('list the worlds')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) =>
      run(async () => {
        const rows = (await worlds()).mazeWorlds();
        if (o.json) io.out(JSON.stringify(rows, null, 2) + '\n');
        else
          for (const r of rows)
            io.out(
              `${r.id.padEnd(18)} ${`${r.cells[0]}×${r.cells[1]}`.padEnd(6)} ${String(r.freeCells).padStart(3)} free cells  ${r.description}\n`,
            );
      })(),
    );

  world
    .command('check')
    .description('check a maze layout (.json) or an MJCF scene (.xml) before using it')
    .argument('<file>', 'layout JSON { id, grid, unit_m?, offset_m? } or MJCF scene')
    .action((file: string) =>
      run(async () => {
        io.out(`${await (await worlds()).checkWorldFile(file)}\n`);
      })(),
    );

  world
    .command('render')
    .description('draw a world from above as SVG (walls, free cells, optional trajectories)')
    .argument('<world>', 'world id, e.g. pointmaze-medium, or a layout .json file')
    .requiredOption('--out <file>', 'SVG file to write')
    .option('--data <file>', 'draw the trajectories of this dataset')
    .option('--graph <file>', "draw this latent graph (.wgraph) at its nodes' task-space positions")
    .action((id: string, o: { out: string; data?: string; graph?: string }) =>
      run(async () => {
        await (await worlds()).renderWorld(id, o);
        io.out(`wrote ${o.out}\n`);
      })(),
    );

  world
    .command('scenes')
    .description('write the MJCF scenes of assets/scenes from the maze layouts (--check: verify they match)')
    .option('--check', 'exit 1 if a scene file differs from what the layouts generate')
    .action((o: { check?: boolean }) =>
      run(async () => {
        const r = await (await worlds()).mazeScenes(o.check === true);
        for (const f of r.written) io.out(`wrote ${f}\n`);
        for (const f of r.stale) io.err(`stale: ${f}\n`);
        if (r.stale.length > 0)
          throw new CliError(
            `${r.stale.length} scene file(s) differ from the layouts; run \`witness world scenes\``,
            EXIT.negative,
          );
      })(),
    );
  return world;
}

/**
 * The `witness` command. Every sub-command parses its flags, calls the application layer (loaded
 * when the command runs, so `witness --version` and `witness ltl …` load no simulator, model runtime
 * or database), and prints. Every one has --help.
 */
import { Command, CommanderError } from 'commander';
import { ltlCommand } from './ltl.js';
import { demoCommand } from './demo.js';
import { benchCommand } from './bench.js';
import { worldCommand } from './world.js';
import { dataCommand } from './data.js';
import { modelCommand } from './model.js';
import { trainCommand } from './train.js';
import { backboneCommand } from './backbone.js';
import { graphCommand } from './graph.js';
import { planCommand } from './plan.js';
import { runCommand } from './run.js';
import { actCommand } from './act.js';
import { auditCommand } from './audit.js';
import { labCommand } from './lab.js';
import { type ServeWeb, webCommand } from './web.js';
import { ros2Command } from './ros2.js';
import { EXIT, type Output, processOutput, report } from './errors.js';
import { VERSION } from '../contract/version.js';

/** Every command reports through `io`, throws instead of exiting, and points at --help on errors. */
function configure(cmd: Command, io: Output): void {
  cmd
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showHelpAfterError('(run with --help for usage)');
  for (const sub of cmd.commands) configure(sub, io);
}

/** Front ends the CLI can start but does not import (the process entry, main/witness.ts, provides them). */
export interface FrontEnds {
  readonly web?: ServeWeb;
}

function buildProgram(io: Output, setExit: (code: number) => void, frontEnds: FrontEnds = {}): Command {
  const program = new Command('witness')
    .description('Witness: typed, verified robot tool calls and temporal-logic missions planned over learned graphs')
    .version(VERSION, '-V, --version');
  program.addCommand(ltlCommand(io, setExit));
  program.addCommand(demoCommand(io, setExit));
  program.addCommand(worldCommand(io, setExit));
  program.addCommand(dataCommand(io, setExit));
  program.addCommand(modelCommand(io, setExit));
  program.addCommand(trainCommand(io, setExit));
  program.addCommand(backboneCommand(io, setExit));
  program.addCommand(graphCommand(io, setExit));
  program.addCommand(planCommand(io, setExit));
  program.addCommand(runCommand(io, setExit));
  program.addCommand(actCommand(io, setExit));
  program.addCommand(auditCommand(io, setExit));
  program.addCommand(labCommand(io, setExit));
  program.addCommand(benchCommand(io, setExit));
  program.addCommand(webCommand(io, setExit, frontEnds.web));
  program.addCommand(ros2Command(io, setExit));
  configure(program, io);
  return program;
}

/** Runs the CLI; resolves to the exit code. */
export async function run(
  argv: readonly string[],
  io: Output = processOutput,
  frontEnds: FrontEnds = {},
): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(
    io,
    (c) => {
      code = c;
    },
    frontEnds,
  );
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      const done =
        e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
      return done ? EXIT.ok : EXIT.usage;
    }
    return report(e, io);
  }
  return code;
}

/** The `witness` command. Sub-commands grow with each capability; every one has --help. */
import { Command, CommanderError } from 'commander';
import { ltlCommand } from './ltl.js';
import { demoCommand } from './demo.js';
import { benchCommand } from './bench.js';
import { EXIT, type Output, processOutput } from './errors.js';
import { VERSION } from '../version.js';

export function buildProgram(io: Output, setExit: (code: number) => void): Command {
  const program = new Command('witness')
    .description('Witness: typed, verified robot tool calls and temporal-logic missions planned over learned graphs')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();
  program.addCommand(ltlCommand(io, setExit));
  program.addCommand(demoCommand(io, setExit));
  program.addCommand(benchCommand(io, setExit));
  for (const c of program.commands) {
    c.exitOverride().configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) }).showHelpAfterError('(run with --help for usage)');
    for (const sub of c.commands) {
      sub.exitOverride().configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) }).showHelpAfterError('(run with --help for usage)');
    }
  }
  return program;
}

/** Runs the CLI; resolves to the exit code. */
export async function run(argv: readonly string[], io: Output = processOutput): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => { code = c; });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      const done = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
      return done ? EXIT.ok : EXIT.usage;
    }
    const { report } = await import('./errors.js');
    return report(e, io);
  }
  return code;
}

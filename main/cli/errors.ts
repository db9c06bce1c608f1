/** How the CLI reports failures: one line on stderr, a documented exit code. */
import { LtlBudgetError, LtlSyntaxError } from '../core/ltl/errors.js';
import { DatasetError } from '../core/data/dataset.js';
import { LayoutError } from '../core/world/maze.js';
import { WorldError } from '../backends/world.js';
import { ModelError } from '../core/models/manifest.js';
import { GraphError } from '../services/graph/store.js';
import { CheckpointError } from '../services/training/checkpoint.js';
import { InputError } from '../core/input/json.js';
import { PlanBudgetError } from '../core/plan/plan.js';
import { AuditError } from '../services/audit/store.js';
import { Ros2Unavailable } from '../backends/ros2/rclnodejs-loader.js';

export const EXIT = {
  ok: 0,
  /** The answer is "no" (a word violates a formula, a check failed). */
  negative: 1,
  /** Malformed input: formula syntax, flags, files. */
  usage: 2,
  /** A budget (length, nesting, states, time) was exceeded. */
  budget: 3,
  /** ROS 2 cannot be used here: not sourced, rclnodejs not installed or not loading (the message says the fix). */
  unavailable: 4,
} as const;

export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT.usage) {
    super(message);
  }
}

export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** Where a command may ask the operator (default: process.stdin); tests pass their own. */
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
}

export const processOutput: Output = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** Maps an error to its one-line report and exit code. `where` prefixes positions (a file name). */
export function report(e: unknown, io: Output, where?: string): number {
  if (e instanceof LtlSyntaxError) {
    io.err(`error: ${where ? `${where}:` : ''}${e.line}:${e.column}: ${e.detail}\n`);
    return EXIT.usage;
  }
  if (e instanceof LtlBudgetError || e instanceof PlanBudgetError) {
    io.err(`error: budget: ${where ? `${where}: ` : ''}${e.message}\n`);
    return EXIT.budget;
  }
  if (e instanceof DatasetError || e instanceof LayoutError || e instanceof WorldError || e instanceof ModelError || e instanceof GraphError || e instanceof CheckpointError || e instanceof InputError || e instanceof AuditError) {
    io.err(`error: ${e.message}\n`);
    return EXIT.usage;
  }
  if (e instanceof Ros2Unavailable) {
    io.err(`error: ${e.message}\n`);
    return EXIT.unavailable;
  }
  if (e instanceof CliError) {
    io.err(`error: ${e.message}\n`);
    return e.exitCode;
  }
  const msg = e instanceof Error ? e.message : String(e);
  io.err(`error: internal: ${msg}\n`);
  return 70;
}

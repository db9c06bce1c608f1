/**
 * The operator's answer to an escalation, from the command line: a standing decision given as flags
 * (`--decision`, `--reason`), a question on the terminal, or — with no terminal and no flag — abort,
 * said on stderr. All three are the loop's one `decide` hook, as the console's dialog is.
 */
import { createInterface, type Interface } from 'node:readline';
import { DECISIONS, type DecisionKind } from '../contract/defaults.js';
import { reasonProblem } from '../contract/reason.js';
import type { Decide, Escalation, OperatorDecision } from '../contract/failure.js';
import { CliError, type Output } from './errors.js';
import { printable } from './printable.js';

const NO_OPERATOR_REASON = 'no operator (stdin is not a terminal)';

const isDecision = (x: string): x is DecisionKind => (DECISIONS as readonly string[]).includes(x);

export interface DecisionFlags {
  readonly decision?: string;
  readonly reason?: string;
}

/** The escalation as the operator needs it: why, and the failure that caused it. */
function describeEscalation(e: Escalation): string {
  const f = e.failure;
  const what =
    f.source === 'tool'
      ? `${f.tool}(${JSON.stringify(f.args)}) → ${f.stage} "${f.violated}" failed: observed ${JSON.stringify(f.observed)}${f.error ? ` (${f.error})` : ''}`
      : `${f.from} → ${f.to}: ${f.kind} (violated ${f.violated}): ${f.rule}`;
  // The reason and the failure quote the planner (an LLM), the tool files and the world: controls escaped.
  return `${printable(`the loop escalated (#${e.n}, ${e.cause}): ${e.reason}`)}\n  ${printable(`last failure: ${what} → ${f.label} (${f.class})`)}\n`;
}

/** A standing decision from the flags (every escalation of the run gets it), or null when none was given. */
function flagDecision(f: DecisionFlags, operator: string): Decide | null {
  if (f.decision === undefined) {
    if (f.reason !== undefined)
      throw new CliError(
        `--reason goes with --decision (${DECISIONS.join('|')}); without --decision the operator is asked on the terminal`,
      );
    return null;
  }
  // Commander's choices() checks the value already; this guards callers that bypass it.
  if (!isDecision(f.decision))
    throw new CliError(`--decision must be one of ${DECISIONS.join(', ')}, got '${f.decision}'`);
  const problem = f.reason === undefined ? null : reasonProblem(f.reason.trim());
  if (problem !== null) throw new CliError(`--reason: the reason ${problem}`);
  const d: OperatorDecision = {
    decision: f.decision,
    reason: f.reason?.trim() ?? `given on the command line (--decision ${f.decision})`,
    operator,
  };
  return () => Promise.resolve(d);
}

/** No terminal and no flag: nobody can answer, so nothing more moves. */
function noOperator(io: Output): Decide {
  return (e) => {
    io.err(
      `witness: ${describeEscalation(e)}witness: stdin is not a terminal and no --decision was given: aborting with reason "${NO_OPERATOR_REASON}"; give --decision ${DECISIONS.join('|')} [--reason TEXT] to decide without a terminal\n`,
    );
    return Promise.resolve({ decision: 'abort', reason: NO_OPERATOR_REASON });
  };
}

/**
 * Asks on a terminal: the decision (asked again until it is one of the escalation's options) and a
 * reason. Prompts go to stderr so `--json` output stays clean. The end of input (Ctrl-D) is abort.
 */
class TerminalOperator {
  private rl: Interface | null = null;
  private lines: AsyncIterator<string> | null = null;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly io: Output,
    private readonly operator: string,
  ) {}

  private async line(prompt: string): Promise<string | null> {
    this.io.err(prompt);
    if (this.lines === null) {
      this.rl = createInterface({ input: this.input, terminal: false });
      this.lines = this.rl[Symbol.asyncIterator]();
    }
    const r = await this.lines.next();
    return r.done === true ? null : String(r.value).trim();
  }

  readonly decide: Decide = async (e) => {
    this.io.err(`\nwitness: ${describeEscalation(e)}`);
    const closed: OperatorDecision = {
      decision: 'abort',
      reason: 'the operator closed the terminal (end of input)',
      operator: this.operator,
    };
    const options = e.options;
    for (;;) {
      const answer = await this.line(
        `decide: abort (end the run), retry (one more round of replans)${options.includes('skip') ? ' or skip (abandon this step, go on)' : ''} [${options.join('/')}]: `,
      );
      if (answer === null) return closed;
      const decision = answer.toLowerCase();
      if (!isDecision(decision) || !options.includes(decision)) {
        this.io.err(`  '${answer}' is not one of ${options.join(', ')}\n`);
        continue;
      }
      const reason = await this.line('reason: ');
      if (reason === null) return closed;
      return { decision, reason: reason === '' ? '(no reason given)' : reason, operator: this.operator };
    }
  };

  close(): void {
    this.rl?.close();
  }
}

/**
 * Who answers a run's escalations: the flags, else the terminal (stdin is a TTY), else nobody — the
 * escalation ends the run, said on stderr. `close` releases the terminal.
 */
export function chooseOperator(
  io: Output,
  flags: DecisionFlags,
  operator: string,
): { readonly decide: Decide; close(): void } {
  const input = io.stdin ?? process.stdin;
  let terminal: TerminalOperator | null = null;
  let decide = flagDecision(flags, operator);
  if (decide === null && input.isTTY === true) {
    terminal = new TerminalOperator(input, io, operator);
    decide = terminal.decide;
  }
  return { decide: decide ?? noOperator(io), close: () => terminal?.close() };
}

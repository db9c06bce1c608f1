/**
 * The lines `witness audit ls`, `show` and `query` print for a run and an event, on a local log and (after the
 * source's name: cli/audit-fleet.ts) on a fleet store. Every field but numbers and times is text from the database:
 * shown with its control characters escaped.
 */
import type { EventRow, RunSummary } from '../app/audit.js';
import type { Output } from './errors.js';
import { printable } from './printable.js';

const iso = (ms: number | null): string => (ms === null ? '–' : new Date(ms).toISOString());

/** One event's line (`prefix`: the source on a fleet store, already printable). */
export function printEvent(
  io: Output,
  e: Pick<EventRow, 'seq' | 't_ms' | 'kind' | 'run_id' | 'tool' | 'failure_label' | 'step' | 'body'>,
  prefix = '',
): void {
  const body = e.body.length > 160 ? `${e.body.slice(0, 157)}…` : e.body;
  io.out(
    `${prefix}${String(e.seq).padStart(8)}  ${iso(e.t_ms)}  ${printable(`${e.kind.padEnd(16)} ${e.run_id.slice(0, 8)}${e.step !== null ? ` step ${e.step}` : ''}${e.tool ? ` tool ${e.tool}` : ''}${e.failure_label ? ` [${e.failure_label}]` : ''}  ${body}`)}\n`,
  );
}

/** One run's line of `ls`. */
export const runLine = (r: RunSummary, prefix = ''): string =>
  `${prefix}${printable(`${r.id}  ${iso(r.started_ms)}  ${r.world.padEnd(18)} ${r.operator.padEnd(10)} ${String(r.events).padStart(7)} events  ${r.outcome ?? '(no end)'}${r.tampered !== undefined ? `  TAMPERED: ${r.tampered}` : ''}`)}\n`;

/** What `ls` says on stderr after listing runs marked TAMPERED. */
export const TAMPERED_RUNS_WARNING =
  'warning: the runs table disagrees with the hash chain for the runs marked TAMPERED; run `witness audit verify`\n';

/** A run's header, as `show` and `replay` print it: its line, then its specification if it has one. */
export function runHeader(
  r: Pick<RunSummary, 'id' | 'world' | 'backend' | 'operator' | 'software' | 'started_ms' | 'ended_ms' | 'outcome'>,
  spec: string | null,
): string {
  return (
    `${printable(`run ${r.id}: ${r.world} (${r.backend}), operator ${r.operator}, ${r.software}, started ${iso(r.started_ms)}, ended ${iso(r.ended_ms)}, outcome ${r.outcome ?? '–'}`)}\n` +
    (spec !== null ? `specification: ${printable(spec)}\n` : '')
  );
}

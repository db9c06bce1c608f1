/**
 * The control loop's events into the audit log: the loop's onEvent hook as non-blocking appends
 * through a run's sink (the loop never waits on the disk), with the tool and failure label in their
 * indexed columns so `witness audit query --tool … --failure …` finds them.
 */
import type { LoopOptions } from '../../core/loop/loop.js';
import type { AuditSink } from './mission-recorder.js';

export function loopEvents(sink: AuditSink): NonNullable<LoopOptions['onEvent']> {
  return (kind, body) => sink.event(kind, body, {
    ...(typeof body['tool'] === 'string' ? { tool: body['tool'] } : {}),
    ...(kind === 'failure_record' && typeof body['label'] === 'string' ? { failureLabel: body['label'] } : {}),
  });
}

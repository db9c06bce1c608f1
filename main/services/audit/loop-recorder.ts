/**
 * The control loop's events into the audit log: the loop's onEvent hook as non-blocking appends
 * through a run's sink (the loop never waits on the disk), with the tool and failure label in their
 * indexed columns so `witness audit query --tool … --failure …` finds them.
 */
import type { LoopEvents } from '../../core/loop/loop.js';
import type { AuditSink } from './mission-recorder.js';

export function loopEvents(sink: AuditSink): LoopEvents {
  return (kind, body) => {
    const b = body as { tool?: unknown; label?: unknown };
    sink.event(kind, body, {
      ...(typeof b.tool === 'string' ? { tool: b.tool } : {}),
      ...(kind === 'failure_record' && typeof b.label === 'string' ? { failureLabel: b.label } : {}),
    });
  };
}

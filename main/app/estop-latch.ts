/**
 * Where the E-STOP's latch is kept durably, so that a workbench that crashed or was restarted while
 * latched comes up latched: in the audit log (the latch's run, which only its reset ends) and in a
 * small file in the workspace (`.witness/estop-latch.json`, written atomically the moment it fires,
 * before the audit log's record is written; removed once the reset is on record). At start the
 * audit log decides; the file covers a record that never reached the log. Whatever cannot be read
 * is taken as latched: a latch is never lost to a damaged file.
 */
import { readFileSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { errno, errText, writeFileAtomic } from '../platform/files.js';
import { latchInAuditLog, type OpenLatchRecord } from '../services/audit/estop-latch.js';

/** A latch as it is kept. */
interface DurableLatch {
  readonly since: number;
  readonly by: string;
  readonly reason: string;
  readonly stopped: readonly string[];
  /** Its run in the audit log (null: not written there yet). */
  readonly auditRun: string | null;
}

export interface LatchStore {
  /** The latch a workbench starts with (null: clear), and what was found on the way, for the log. */
  restore(): { latch: DurableLatch | null; notes: string[] };
  /** Keeps `l` (replacing what was kept). */
  save(l: DurableLatch): Promise<void>;
  /** Forgets the latch (its reset is on record). */
  clear(): Promise<void>;
}

/** The workspace's latch file. */
export const latchFile = (workspace: string): string => path.join(workspace, '.witness', 'estop-latch.json');

function readLatchFile(file: string): { latch: DurableLatch | null; note: string | null } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (errno(e) === 'ENOENT') return { latch: null, note: null };
    return {
      latch: unreadable(file, errText(e)),
      note: `${file}: cannot be read (${errText(e)}); the E-STOP is taken as latched`,
    };
  }
  try {
    const j = JSON.parse(text) as Partial<DurableLatch>;
    if (typeof j.since !== 'number' || typeof j.by !== 'string' || typeof j.reason !== 'string')
      throw new Error('since, by and reason are required');
    return {
      latch: {
        since: j.since,
        by: j.by,
        reason: j.reason,
        stopped: Array.isArray(j.stopped) ? j.stopped.filter((s): s is string => typeof s === 'string') : [],
        auditRun: typeof j.auditRun === 'string' ? j.auditRun : null,
      },
      note: null,
    };
  } catch (e) {
    return {
      latch: unreadable(file, errText(e)),
      note: `${file}: not a latch record (${errText(e)}); the E-STOP is taken as latched`,
    };
  }
}

const unreadable = (file: string, why: string): DurableLatch => ({
  since: Date.now(),
  by: 'unknown',
  reason: `the workspace's E-STOP latch file ${file} could not be read (${why}): taken as latched`,
  stopped: [],
  auditRun: null,
});

const fromRecord = (r: OpenLatchRecord): DurableLatch => ({
  since: r.since,
  by: r.by,
  reason: r.reason,
  stopped: [...r.stopped],
  auditRun: r.run,
});

/** The latch kept in `workspace` and in the audit log at `auditFile`. */
export function durableLatch(workspace: string, auditFile: string): LatchStore {
  const file = latchFile(workspace);
  return {
    restore() {
      const notes: string[] = [];
      const kept = readLatchFile(file);
      if (kept.note !== null) notes.push(kept.note);
      let logged: ReturnType<typeof latchInAuditLog> = { open: null, runEnded: false };
      try {
        logged = latchInAuditLog(auditFile, kept.latch?.auditRun ?? null);
      } catch (e) {
        if (errno((e as { cause?: unknown }).cause) !== 'ENOENT' && !/no such file/.test(errText(e)))
          notes.push(
            `audit log ${auditFile}: the latch could not be read there (${errText(e)}); the workspace's latch file decides`,
          );
      }
      if (logged.open !== null) return { latch: fromRecord(logged.open), notes };
      // The file names a latch whose reset is on record: the workbench stopped between the two.
      if (kept.latch !== null && kept.latch.auditRun !== null && logged.runEnded) {
        rmSync(file, { force: true });
        return { latch: null, notes };
      }
      return { latch: kept.latch, notes };
    },
    save: (l) => writeFileAtomic(file, `${JSON.stringify(l, null, 2)}\n`, { mkdir: true }),
    clear: () => rm(file, { force: true }),
  };
}

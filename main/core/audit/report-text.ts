/**
 * The fleet reports as text (report.ts folds them): a header with the filters, then columns padded to their widest
 * cell. Lines come back unescaped; the CLI escapes what it prints.
 */
import { type EstopReport, type FailureReport, type ReplanReport, type ReportFilter } from './report.js';

const iso = (ms: number | null): string => (ms === null ? '–' : new Date(ms).toISOString());
const shown = (v: string | null): string => v ?? '–';
const shortLog = (id: string): string => (id.length > 16 ? `${id.slice(0, 16)}…` : id);

/** The filters in words ('' when none). */
function filterText(f: ReportFilter): string {
  const parts = [
    f.source !== undefined ? `source ${f.source}` : '',
    f.robot !== undefined ? `robot ${f.robot}` : '',
    f.world !== undefined ? `world ${f.world}` : '',
    f.host !== undefined ? `host ${f.host}` : '',
    f.since_ms !== undefined ? `since ${iso(f.since_ms)}` : '',
    f.until_ms !== undefined ? `until ${iso(f.until_ms)}` : '',
  ].filter((p) => p !== '');
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** Rows as columns padded to their widest cell. */
function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
}

/** The failures report as lines of text (the caller escapes what it prints). */
export function failuresText(r: FailureReport): string[] {
  const head = `failures by ${r.by.join(', ')}${r.every !== null ? `, every ${r.every}` : ''}${filterText(r.filter)}: ${r.total} in ${r.groups.length} group${r.groups.length === 1 ? '' : 's'}`;
  if (r.groups.length === 0) return [head];
  const rows = [[...r.by, 'count', 'first', 'last']];
  for (const g of r.groups) {
    const keys = r.by.map((k) => (k === 'source' && g.key[k] != null ? shortLog(g.key[k]) : shown(g.key[k] ?? null)));
    rows.push([...keys, String(g.count), iso(g.first_ms), iso(g.last_ms)]);
  }
  const lines = table(rows);
  const out = [head, lines[0]!];
  r.groups.forEach((g, i) => {
    out.push(lines[i + 1]!);
    for (const b of g.buckets ?? []) out.push(`    ${iso(b.start_ms)}  ${b.count}`);
  });
  return out;
}

/** The replans report as lines of text. */
export function replansText(r: ReplanReport): string[] {
  const head = `replans and escalations per run${filterText(r.filter)}: ${r.replans} replans, ${r.escalations} escalations in ${r.runs.length} run${r.runs.length === 1 ? '' : 's'}`;
  if (r.runs.length === 0) return [head];
  const rows = [['run', 'started', 'log', 'robot', 'world', 'replans', 'escalations', 'outcome']];
  for (const x of r.runs)
    rows.push([
      x.run_id,
      iso(x.started_ms),
      shortLog(x.log_id),
      shown(x.robot),
      shown(x.world),
      String(x.replans),
      String(x.escalations),
      x.outcome ?? '(no end)',
    ]);
  return [head, ...table(rows)];
}

/** The E-STOPs report as lines of text: each E-STOP, who and why, then its reset. */
export function estopsText(r: EstopReport): string[] {
  const out = [`E-STOPs${filterText(r.filter)}: ${r.estops.length}, ${r.reset} reset on record`];
  for (const e of r.estops) {
    out.push(
      `${iso(e.t_ms)}  E-STOP by ${shown(e.operator)} via ${shown(e.via)}  log ${shortLog(e.log_id)} host ${shown(e.host)} robot ${shown(e.robot)}  run ${e.run_id} (${shown(e.world)}, event ${e.seq})`,
    );
    out.push(`    why: ${shown(e.reason)}`);
    out.push(
      e.reset === null
        ? '    reset: none on record'
        : `    reset ${iso(e.reset.t_ms)} by ${shown(e.reset.operator)}: ${shown(e.reset.reason)}`,
    );
  }
  return out;
}

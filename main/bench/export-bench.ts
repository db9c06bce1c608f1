/**
 * The audit export benchmark (`witness bench export`): one mission-like run of N events written
 * through the real writer (AuditLog: hash chain, blobs), then exported to MCAP — the event channels
 * and the foxglove.* ones (services/audit/export.ts) — and, as the baseline in the same process, to
 * JSON Lines. Figures: events/s and MB/s of output for each, and their ratio.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { AuditLog, openAuditReadOnly } from '../services/audit/store.js';
import { missionRecorder } from '../services/audit/mission-recorder.js';
import { exportAudit, exportMcap } from '../services/audit/export.js';
import { fmt } from './stats.js';
import { scratchFolder } from '../platform/scratch.js';

interface ExportMeasure {
  /**
   * Wall time, and this process's CPU time (user + system) over the same span: on a shared machine the CPU figure is
   * the steadier one.
   */
  readonly seconds: number;
  readonly cpu_s: number;
  readonly eventsPerCpuSecond: number;
  readonly eventsPerSecond: number;
  readonly bytes: number;
  readonly mbPerSecond: number;
}

export interface ExportBenchResult {
  readonly events: number;
  readonly write_s: number;
  readonly dbMiB: number;
  readonly mcap: ExportMeasure & { readonly messages: number; readonly foxglove: number };
  readonly jsonl: ExportMeasure;
}

const T0 = Date.UTC(2026, 0, 1);
const REGIONS = {
  world: 'pointmaze-medium',
  regions: [
    { name: 'e1', kind: 'disk', center: [4, 4], radius: 1.5 },
    { name: 'e2', kind: 'disk', center: [16, 16], radius: 1.5 },
  ],
};
const PLAN = {
  status: 'ok',
  method: 'sagas',
  prefix: ['start', 'c1', 'anchor:e1:0'],
  suffix: ['c2', 'anchor:e2:0', 'c1', 'anchor:e1:0'],
  cost: { prefix: 10, suffix: 20, objective: 15 },
  dwell: false,
  k: 5,
  lambda: 0.5,
  stats: {},
};

/**
 * Writes one run of `events` events as a mission records them: per step a checkpoint, the evidence
 * with the robot's position and a monitor event; a failure record and a replan every 5000 steps.
 */
async function writeRun(file: string, events: number, progress?: (label: string) => void): Promise<void> {
  let t = T0;
  const log = AuditLog.open(file, { now: () => t });
  const run = await log.startRun({
    world: 'pointmaze-medium',
    backend: 'mujoco',
    operator: 'bench',
    software: 'witness bench export',
    models: {},
    spec: 'G F e1 & G F e2',
    regions: JSON.stringify(REGIONS),
    meta: { method: 'sagas-replan', start: [4, 20] },
  });
  missionRecorder(log, run).plan(0, 'initial', PLAN, 1.5);
  let n = 2,
    step = 0;
  let inflight: Promise<number>[] = [];
  const add = (kind: Parameters<AuditLog['append']>[1], body: unknown, o: { failureLabel?: string } = {}): void => {
    t += 5;
    inflight.push(log.append(run, kind, body, { step, t_ms: t, ...o }));
    n++;
  };
  while (n < events - 1) {
    step++;
    const a = step / 200;
    const x = 10 + 6 * Math.cos(a),
      y = 10 + 6 * Math.sin(a);
    const node = `c${step % 400}`;
    add('checkpoint', { kind: 'waypoint', t: step, stream: 'suffix', index: step % 4, node, skipped: 0 });
    if (n >= events - 1) break;
    add('evidence', {
      instruction: `realise the planned transition to ${node}`,
      state: { x, y, labels: [] },
      action: 'waypoint',
      verifier: 'waypoint reached',
      failure_label: null,
    });
    if (n >= events - 1) break;
    add('monitor_event', { states: [step % 3], viable: true, accepting: step % 3 === 2, labels: [] });
    if (step % 5000 === 0 && n < events - 3) {
      add(
        'failure_record',
        {
          t: step,
          kind: 'tracking-timeout',
          stream: 'suffix',
          index: 1,
          from: node,
          to: 'anchor:e1:0',
          term: '!e0',
          violated: 'anchor:e1:0',
          labels: [],
          latent: [0.5, -1.25],
          class: 'transient',
          rule: `tracking ${node} → anchor:e1:0 timed out: multiply its weight by 4 and replan`,
          action: 'penalize-edge',
          unrecoverable: false,
        },
        { failureLabel: 'tracking-timeout' },
      );
      add('replan', {
        trigger: 'tracking-timeout',
        failure: step / 5000 - 1,
        replan: step / 5000,
        from_states: [1],
        prefix_nodes: 3,
      });
    }
    if (inflight.length >= 20_000) {
      await Promise.all(inflight);
      inflight = [];
      if (n % 200_000 < 20_000) progress?.(`write ${n}`);
    }
  }
  t += 5;
  inflight.push(
    log.append(
      run,
      'run_end',
      { outcome: 'success', failureMode: null, message: 'bench', steps: step, replans: Math.floor(step / 5000) },
      { step, t_ms: t },
    ),
  );
  await Promise.all(inflight);
  await log.close();
}

const measure = (events: number, seconds: number, cpu_s: number, bytes: number): ExportMeasure => ({
  seconds,
  cpu_s,
  eventsPerCpuSecond: events / cpu_s,
  eventsPerSecond: events / seconds,
  bytes,
  mbPerSecond: bytes / 1e6 / seconds,
});
const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
};

export async function runExportBench(events: number, progress?: (label: string) => void): Promise<ExportBenchResult> {
  // Removed however the process ends (platform/scratch.ts), also by a signal during synchronous work.
  const scratch = scratchFolder('witness-export-bench-');
  const dir = scratch.dir;
  try {
    progress?.('write the run');
    const file = join(dir, 'audit.sqlite');
    const w0 = performance.now();
    await writeRun(file, events, progress);
    const write_s = (performance.now() - w0) / 1000;
    const db = openAuditReadOnly(file);
    try {
      const stored = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
      progress?.('export MCAP');
      const m0 = performance.now(),
        mc = process.cpuUsage();
      const r = await exportMcap(db, join(dir, 'out.mcap'));
      const mcap_s = (performance.now() - m0) / 1000,
        mcap_cpu = cpuSeconds(mc);
      progress?.('export JSON Lines (baseline)');
      const j0 = performance.now(),
        jc = process.cpuUsage();
      await exportAudit(db, 'jsonl', join(dir, 'out.jsonl'));
      const jsonl_s = (performance.now() - j0) / 1000,
        jsonl_cpu = cpuSeconds(jc);
      return {
        events: stored,
        write_s,
        dbMiB: statSync(file).size / 2 ** 20,
        mcap: {
          ...measure(stored, mcap_s, mcap_cpu, statSync(join(dir, 'out.mcap')).size),
          messages: r.messages,
          foxglove: r.foxglove,
        },
        jsonl: measure(stored, jsonl_s, jsonl_cpu, statSync(join(dir, 'out.jsonl')).size),
      };
    } finally {
      db.close();
    }
  } finally {
    scratch.remove();
  }
}

export function exportTable(r: ExportBenchResult): string {
  return (
    [
      '| export of one run | events/s (wall) | MB/s (output, wall) | time | events per CPU second | CPU time | output |',
      '|---|---|---|---|---|---|---|',
      `| MCAP (${r.mcap.messages} event messages + ${r.mcap.foxglove} foxglove.* messages) | ${fmt(r.mcap.eventsPerSecond, 0)} | ${fmt(r.mcap.mbPerSecond, 1)} | ${fmt(r.mcap.seconds, 1)} s | ${fmt(r.mcap.eventsPerCpuSecond, 0)} | ${fmt(r.mcap.cpu_s, 1)} s | ${fmt(r.mcap.bytes / 1e6, 1)} MB |`,
      `| baseline: JSON Lines of the same database | ${fmt(r.jsonl.eventsPerSecond, 0)} | ${fmt(r.jsonl.mbPerSecond, 1)} | ${fmt(r.jsonl.seconds, 1)} s | ${fmt(r.jsonl.eventsPerCpuSecond, 0)} | ${fmt(r.jsonl.cpu_s, 1)} s | ${fmt(r.jsonl.bytes / 1e6, 1)} MB |`,
      `| MCAP / JSON Lines | ${fmt(r.mcap.eventsPerSecond / r.jsonl.eventsPerSecond, 2)} | | | ${fmt(r.mcap.eventsPerCpuSecond / r.jsonl.eventsPerCpuSecond, 2)} | | |`,
    ].join('\n') +
    `\n\n${r.events} events (audit database ${fmt(r.dbMiB, 1)} MiB, written through the audit writer in ${fmt(r.write_s, 1)} s; not part of the figures).`
  );
}

#!/usr/bin/env node
/**
 * The E-STOP's answer time under the heaviest audit read, and the first page of `witness audit ls`,
 * on a synthetic audit log of a million runs whose hash chain is intact (test/api/audit-synth.ts):
 *
 *  - E-STOP over web mode (the web server and the handlers, as `witness web` runs them), pressed
 *    every 50 ms by a client in another thread that times each answer (test/api/estop-probe.ts):
 *    idle; while `auditVerify` walks the whole chain as the handlers run it (in the audit worker);
 *    and, the baseline in the same process, while the same verification runs on the server's event
 *    loop (app/audit.ts AuditBrowser called there, as the handlers did before).
 *  - `audit ls`: the first page the command prints (app/audit.ts auditRunPages) against every page
 *    (the whole listing), in this process; then `witness audit ls` as a process, to its first line
 *    and to its end.
 *
 * Usage: npm run build && node scripts/bench-estop.js [--runs 1000000] [--db FILE]
 *        (--db: the log is kept there and reused when it already holds --runs runs)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(arg('runs', 1_000_000));
const dist = (p) => import(path.join(ROOT, 'dist', p));
const { writeSynthLog } = await dist('test/api/audit-synth.js');
const { startEstopProbe } = await dist('test/api/estop-probe.js');
const { createDirectApi } = await dist('main/api/direct.js');
const { createDispatcher } = await dist('main/api/dispatch.js');
const { startWebServer } = await dist('main/api/web/server.js');
const { AuditBrowser, auditRunPages } = await dist('main/app/audit.js');
const { openAuditReadOnly } = await dist('main/services/audit/store.js');

const now = () => performance.timeOrigin + performance.now();
const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const dir = mkdtempSync(path.join(tmpdir(), 'witness-bench-estop-'));
const db = arg('db', path.join(dir, 'runs.sqlite'));

const holds = (file) => {
  if (!existsSync(file)) return false;
  const d = openAuditReadOnly(file);
  try {
    return d.prepare('SELECT count(*) FROM runs').pluck().get() === RUNS;
  } finally {
    d.close();
  }
};
if (!holds(db)) {
  const t = performance.now();
  writeSynthLog(db, RUNS);
  console.error(
    `bench estop: wrote ${RUNS} runs (${2 * RUNS} chained events) to ${db} in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
}

writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>bench</title>');
const api = createDirectApi({ workspace: dir, auditFile: path.join(dir, 'session.sqlite') });
const server = await startWebServer({ dispatch: createDispatcher(api), bus: api.context.bus, root: dir });
const probe = await startEstopProbe({ port: server.port, token: server.token, intervalMs: 50 });
const rows = [];
/** The presses sent while `read` ran, and how long it took. */
async function under(name, read) {
  const from = probe.samples().length;
  const t0 = now();
  await read();
  const t1 = now();
  // Answers come in order on the probe's one connection: once one sent after the read is in, all are.
  while (!(probe.samples().at(-1)?.sentAt >= t1)) await probe.more(1);
  const ms = probe
    .samples()
    .slice(from)
    .filter((s) => s.sentAt >= t0 && s.sentAt < t1)
    .map((s) => s.ms);
  rows.push({ name, read_s: (t1 - t0) / 1000, ms });
  console.error(
    `bench estop: ${name}: ${ms.length} presses, median ${f1(q(ms, 0.5))} ms, max ${f1(Math.max(...ms))} ms`,
  );
}
try {
  await probe.more(3);
  await under('idle (2 s)', () => new Promise((r) => setTimeout(r, 2000)));
  await under('auditVerify in the audit worker (as shipped)', async () => {
    const v = await api.auditVerify({ file: db });
    if (!v.ok || v.events !== 2 * RUNS) throw new Error(`verify: ${JSON.stringify(v)}`);
  });
  const onLoop = new AuditBrowser({ auditFile: db, workspace: dir });
  await under('the same verification on the event loop (before)', async () => {
    const v = await onLoop.verify({ file: db });
    if (!v.ok) throw new Error(`verify: ${JSON.stringify(v)}`);
  });
  onLoop.close();
} finally {
  await probe.stop();
  await server.close();
  await api.close();
}

// audit ls: the first page against the whole listing, in this process.
let t = performance.now();
const pages = auditRunPages(db);
const first = await pages.next();
const firstMs = performance.now() - t;
let listed = first.value.length;
for await (const p of pages) listed += p.length;
const wholeMs = performance.now() - t;
if (listed !== RUNS) throw new Error(`audit ls listed ${listed} runs`);
// And as a process: to its first line, and to its end.
const cli = await new Promise((resolve, reject) => {
  const t0 = performance.now();
  let firstLine = null,
    lines = 0;
  const p = spawn(process.execPath, [path.join(ROOT, 'bin', 'witness.js'), 'audit', 'ls', db], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  p.stdout.on('data', (d) => {
    firstLine ??= performance.now() - t0;
    for (const c of d) if (c === 10) lines++;
  });
  p.on('error', reject);
  p.on('exit', (code) =>
    code === 0
      ? resolve({ firstLine, end: performance.now() - t0, lines })
      : reject(new Error(`witness audit ls exited ${code}`)),
  );
});
if (cli.lines !== RUNS) throw new Error(`witness audit ls printed ${cli.lines} lines`);
const version = await new Promise((resolve) => {
  const t0 = performance.now();
  spawn(process.execPath, [path.join(ROOT, 'bin', 'witness.js'), '--version'], { stdio: 'ignore' }).on('exit', () =>
    resolve(performance.now() - t0),
  );
});

const idle = q(rows[0].ms, 0.5);
console.log(`# node scripts/bench-estop.js --runs ${RUNS}\n`);
console.log(
  `E-STOP answer (emergencyStop over web mode, pressed every 50 ms from another thread), log of ${RUNS} runs, ${2 * RUNS} events:\n`,
);
console.log('| while | read | presses | median ms | p90 ms | max ms | median / idle |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.name} | ${r.name.startsWith('idle') ? '–' : `${r.read_s.toFixed(1)} s`} | ${r.ms.length} | ${f1(q(r.ms, 0.5))} | ${f1(q(r.ms, 0.9))} | ${f1(Math.max(...r.ms))} | ${(q(r.ms, 0.5) / idle).toFixed(1)}× |`,
  );
}
console.log(`\naudit ls on ${RUNS} runs:\n`);
console.log('| | ms | against the whole listing |');
console.log('|---|---:|---:|');
console.log(`| first page (1000 runs, in process) | ${f1(firstMs)} | ${(firstMs / wholeMs).toExponential(1)} |`);
console.log(`| whole listing (every page, in process) | ${f1(wholeMs)} | 1 |`);
console.log(`| \`witness audit ls\`: first line | ${f1(cli.firstLine)} | (\`witness --version\`: ${f1(version)} ms) |`);
console.log(`| \`witness audit ls\`: last line | ${f1(cli.end)} | |`);
rmSync(dir, { recursive: true, force: true });

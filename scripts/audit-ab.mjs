#!/usr/bin/env node
// A/B of the audit store in one process: this build's durable appends and chain verification
// against another build's (another commit compiled elsewhere), interleaved round by round so that
// a loaded machine slows both alike; prints each round and the median ratios (this / other).
//
//   git worktree add /tmp/base <commit> && (cd /tmp/base && ln -s "$OLDPWD/node_modules" . && npx tsc -p tsconfig.json)
//   node scripts/audit-ab.mjs /tmp/base/dist [rounds=8] [events=60000]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [otherDist, roundsArg, eventsArg] = process.argv.slice(2);
if (otherDist === undefined) {
  console.error('usage: node scripts/audit-ab.mjs OTHER-DIST [rounds] [events]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 8),
  events = Number(eventsArg ?? 60_000);
const thisDist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const load = (dist, rel) => import(pathToFileURL(path.resolve(dist, rel)).href);
const builds = {};
for (const [name, dist] of [
  ['this', thisDist],
  ['other', otherDist],
]) {
  builds[name] = {
    store: await load(dist, 'main/services/audit/store.js'),
    forensics: await load(dist, 'main/services/audit/forensics.js'),
  };
}
const { benchEvent } = await load(thisDist, 'main/bench/audit-bench.js');
const dir = mkdtempSync(path.join(tmpdir(), 'witness-audit-ab-'));

/** Durable appends (at most 20 000 in flight) into a new database; events/s and the file. */
async function append(store, n, name) {
  const file = path.join(dir, `${name}-${Math.random().toString(36).slice(2)}.sqlite`);
  const log = store.AuditLog.open(file);
  const run = await log.startRun({ world: 'ab', backend: 'none', operator: 'ab', software: 'audit-ab', models: {} });
  const t = performance.now();
  let inflight = [];
  for (let i = 0; i < n; i++) {
    const e = benchEvent(i);
    inflight.push(
      log.append(run, e.kind, e.body, {
        step: i,
        tool: e.tool,
        ...(e.failure !== undefined ? { failureLabel: e.failure } : {}),
      }),
    );
    if (inflight.length >= 20_000) {
      await Promise.all(inflight);
      inflight = [];
    }
  }
  await Promise.all(inflight);
  const rate = n / ((performance.now() - t) / 1000);
  await log.close();
  return { rate, file };
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const appendRatios = [],
  verifyRatios = [];
try {
  for (let r = 0; r < rounds; r++) {
    // Which build goes first alternates, so that neither always runs on a warmer (or busier) machine.
    const first = r % 2 === 0 ? 'this' : 'other';
    const one = await append(builds[first].store, events, first);
    const two = await append(
      builds[first === 'this' ? 'other' : 'this'].store,
      events,
      first === 'this' ? 'other' : 'this',
    );
    const [a, b] = first === 'this' ? [one, two] : [two, one];
    // Both verifiers on the same database (this build's), read-only, in the same alternating order.
    const db = builds.this.store.openAuditReadOnly(a.file);
    const verify = (name) => builds[name].forensics.verifyChain(db).chain_ms;
    const [va, vb] =
      first === 'this'
        ? [verify('this'), verify('other')]
        : (() => {
            const y = verify('other');
            return [verify('this'), y];
          })();
    db.close();
    appendRatios.push(a.rate / b.rate);
    verifyRatios.push(va / vb);
    console.log(
      `round ${r + 1}: appends this ${a.rate.toFixed(0)}/s other ${b.rate.toFixed(0)}/s (${(a.rate / b.rate).toFixed(2)}); verify this ${va.toFixed(0)} ms other ${vb.toFixed(0)} ms (${(va / vb).toFixed(2)}); size this ${(statSync(a.file).size / 2 ** 20).toFixed(1)} MiB other ${(statSync(b.file).size / 2 ** 20).toFixed(1)} MiB`,
    );
    rmSync(a.file, { force: true });
    rmSync(b.file, { force: true });
  }
  console.log(
    `median over ${rounds} rounds of ${events} events: appends this/other ${median(appendRatios).toFixed(2)} (range ${Math.min(...appendRatios).toFixed(2)}–${Math.max(...appendRatios).toFixed(2)}); verify time this/other ${median(verifyRatios).toFixed(2)} (range ${Math.min(...verifyRatios).toFixed(2)}–${Math.max(...verifyRatios).toFixed(2)})`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

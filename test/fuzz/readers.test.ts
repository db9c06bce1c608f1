/**
 * The fuzzing suite, in-process tier: every parser and file reader gets seeded hostile inputs and
 * must return or refuse with a WitnessError that is not internal (which the CLI turns into exit 2
 * or 3 with a message). FUZZ_RUNS scales the cases (default 40 per target, fewer for slow readers);
 * FUZZ_SEED picks another seed. `npm run fuzz` runs many more and prints the figures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { auditSeed, targets } from './targets.js';
import { casesFor, fuzzTarget } from './harness.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 40);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20261201);

const dir = mkdtempSync(path.join(tmpdir(), 'witness-fuzz-seed-'));
const all = targets(await auditSeed(dir));
rmSync(dir, { recursive: true, force: true });

for (const t of all) {
  test(
    `fuzz ${t.name}: ${t.reads} — hostile inputs are read or refused with a clear error, never a crash`,
    { timeout: 600_000 },
    async () => {
      const s = await fuzzTarget(t, { runs: casesFor(t, RUNS), seed: SEED });
      assert.equal(s.bug, null, `${t.name}: a bug after ${s.cases} cases (seed ${SEED}):\n  ${s.bug ?? ''}`);
      assert.equal(s.cases, casesFor(t, RUNS));
      // The seeds' mutations must reach the reader's refusals: a target that accepts everything tests nothing.
      assert.ok(s.refused > 0, `${t.name}: no input was refused in ${s.cases} cases`);
    },
  );
}

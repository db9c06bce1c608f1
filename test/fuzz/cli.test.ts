// @slow: spawns the real commands on every fuzzed file (not in npm run test:quick)
/**
 * The fuzzing suite, spawned tier: hostile files given to the real commands. Each case must end
 * (well within CASE_TIMEOUT_MS), exit with one of the codes the command documents (never 70, never
 * a signal), say what is wrong on stderr, and stay below RSS_LIMIT_MB of peak memory.
 * FUZZ_CLI_RUNS scales the cases (default 4 per target); `npm run fuzz` runs more and prints figures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliTargets, fuzzCli } from './cli-targets.js';

const RUNS = Number(process.env['FUZZ_CLI_RUNS'] ?? 4);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20261201);

for (const t of cliTargets()) {
  test(
    `fuzz cli ${t.name}: \`${t.command}\` ends with a documented exit code, a message and bounded memory`,
    { timeout: 900_000 },
    async () => {
      const s = await fuzzCli(t, { runs: RUNS, seed: SEED });
      assert.deepEqual(s.bugs, [], `${t.name}:\n  ${s.bugs.join('\n  ')}`);
      assert.equal(s.cases, RUNS);
    },
  );
}

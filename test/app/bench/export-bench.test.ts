/** `witness bench export`: a small run exported to MCAP and JSON Lines, with events/s, MB/s and the ratio. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../../main/cli/main.js';
import { exportTable, runExportBench } from '../../../main/bench/export-bench.js';

test('bench export: every event of the run exported to MCAP (and its poses to foxglove.*), against JSON Lines', async () => {
  const r = await runExportBench(3000);
  assert.equal(r.events, 3000);
  assert.equal(r.mcap.messages, 3000);
  // The start scene, the plan's scene, a pose per evidence event (one per step), the failure-free log: the run's end.
  assert.ok(r.mcap.foxglove >= 1000 && r.mcap.foxglove <= 1010, String(r.mcap.foxglove));
  for (const m of [r.mcap, r.jsonl]) {
    assert.ok(
      m.bytes > 0 &&
        m.seconds > 0 &&
        m.eventsPerSecond > 0 &&
        m.mbPerSecond > 0 &&
        m.cpu_s > 0 &&
        m.eventsPerCpuSecond > 0,
    );
    assert.ok(Math.abs(m.eventsPerSecond - r.events / m.seconds) < 1e-6);
  }
  assert.match(exportTable(r), /\| MCAP \/ JSON Lines \| [\d.]+ \| \| \| [\d.]+ \|/);
});

test('bench export on the command line prints its table; a bad --events is exit 2', async () => {
  const out: string[] = [],
    err: string[] = [];
  const io = { out: (s: string) => out.push(s), err: (s: string) => err.push(s) };
  assert.equal(await run(['bench', 'export', '--events', '2000'], io), 0, err.join(''));
  assert.match(
    out.join(''),
    /# witness bench export --events 2000\n\n\| export of one run \| events\/s \(wall\) \| MB\/s \(output, wall\)/,
  );
  assert.equal(await run(['bench', 'export', '--events', 'many'], io), 2);
  assert.match(err.join(''), /--events/);
});

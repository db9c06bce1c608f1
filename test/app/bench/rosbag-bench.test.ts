import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rosbagBenchTable, runRosbagBench, writeBag } from '../../../main/bench/rosbag-bench.js';
import { FileError } from '../../../main/platform/files.js';

test('bench rosbag at a tiny size: the bag is written, imported and read raw; the table has both rows', async () => {
  const r = await runRosbagBench({ bytes: 200_000 });
  assert.ok(r.bytes >= 200_000, `bag of ${r.bytes} bytes`);
  // 50 + 20 + 200 messages per recorded second; /odom and /cmd_vel are 70 of them.
  assert.equal(r.readMessages * 270, r.messages * 70);
  assert.equal(r.episodes, 1);
  assert.ok(r.transitions > 0);
  const table = rosbagBenchTable(r);
  assert.match(table, /\| import \(read, decode, resample, write\) \|/);
  assert.match(table, /\| @mcap\/core read, no decoding \(baseline\) \|/);
});

test('the synthetic MCAP bag is written atomically: a folder at the target is refused and left as it was', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bag-target-'));
  try {
    mkdirSync(join(dir, 'bag.mcap'));
    await assert.rejects(
      writeBag(join(dir, 'bag.mcap'), 10_000, 'mcap'),
      (e: unknown) => e instanceof FileError && e.code === 'not-a-file',
    );
    assert.deepEqual(readdirSync(dir), ['bag.mcap']);
    const n = await writeBag(join(dir, 'ok.mcap'), 10_000, 'mcap');
    assert.ok(n > 0);
    assert.deepEqual(readdirSync(dir).sort(), ['bag.mcap', 'ok.mcap']);
    assert.ok(statSync(join(dir, 'ok.mcap')).size >= 10_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

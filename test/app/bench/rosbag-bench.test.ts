import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rosbagBenchTable, runRosbagBench } from '../../../main/bench/rosbag-bench.js';

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

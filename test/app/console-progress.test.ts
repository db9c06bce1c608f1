import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressLine } from '../../main/app/console.js';
import { checkpointBody } from '../../main/core/exec/run-skeleton.js';

test('the console event list: verified anchors and a stalled body walking back, not every waypoint', () => {
  const checkpoint = checkpointBody({
    kind: 'checkpoint',
    t: 40,
    stream: 'prefix',
    index: 2,
    node: 'anchor:e2:0',
    labels: ['e2'],
  });
  assert.equal(progressLine('checkpoint', checkpoint), 'checkpoint anchor:e2:0');
  const recovery = checkpointBody({
    kind: 'recovery',
    t: 90,
    stream: 'prefix',
    index: 3,
    node: 'c456',
    moved_m: 0.31,
    to: [1.254, 13.5],
  });
  assert.equal(
    progressLine('checkpoint', recovery),
    'stalled on the way to c456 (moved 0.31 m): walking back to 1.25, 13.50',
  );
  assert.equal(
    progressLine(
      'checkpoint',
      checkpointBody({ kind: 'waypoint', t: 5, stream: 'prefix', index: 0, node: 'c1', skipped: 0 }),
    ),
    null,
  );
  assert.equal(progressLine('checkpoint', checkpointBody({ kind: 'prefix-done', t: 41 })), null);
  assert.equal(progressLine('monitor_event', { states: [0] }), null);
  assert.equal(progressLine('replan', { replan: 1, trigger: 'tracking-timeout' }), 'replan 1 after tracking-timeout');
});

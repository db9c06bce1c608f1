// Turns: work in small steps on the loop that answers the E-STOP takes a turn once it has held the loop its few
// milliseconds, and the turn lets what waits on the loop (a timer, a socket's read) run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TURN_MS, Turns } from '../../main/platform/event-loop.js';

const spin = (ms: number): void => {
  for (const end = performance.now() + ms; performance.now() < end;);
};

test('a turn is due once the work has held the loop for its milliseconds, and taking one restarts the clock', async () => {
  assert.ok(TURN_MS > 0 && TURN_MS <= 10, 'a few milliseconds');
  const turns = new Turns(20);
  assert.equal(turns.due(), false, 'not at once');
  spin(25);
  assert.equal(turns.due(), true);
  await turns.take();
  assert.equal(turns.due(), false, 'the clock restarts after the turn');
});

test('work that takes its turns lets a timer run while it goes on; work that does not holds it to the end', async () => {
  const run = async (yielding: boolean): Promise<{ fired: number }> => {
    let fired = 0;
    const timer = setInterval(() => fired++, 1);
    const turns = new Turns(2);
    // 60 ms of work in 0.5 ms steps.
    for (let i = 0; i < 120; i++) {
      spin(0.5);
      if (yielding && turns.due()) await turns.take();
    }
    await new Promise((r) => setImmediate(r));
    clearInterval(timer);
    return { fired };
  };
  const held = await run(false);
  const turning = await run(true);
  assert.ok(held.fired <= 1, `a timer fired ${held.fired} times while the work held the loop`);
  assert.ok(turning.fired >= 5, `a timer fired ${turning.fired} times while the work took its turns`);
});

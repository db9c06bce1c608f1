/**
 * Long synchronous work (simulating a dataset, a training loop that awaits only tensors that
 * resolve at once) gives the event loop a turn with `breathe()`: at most every 50 ms it waits for
 * one macrotask, so Ctrl-C, SIGTERM and a worker's cancel message are answered while it runs.
 */
let lastTurn = Date.now();

export async function breathe(): Promise<void> {
  if (Date.now() - lastTurn < 50) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastTurn = Date.now();
}

/** How long work on the loop that serves the E-STOP holds it between turns (ms): a few milliseconds. */
export const TURN_MS = 4;

/**
 * Turns of the event loop for work in small steps on the loop that answers the E-STOP (a simulator stepping a skill's
 * motion): `due()` is cheap enough to ask after every step, `take()` waits for one macrotask (the socket's reads,
 * timers, an abort) and restarts the clock. The work holds the loop for at most `ms` plus one step at a time.
 */
export class Turns {
  private last = performance.now();

  constructor(private readonly ms: number = TURN_MS) {}

  due(): boolean {
    return performance.now() - this.last >= this.ms;
  }

  async take(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.last = performance.now();
  }
}

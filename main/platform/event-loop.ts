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

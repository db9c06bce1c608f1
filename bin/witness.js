#!/usr/bin/env node
// The `witness` command: runs the compiled CLI (npm run build / npm ci produce dist/).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/main/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('error: witness is not built yet: run `npm ci` (or `npm run build`) in the repository first\n');
  process.exit(2);
}
// A closed pipe (`witness … | head`) ends the output quietly.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
// Interrupted (Ctrl-C, kill): remove the temporary files of writes in flight, so a cancelled
// build or generation leaves nothing half-written, then exit as the signal asks.
const { removeInFlightWrites } = await import(new URL('../dist/main/services/datasets/io.js', import.meta.url).href);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(signal, () => {
    removeInFlightWrites();
    process.exit(code);
  });
}
const { run } = await import(entry.href);
process.exitCode = await run(process.argv.slice(2));

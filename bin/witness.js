#!/usr/bin/env node
// The `witness` command: runs the compiled CLI (npm run build / npm ci produce dist/).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/main/witness.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('error: witness is not built yet: run `npm ci` (or `npm run build`) in the repository first\n');
  process.exit(2);
}
// A closed pipe (`witness … | head`) ends the output quietly.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env node
// `npm start`: the desktop app when the Electron binary and a display are there; otherwise it says
// which is missing and starts web mode instead (`witness web`), which prints the URL to open.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The Electron binary's path, or why there is none. */
function electronBinary() {
  let bin;
  try {
    bin = require('electron'); // in plain Node, the package exports the binary's path
  } catch (e) {
    return {
      why: `the Electron binary is not installed (${String(e.message ?? e).split('\n')[0]}); it is skipped on machines that cannot download it`,
    };
  }
  if (typeof bin !== 'string' || !existsSync(bin))
    return {
      why: `the Electron binary is not installed (${bin}); run \`node node_modules/electron/install.js\` where downloads work`,
    };
  return { bin };
}

function display() {
  if (process.platform !== 'linux') return null;
  if (process.env.DISPLAY || process.env.WAYLAND_DISPLAY) return null;
  return 'no display (neither DISPLAY nor WAYLAND_DISPLAY is set)';
}

const e = electronBinary();
const noDisplay = display();
if (e.bin && noDisplay === null) {
  const child = spawn(e.bin, [root, ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
} else {
  process.stderr.write(`start: cannot open the desktop app: ${e.why ?? noDisplay}. Starting web mode instead.\n`);
  const child = spawn(process.execPath, [path.join(root, 'bin', 'witness.js'), 'web', ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => child.kill(s));
  child.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
}

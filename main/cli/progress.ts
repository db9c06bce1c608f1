/** A progress bar on stderr for long work (a line every 10 % when stderr is not a terminal). */
import type { Output } from './errors.js';

export function progressBar(io: Output, label: string, tty = process.stderr.isTTY): (done: number, total: number) => void {
  let lastTenth = -1;
  const started = Date.now();
  return (done, total) => {
    const frac = total > 0 ? done / total : 1;
    if (tty) {
      const bar = '#'.repeat(Math.round(frac * 30)).padEnd(30);
      io.err(`\r${label} [${bar}] ${(frac * 100).toFixed(0).padStart(3)}% ${((Date.now() - started) / 1000).toFixed(1)} s${done >= total ? '\n' : ''}`);
    } else {
      const tenth = Math.floor(frac * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        io.err(`${label}: ${(frac * 100).toFixed(0)}% (${done}/${total}, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      }
    }
  };
}

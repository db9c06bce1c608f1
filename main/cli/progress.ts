/** Progress on stderr: a bar for long work (a line every 10 % when stderr is not a terminal), a line while waiting. */
import type { Output } from './errors.js';

export function progressBar(
  io: Output,
  label: string,
  tty = process.stderr.isTTY,
): (done: number, total: number) => void {
  let lastTenth = -1;
  const started = Date.now();
  return (done, total) => {
    const frac = total > 0 ? done / total : 1;
    if (tty) {
      const bar = '#'.repeat(Math.round(frac * 30)).padEnd(30);
      io.err(
        `\r${label} [${bar}] ${(frac * 100).toFixed(0).padStart(3)}% ${((Date.now() - started) / 1000).toFixed(1)} s${done >= total ? '\n' : ''}`,
      );
    } else {
      const tenth = Math.floor(frac * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        io.err(
          `${label}: ${(frac * 100).toFixed(0)}% (${done}/${total}, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
        );
      }
    }
  };
}

/**
 * A "waiting for …" line on stderr while something outside answers (the LLM server): on a terminal
 * one line, rewritten every second ("waiting for the LLM (12 s)…") and cleared when the answer
 * comes; otherwise a line every 10 s, so logs stay short.
 */
export function waitingLine(
  io: Output,
  label: string,
  tty = process.stderr.isTTY,
): { tick(elapsed_s: number): void; done(): void } {
  let shown = false,
    tens = 0;
  return {
    tick(elapsed_s) {
      const s = Math.floor(elapsed_s);
      if (tty) {
        io.err(`\r${label} (${s} s)…`);
        shown = true;
      } else if (Math.floor(s / 10) > tens) {
        tens = Math.floor(s / 10);
        io.err(`${label}: ${tens * 10} s…\n`);
      }
    },
    done() {
      if (shown) io.err('\r\x1b[K');
      shown = false;
      tens = 0;
    },
  };
}

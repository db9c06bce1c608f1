/** What the CLI tests share: running `witness` in this process, and the shipped assets' paths. */
import { fileURLToPath } from 'node:url';
import { run } from '../../main/cli/main.js';

/** Runs `witness …argv` in this process; its exit code and what it printed. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '',
    err = '';
  const code = await run(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

/** A shipped asset (assets/…) by its relative path. */
export const asset = (rel: string): string => fileURLToPath(new URL(`../../../assets/${rel}`, import.meta.url));

/**
 * Module hooks that record every module the process loads: each URL, one a line, appended to the
 * file named by WITNESS_TEST_MODULE_LOG (the hooks run on their own thread, so they write as they go).
 */
import { appendFileSync } from 'node:fs';

type Next = (url: string, context: unknown) => Promise<unknown>;

export async function load(url: string, context: unknown, next: Next): Promise<unknown> {
  const log = process.env['WITNESS_TEST_MODULE_LOG'];
  if (log !== undefined && log !== '') appendFileSync(log, `${url}\n`);
  return next(url, context);
}

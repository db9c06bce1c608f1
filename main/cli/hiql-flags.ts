/**
 * AP-HIQL's recipe flags, shared by `bench ltl` (prefixed `--hiql-`), `backbone eval-hiql` (the
 * same) and `backbone train-hiql` (unprefixed): training steps, the networks' hidden widths and π_l's
 * AWR temperature. Every one is part of the policies' cache key, so a changed recipe trains anew.
 */
import type { Command } from 'commander';
import { HIQL_DEFAULTS } from '../contract/defaults.js';
import { intFlag, numberFlag, widthsFlag } from './flags.js';

export interface HiqlFlagValues {
  readonly steps: number;
  readonly hidden: readonly number[];
  readonly lowAlpha: number;
}

/** Adds the three flags; `prefix` is '' or 'hiql-' (the option keys then read hiqlSteps, hiqlHidden, hiqlLowAlpha). */
export function hiqlFlags(c: Command, prefix: '' | 'hiql-', what: string): Command {
  const f = (name: string): string => `--${prefix}${name}`;
  return c
    .option(
      `${f('steps')} <n>`,
      `${what}training steps of ap-hiql's two policies (part of their cache key)`,
      intFlag(f('steps'), 1, 10_000_000),
      HIQL_DEFAULTS.steps,
    )
    .option(
      `${f('hidden')} <widths>`,
      `${what}hidden widths of both policies, e.g. 128,128 (part of their cache key)`,
      widthsFlag(f('hidden')),
      [...HIQL_DEFAULTS.hidden],
    )
    .option(
      `${f('low-alpha')} <a>`,
      `${what}AWR temperature of the low-level policy π_l (part of their cache key)`,
      numberFlag(f('low-alpha'), 0, 1000),
      HIQL_DEFAULTS.lowAlpha,
    );
}

/** The values of those flags, read back from commander's options object. */
export function hiqlFlagValues(o: Record<string, unknown>, prefix: '' | 'hiql-'): HiqlFlagValues {
  const key = (name: string): string => (prefix === '' ? name : `hiql${name[0]!.toUpperCase()}${name.slice(1)}`);
  return {
    steps: o[key('steps')] as number,
    hidden: o[key('hidden')] as number[],
    lowAlpha: o[key('lowAlpha')] as number,
  };
}

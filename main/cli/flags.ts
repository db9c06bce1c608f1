/**
 * Flag parsers and the action wrapper shared by the sub-commands. Numbers are read strictly: plain
 * decimal (digits, an optional sign, fraction and exponent; no hex, no `Infinity`, no trailing
 * junk, never empty) and finite; a bad value is a usage error (exit 2) that names the flag and the
 * value. `Number()` alone would read '' as 0, '0x10' as 16 and '1e400' as Infinity.
 */
import { Option } from 'commander';
import { CliError, EXIT, type Output, report } from './errors.js';
import { TIME_FLAG_SYNTAX, parseTimeFlag } from '../contract/time.js';
import { FAULT_SYNTAX, type WorldFault, parseFault } from '../app/faults.js';

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

/** A decimal number, or null when `v` is not one (or is not finite). Surrounding spaces are allowed. */
export function strictNumber(v: string): number | null {
  const s = v.trim();
  if (!DECIMAL.test(s)) return null;
  const x = Number(s);
  return Number.isFinite(x) ? x : null;
}

/** A decimal integer (digits only, within the safe integers), or null. */
export function strictInteger(v: string): number | null {
  const s = v.trim();
  if (!INTEGER.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

/** A time flag (contract/time.ts); a usage error (exit 2) names the flag and the value. */
export const timeFlag =
  (flag: string, now: () => number = Date.now) =>
  (v: string): number => {
    const t = parseTimeFlag(v, now());
    if (t === null) throw new CliError(`${flag} must be a time: ${TIME_FLAG_SYNTAX}; got '${v}'`);
    return t;
  };

/** An integer flag in [min, max]; a usage error (exit 2) names the flag and the value. */
export function intFlag(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    const n = strictInteger(v);
    if (n === null || n < min || n > max) {
      throw new CliError(
        max === Number.MAX_SAFE_INTEGER
          ? `${flag} must be an integer ≥ ${min}, got '${v}'`
          : `${flag} must be an integer in ${min}..${max}, got '${v}'`,
      );
    }
    return n;
  };
}

/** A number flag in [lo, hi]; a usage error names the flag and the value. */
export function numberFlag(flag: string, lo: number, hi: number) {
  return (v: string): number => {
    const x = strictNumber(v);
    if (x === null || x < lo || x > hi) throw new CliError(`${flag} must be a number in [${lo}, ${hi}], got '${v}'`);
    return x;
  };
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration flag (`500ms`, `2s`, `1.5m`, `1h`; a bare number is seconds) in [lo_ms, hi_ms], in milliseconds. */
export function durationFlag(flag: string, lo_ms: number, hi_ms: number) {
  return (v: string): number => {
    const m = /^\s*([0-9.eE+-]+)\s*(ms|s|m|h)?\s*$/.exec(v);
    const x = m === null ? null : strictNumber(m[1]!);
    const ms = x === null ? NaN : x * UNIT_MS[m![2] ?? 's']!;
    if (!(ms >= lo_ms && ms <= hi_ms))
      throw new CliError(
        `${flag} must be a duration from ${lo_ms} ms to ${hi_ms / 1000} s (500ms, 2s, 1m, 1h; a bare number is seconds), got '${v}'`,
      );
    return ms;
  };
}

/** A comma-separated list of layer widths (`128,128`): integers in [1, 4096], at least one. */
export function widthsFlag(flag: string) {
  return (v: string): number[] => {
    const parts = v.split(',').map((p) => strictInteger(p));
    if (parts.length === 0 || parts.some((n) => n === null || n < 1 || n > 4096))
      throw new CliError(`${flag} must be comma-separated layer widths in 1..4096, e.g. 128,128, got '${v}'`);
    return parts as number[];
  };
}

/** `--start x,y` in metres: exactly two comma-separated decimal numbers, both given. */
export function pointFlag(v: string): [number, number] {
  const flag = '--start';
  const parts = v.split(',');
  const x = parts.length === 2 ? strictNumber(parts[0]!) : null;
  const y = parts.length === 2 ? strictNumber(parts[1]!) : null;
  if (x === null || y === null) {
    const why =
      parts.length !== 2
        ? `${parts.length} part(s)`
        : x === null
          ? `x is ${JSON.stringify(parts[0]!.trim())}`
          : `y is ${JSON.stringify(parts[1]!.trim())}`;
    throw new CliError(`${flag} must be x,y in metres (two decimal numbers), got '${v}' (${why})`);
  }
  return [x, y];
}

/** An http(s) URL flag (an OpenAI-compatible server): anything else is a usage error naming the flag. */
export function httpUrlFlag(flag: string) {
  return (v: string): string => {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new CliError(`${flag} must be an http:// or https:// URL, e.g. http://127.0.0.1:8080, got '${v}'`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new CliError(`${flag} must be an http:// or https:// URL, got '${v}' (scheme ${u.protocol})`);
    return v;
  };
}

/** `--world`: an embedded maze, or `ros2:<file>` — a robot whose configuration has a navigation section. */
export function missionWorldFlag(mazes: readonly string[]) {
  return (v: string): string => {
    if (mazes.includes(v) || (v.startsWith('ros2:') && v.length > 'ros2:'.length)) return v;
    throw new CliError(`--world must be one of ${mazes.join(', ')}, or ros2:<configuration file>, got '${v}'`);
  };
}

/**
 * Wraps an action: its result (or 0) becomes the exit code; a thrown error becomes a one-line
 * report and its exit code.
 */
export function action<A extends unknown[]>(
  io: Output,
  setExit: (c: number) => void,
  body: (...args: A) => Promise<number | void> | number | void,
) {
  return async (...args: A): Promise<void> => {
    try {
      setExit((await body(...args)) ?? EXIT.ok);
    } catch (e) {
      setExit(report(e, io));
    }
  };
}

/**
 * `--inject-fault FAULT` (repeatable), hidden from help: for tests only — the world opened fails on
 * cue (core/world/faults.ts), so a failure and what follows it happen because a test caused them.
 */
export function injectFaultOption(): Option {
  return new Option('--inject-fault <fault>', `for tests: make the world fail on cue (${FAULT_SYNTAX}); repeatable`)
    .argParser((v: string, prev: WorldFault[] | undefined): WorldFault[] => {
      try {
        return [...(prev ?? []), parseFault(v)];
      } catch (e) {
        throw new CliError(e instanceof Error ? e.message : String(e));
      }
    })
    .hideHelp();
}

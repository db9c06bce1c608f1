/** Flag parsers and the action wrapper shared by the sub-commands. */
import { CliError, EXIT, type Output, report } from './errors.js';

/** An integer flag in [min, max]; a usage error (exit 2) names the flag and the value. */
export function intFlag(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new CliError(max === Number.MAX_SAFE_INTEGER ? `${flag} must be an integer ≥ ${min}, got '${v}'` : `${flag} must be an integer in ${min}..${max}, got '${v}'`);
    }
    return n;
  };
}

/** A number flag in [lo, hi]; a usage error names the flag and the value. */
export function numberFlag(flag: string, lo: number, hi: number) {
  return (v: string): number => {
    const x = Number(v);
    if (v.trim() === '' || !Number.isFinite(x) || x < lo || x > hi) throw new CliError(`${flag} must be a number in [${lo}, ${hi}], got '${v}'`);
    return x;
  };
}

/** `--start x,y` in metres. */
export function pointFlag(v: string): [number, number] {
  const parts = v.split(',').map((s) => Number(s.trim()));
  if (parts.length !== 2 || parts.some((x) => !Number.isFinite(x))) throw new CliError(`--start must be x,y in metres, got '${v}'`);
  return [parts[0]!, parts[1]!];
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
export function action<A extends unknown[]>(io: Output, setExit: (c: number) => void, body: (...args: A) => Promise<number | void> | number | void) {
  return async (...args: A): Promise<void> => {
    try {
      setExit((await body(...args)) ?? EXIT.ok);
    } catch (e) {
      setExit(report(e, io));
    }
  };
}

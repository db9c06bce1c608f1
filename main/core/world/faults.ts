/**
 * Deterministic fault injection at the world's edge, for tests: a decorator over `World` that makes
 * a named call fail (or do nothing) on a named count, so that a failure — and the replanning or the
 * escalation after it — happens because a test caused it, not because a seed happened to draw it.
 *
 * Counts are per episode: `reset` starts them again. Everything else is passed through untouched.
 *
 * - `{ at: 'step', n, kind: 'stuck', steps? }`: from the n-th `step` after a reset (1-based), the robot
 *   does not move for `steps` steps (for the rest of the episode when absent): `step` returns the pose
 *   and observation it had before the n-th step, world time advancing by control_dt_s each step, and
 *   the inner world is not stepped (so it resumes where it stopped). A mission's executor sees no
 *   progress and times out: a tracking-timeout failure record.
 * - `{ at: 'step', n, kind: 'error', error }`: the n-th `step` rejects with WorldError `error`.
 * - `{ at: 'step', n, kind: 'hang' }`: the n-th `step` never answers, as a controller that hangs: it
 *   rejects with WorldError 'timeout' when the call's timeout_s passes, 'cancelled' when its signal
 *   aborts, 'closed' when the world closes; the inner world is not stepped.
 * - `{ at: 'skill', skill, attempt, kind: 'error', error }`: the attempt-th `execute` of `skill`
 *   (1-based) rejects with WorldError `error`, the skill not run.
 * - `{ at: 'skill', skill, attempt, kind: 'no-effect' }`: the attempt-th `execute` of `skill` resolves
 *   `{ status: 'ok' }` and does nothing: a controller that reports success without acting, which
 *   the loop's postconditions on sensor evidence must catch.
 *
 * The CLI's hidden `--inject-fault` flag takes the same faults as text (`parseFault`); it is for
 * tests, not for operators.
 */
import { WitnessError } from '../../contract/errors.js';
import type { CallOptions, Navigation, NavState, Tools, World, WorldErrorKind } from './world.js';
import { WorldError } from './world.js';

export type WorldFault =
  | { readonly at: 'step'; readonly n: number; readonly kind: 'stuck'; readonly steps?: number }
  | { readonly at: 'step'; readonly n: number; readonly kind: 'error'; readonly error: WorldErrorKind }
  | { readonly at: 'step'; readonly n: number; readonly kind: 'hang' }
  | {
      readonly at: 'skill';
      readonly skill: string;
      readonly attempt: number;
      readonly kind: 'error';
      readonly error: WorldErrorKind;
    }
  | { readonly at: 'skill'; readonly skill: string; readonly attempt: number; readonly kind: 'no-effect' };

const WORLD_ERROR_KINDS: readonly WorldErrorKind[] = [
  'timeout',
  'cancelled',
  'failed',
  'invalid-input',
  'closed',
  'not-found',
  'rejected',
  'aborted',
  'disconnected',
];

/** What `--inject-fault` takes, for its help and its errors. */
export const FAULT_SYNTAX =
  'step:N:stuck[:STEPS], step:N:hang, step:N:error:KIND, skill:NAME:ATTEMPT:no-effect or skill:NAME:ATTEMPT:error:KIND';

const positive = (s: string | undefined): number | null =>
  s !== undefined && /^[1-9][0-9]{0,8}$/.test(s) ? Number(s) : null;

/**
 * A fault from its text form (FAULT_SYNTAX), e.g. `step:40:stuck`, `skill:pick:1:error:timeout`;
 * anything else is an 'invalid-input' error naming `flag` and the value.
 */
export function parseFault(text: string, flag = '--inject-fault'): WorldFault {
  const bad = (why: string): WitnessError =>
    new WitnessError('invalid-input', `${flag} '${text}': ${why} (the forms: ${FAULT_SYNTAX})`, { path: flag });
  const errorKind = (s: string | undefined): WorldErrorKind => {
    const k = WORLD_ERROR_KINDS.find((x) => x === s);
    if (k === undefined) throw bad(`the error kind must be one of ${WORLD_ERROR_KINDS.join(', ')}`);
    return k;
  };
  const p = text.split(':');
  if (p[0] === 'step') {
    const n = positive(p[1]);
    if (n === null) throw bad('the step number must be an integer ≥ 1');
    if (p[2] === 'stuck' && p.length <= 4) {
      if (p.length === 3) return { at: 'step', n, kind: 'stuck' };
      const steps = positive(p[3]);
      if (steps === null) throw bad('the steps stuck must be an integer ≥ 1');
      return { at: 'step', n, kind: 'stuck', steps };
    }
    if (p[2] === 'hang' && p.length === 3) return { at: 'step', n, kind: 'hang' };
    if (p[2] === 'error' && p.length === 4) return { at: 'step', n, kind: 'error', error: errorKind(p[3]) };
    throw bad('a step fault is stuck, hang or error');
  }
  if (p[0] === 'skill') {
    const skill = p[1] ?? '';
    if (skill === '') throw bad('name the skill');
    const attempt = positive(p[2]);
    if (attempt === null) throw bad('the attempt must be an integer ≥ 1');
    if (p[3] === 'no-effect' && p.length === 4) return { at: 'skill', skill, attempt, kind: 'no-effect' };
    if (p[3] === 'error' && p.length === 5)
      return { at: 'skill', skill, attempt, kind: 'error', error: errorKind(p[4]) };
    throw bad('a skill fault is no-effect or error');
  }
  throw bad('a fault is at a step or a skill');
}

/** The text form of a fault (parseFault's inverse). */
export function faultText(f: WorldFault): string {
  if (f.at === 'step') {
    if (f.kind === 'stuck') return `step:${f.n}:stuck${f.steps !== undefined ? `:${f.steps}` : ''}`;
    return f.kind === 'hang' ? `step:${f.n}:hang` : `step:${f.n}:error:${f.error}`;
  }
  return f.kind === 'no-effect'
    ? `skill:${f.skill}:${f.attempt}:no-effect`
    : `skill:${f.skill}:${f.attempt}:error:${f.error}`;
}

/** The world with the faults injected; the world itself when there are none. */
export function withFaults(world: World, faults: readonly WorldFault[]): World {
  if (faults.length === 0) return world;
  const id = world.spec.id;
  const injected = (what: string, f: WorldFault & { kind: 'error' }): WorldError =>
    new WorldError(f.error, id, `${what}: injected fault ${faultText(f)}`);
  const stepFaults = faults.filter((f): f is Extract<WorldFault, { at: 'step' }> => f.at === 'step');
  const skillFaults = faults.filter((f): f is Extract<WorldFault, { at: 'skill' }> => f.at === 'skill');
  // Per episode: the steps taken, the attempts of each skill, the state a stuck robot holds, and the
  // world time spent stuck (added to the inner world's time from then on).
  let steps = 0;
  const attempts = new Map<string, number>();
  let last: NavState | null = null;
  let held: NavState | null = null;
  let stuck_s = 0;
  let heldAt_s = 0;
  const shifted = (s: NavState): NavState => (stuck_s === 0 ? s : { ...s, time_s: s.time_s + stuck_s });
  const episode = (): void => {
    steps = 0;
    attempts.clear();
    held = null;
    stuck_s = 0;
  };

  // Hung calls end when the world closes.
  const closing = new AbortController();
  const hang = (what: string, o: CallOptions | undefined): Promise<never> =>
    new Promise((_, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const end = (kind: WorldErrorKind, why: string): void => {
        clearTimeout(timer);
        o?.signal?.removeEventListener('abort', cancelled);
        closing.signal.removeEventListener('abort', closed);
        reject(new WorldError(kind, id, `${what} ${why}`));
      };
      const cancelled = (): void => end('cancelled', 'cancelled');
      const closed = (): void => end('closed', 'ended: the world was closed');
      if (o?.signal?.aborted === true) return cancelled();
      const timeout_s = o?.timeout_s;
      if (timeout_s !== undefined)
        timer = setTimeout(() => end('timeout', `took longer than ${timeout_s} s`), timeout_s * 1000);
      o?.signal?.addEventListener('abort', cancelled, { once: true });
      closing.signal.addEventListener('abort', closed, { once: true });
    });

  const nav = world.navigation;
  const navigation: Navigation | undefined =
    nav === undefined
      ? undefined
      : {
          map: nav.map,
          restObservation: nav.restObservation,
          ...(nav.fallen !== undefined ? { fallen: nav.fallen.bind(nav) } : {}),
          observe: async (o?: CallOptions) => (held !== null && last !== null ? last : shifted(await nav.observe(o))),
          reset: async (o) => {
            episode();
            return (last = await nav.reset(o));
          },
          step: async (action, o) => {
            const n = ++steps;
            const f = stepFaults.find((x) =>
              x.kind === 'stuck' ? n >= x.n && (x.steps === undefined || n < x.n + x.steps) : x.n === n,
            );
            if (f?.kind === 'error') throw injected(`step ${n}`, f);
            if (f?.kind === 'hang') return await hang(`step ${n} (injected fault ${faultText(f)})`, o);
            if (f?.kind === 'stuck') {
              if (o?.signal?.aborted === true)
                throw new WorldError('cancelled', id, 'step cancelled before it started');
              if (held === null) {
                held = last ?? shifted(await nav.observe(o));
                heldAt_s = stuck_s;
              }
              stuck_s += world.spec.control_dt_s;
              return (last = { ...held, time_s: held.time_s + stuck_s - heldAt_s });
            }
            held = null;
            return (last = shifted(await nav.step(action, o)));
          },
        };

  const tools = world.tools;
  const toolsOut: Tools | undefined =
    tools === undefined
      ? undefined
      : {
          vocabulary: () => tools.vocabulary(),
          observe: () => tools.observe(),
          reset: async (o) => {
            episode();
            return await tools.reset(o);
          },
          execute: async (skill, args, o) => {
            const a = (attempts.get(skill) ?? 0) + 1;
            attempts.set(skill, a);
            const f = skillFaults.find((x) => x.skill === skill && x.attempt === a);
            if (f?.kind === 'error') throw injected(`skill ${skill} (attempt ${a})`, f);
            if (f?.kind === 'no-effect') return { status: 'ok' };
            return await tools.execute(skill, args, o);
          },
        };

  return {
    spec: world.spec,
    ...(navigation !== undefined ? { navigation } : {}),
    ...(toolsOut !== undefined ? { tools: toolsOut } : {}),
    ...(world.waypoints !== undefined ? { waypoints: world.waypoints } : {}),
    time_s: () => world.time_s() + stuck_s,
    close: () => {
      closing.abort();
      return world.close();
    },
  };
}

/**
 * One contract for every world: reset, observe, execute, timeout, cancel, error and disconnect.
 * `worldContract` registers its node:test cases for one world, given a factory of adapters (one
 * fresh world per case). A path a world does not have is skipped with the reason, and a whole
 * world can be skipped (ROS 2 without ROS_DISTRO), so that every skip is visible in the output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorldError, type WorldErrorKind } from '../../main/core/world/world.js';

interface ContractCall {
  /** What the call does, for messages. */
  readonly what: string;
  run(o: { timeout_s: number; signal: AbortSignal }): Promise<unknown>;
}

type Path<T> = T | { readonly skip: string };

export interface ContractWorld {
  /** Resets and returns the observed state. */
  reset(seed: number): Promise<Readonly<Record<string, unknown>>>;
  observe(): Promise<Readonly<Record<string, unknown>>>;
  /** Dotted fields every observed state carries. */
  readonly fields: readonly string[];
  /** A call that succeeds within timeout_s. */
  readonly succeed: Path<ContractCall & { readonly timeout_s: number }>;
  /**
   * A call that outlasts timeout_s: the world must report 'timeout' and stop it. `cutShort` asserts from the
   * world's own state that the call was stopped before its end (not run to its end and reported late); a world
   * without such evidence (a robot) is held to a wall-clock bound instead: timeout_s + stop_s.
   */
  readonly slow: Path<ContractCall & { readonly timeout_s: number; readonly cutShort?: () => Promise<void> }>;
  /** A call aborted after after_s: the world must report 'cancelled' and stop it. */
  readonly cancel: Path<ContractCall & { readonly after_s: number }>;
  /** A call the world must refuse or fail, with one of these kinds. */
  readonly fail: Path<ContractCall & { readonly kinds: readonly WorldErrorKind[] }>;
  /** How long stopping a call may take beyond its deadline (a robot cancelling a goal), s; see `slow`. */
  readonly stop_s: number;
  /** Asserts that nothing is still running after a stopped call (where the world can tell). */
  readonly quiescent?: () => Promise<void>;
  close(): Promise<void>;
}

const skipped = <T extends object>(p: Path<T>): p is { readonly skip: string } => 'skip' in p;

function at(state: unknown, path: string): unknown {
  let v = state;
  for (const k of path.split('.'))
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

function hasFields(state: Readonly<Record<string, unknown>>, fields: readonly string[]): void {
  for (const f of fields)
    assert.notEqual(at(state, f), undefined, `the observed state lacks ${f}: ${JSON.stringify(state).slice(0, 300)}`);
}

const kindOf = (e: unknown): string => (e instanceof WorldError ? e.kind : `not a WorldError: ${String(e)}`);

export function worldContract(
  name: string,
  open: () => Promise<ContractWorld>,
  o: { readonly skip?: string } = {},
): void {
  const each = (title: string, body: (w: ContractWorld, t: { skip(reason: string): void }) => Promise<void>): void => {
    test(`world contract (${name}): ${title}`, async (t) => {
      if (o.skip !== undefined) {
        t.skip(o.skip);
        return;
      }
      const w = await open();
      try {
        await body(w, t);
      } finally {
        await w.close();
      }
    });
  };

  each("reset gives an observed state with the world's fields", async (w) => {
    hasFields(await w.reset(1), w.fields);
  });

  each('observe reads the same fields again, without changing the world', async (w) => {
    await w.reset(1);
    const a = await w.observe();
    hasFields(a, w.fields);
    hasFields(await w.observe(), w.fields);
  });

  each('execute: a call that succeeds resolves, and the world observes afterwards', async (w, t) => {
    const succeed = w.succeed;
    if (skipped(succeed)) return t.skip(succeed.skip);
    await w.reset(1);
    await succeed.run({ timeout_s: succeed.timeout_s, signal: new AbortController().signal });
    hasFields(await w.observe(), w.fields);
  });

  each(
    'timeout: a call slower than its timeout rejects with WorldError timeout, stopped, and the world stays usable',
    async (w, t) => {
      const slow = w.slow;
      if (skipped(slow)) return t.skip(slow.skip);
      await w.reset(1);
      const started = performance.now();
      await assert.rejects(
        slow.run({ timeout_s: slow.timeout_s, signal: new AbortController().signal }),
        (e: unknown) => {
          assert.equal(kindOf(e), 'timeout', `${slow.what}: ${String(e)}`);
          return true;
        },
      );
      const took_s = (performance.now() - started) / 1000;
      if (slow.cutShort !== undefined) await slow.cutShort();
      else
        assert.ok(
          took_s <= slow.timeout_s + w.stop_s,
          `${slow.what}: rejected after ${took_s.toFixed(2)} s (timeout ${slow.timeout_s} s + stop ${w.stop_s} s)`,
        );
      await w.quiescent?.();
      hasFields(await w.observe(), w.fields);
    },
  );

  each(
    'cancel: aborting the signal mid-call rejects with WorldError cancelled, stopped, and the world stays usable',
    async (w, t) => {
      const cancel = w.cancel;
      if (skipped(cancel)) return t.skip(cancel.skip);
      await w.reset(1);
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), cancel.after_s * 1000);
      try {
        await assert.rejects(cancel.run({ timeout_s: 600, signal: ac.signal }), (e: unknown) => {
          assert.equal(kindOf(e), 'cancelled', `${cancel.what}: ${String(e)}`);
          return true;
        });
      } finally {
        clearTimeout(timer);
      }
      await w.quiescent?.();
      hasFields(await w.observe(), w.fields);
    },
  );

  each('error: a call the world cannot do fails with its error class, and the world stays usable', async (w, t) => {
    const fail = w.fail;
    if (skipped(fail)) return t.skip(fail.skip);
    await w.reset(1);
    const kinds = fail.kinds;
    await assert.rejects(fail.run({ timeout_s: 600, signal: new AbortController().signal }), (e: unknown) => {
      assert.ok(
        e instanceof WorldError && kinds.includes(e.kind),
        `${fail.what}: expected ${kinds.join(' or ')}, got ${String(e)}`,
      );
      return true;
    });
    hasFields(await w.observe(), w.fields);
  });

  each('disconnect: a closed world refuses every call with WorldError closed; closing twice is harmless', async (w) => {
    await w.reset(1);
    await w.close();
    await assert.rejects(w.observe(), (e: unknown) => kindOf(e) === 'closed');
    await assert.rejects(w.reset(1), (e: unknown) => kindOf(e) === 'closed');
    if (!skipped(w.succeed))
      await assert.rejects(
        w.succeed.run({ timeout_s: w.succeed.timeout_s, signal: new AbortController().signal }),
        (e: unknown) => kindOf(e) === 'closed',
      );
    await w.close();
  });
}

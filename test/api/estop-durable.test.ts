/**
 * The E-STOP's latch outlives the process that holds it: `witness web` is killed (SIGKILL, no
 * chance to clean up) right after it answered an emergency stop, and the workbench started again
 * on the same workspace and audit log comes up latched, refuses to start anything, and is released
 * only by an acknowledged reset with a reason that says something — after which a restart is clear.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ApiClient, apiClient, webUrl } from './web-client.js';

const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));

interface Workbench extends ApiClient {
  readonly child: ChildProcess;
}

async function start(workspace: string, audit: string): Promise<Workbench> {
  const child = spawn(process.execPath, [BIN, 'web', '--port', '0', '--workspace', workspace, '--audit', audit], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const client = await apiClient(await webUrl(child, exited, () => err));
  return { child, ...client };
}

async function stop(w: Workbench, signal: NodeJS.Signals): Promise<void> {
  w.ws.terminate();
  const exited = new Promise<void>((resolve) => w.child.once('exit', () => resolve()));
  w.child.kill(signal);
  await exited;
}

test(
  'a latched E-STOP survives a crash of the workbench: it starts latched until an acknowledged, recorded reset',
  { timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'witness-estop-durable-'));
    const workspace = path.join(dir, 'workspace'),
      audit = path.join(dir, 'audit.sqlite');
    const first = await start(workspace, audit);
    const fired = await first.call('emergencyStop', { note: 'someone in the aisle' });
    assert.equal(fired.ok, true);
    // Killed at once: no handler runs, nothing is flushed on the way out.
    await stop(first, 'SIGKILL');

    const second = await start(workspace, audit);
    try {
      const state = await second.call('estopState');
      assert.equal(state.ok, true);
      const s = state.result as { latched: boolean; restored?: boolean; reason?: string };
      assert.equal(s.latched, true, 'the restarted workbench is latched');
      assert.equal(s.restored, true);
      assert.match(s.reason ?? '', /someone in the aisle/);
      // Nothing starts: a tool loop whose request is otherwise good is refused for the latch.
      const run = await second.call('actRun', {
        world: 'tabletop',
        tools: 'shipped:tools',
        plan: 'shipped:plans/warehouse.json',
        goal: 'objects.red_bin.on == "shelf_c4"',
      });
      assert.equal(run.ok, false);
      assert.equal(run.error?.code, 'estop-latched', JSON.stringify(run.error));
      assert.match(
        run.error?.message ?? '',
        /the emergency stop is latched .*: cannot start a tool loop until an operator resets it/,
      );
      // A reason that shows nothing is refused: zero-width, control-only, format-only, too short.
      for (const reason of [
        '\u200b\u200b\u200b\u200b',
        '\u0007\u0007\u0007',
        '\u2060\u200d\ufeff',
        'ok',
        '\u202eok\u202c fine',
      ]) {
        const r = await second.call('estopReset', { acknowledged: true, reason });
        assert.equal(r.ok, false, `reason ${JSON.stringify(reason)} is refused`);
        assert.equal(r.error?.code, 'invalid-params');
      }
      assert.equal(
        ((await second.call('estopState')).result as { latched: boolean }).latched,
        true,
        'a refused reset leaves it latched',
      );
      const reset = await second.call('estopReset', { acknowledged: true, reason: 'aisle clear, robot checked' });
      assert.equal(reset.ok, true, JSON.stringify(reset.error));
      assert.equal((reset.result as { latched: boolean }).latched, false);
    } finally {
      await stop(second, 'SIGTERM');
    }

    const third = await start(workspace, audit);
    try {
      assert.equal(
        ((await third.call('estopState')).result as { latched: boolean }).latched,
        false,
        'after a recorded reset, a restart is clear',
      );
    } finally {
      await stop(third, 'SIGTERM');
    }
  },
);

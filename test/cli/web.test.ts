import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Starts a command, waits for the URL line, checks the page answers, then stops it. */
async function startsWebMode(args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '',
    stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL within 20 s; stderr: ${stderr}`)), 20_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /Witness web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64})/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<div id="app">/);
    return { stdout, stderr };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

test('`npm run web` (witness web) serves the UI on 127.0.0.1 and prints its URL with the token', async () => {
  const r = await startsWebMode(
    [path.join(ROOT, 'bin', 'witness.js'), 'web', '--workspace', path.join(ROOT, 'test-results', 'ws-web')],
    {},
  );
  assert.match(r.stderr, /listening on 127\.0\.0\.1 only/);
});

test('`npm start` says why the desktop app cannot open (no display) and starts web mode instead', async () => {
  const r = await startsWebMode(
    [path.join(ROOT, 'scripts', 'start.js'), '--workspace', path.join(ROOT, 'test-results', 'ws-start')],
    { DISPLAY: '', WAYLAND_DISPLAY: '' },
  );
  assert.match(
    r.stderr,
    /start: cannot open the desktop app: (the Electron binary is not installed|no display).*Starting web mode instead/,
  );
});

test('`witness web --fleet URL` names the fleet store with its password masked (never the password itself)', async () => {
  const r = await startsWebMode(
    [
      path.join(ROOT, 'bin', 'witness.js'),
      'web',
      '--workspace',
      path.join(ROOT, 'test-results', 'ws-web-fleet'),
      '--fleet',
      'postgres://lab:s3cr%3At@127.0.0.1:1/fleet?sslmode=disable',
    ],
    { PGPASSWORD: 'env-secret' },
  );
  assert.match(r.stderr, /fleet store postgres:\/\/lab:\*\*\*@127\.0\.0\.1:1\/fleet\?sslmode=disable; listening/);
  assert.doesNotMatch(r.stdout + r.stderr, /s3cr|env-secret/);
});

test('`witness web --fleet` refuses what is not a PostgreSQL URL before it serves anything (exit 2)', async () => {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'witness.js'), 'web', '--fleet', 'fleet.sqlite'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise((r) => child.once('exit', r));
  assert.equal(code, 2);
  assert.match(out, /--fleet: fleet\.sqlite is not a PostgreSQL URL/);
  assert.doesNotMatch(out, /Witness web UI/);
});

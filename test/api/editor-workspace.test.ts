import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { MAX_FILE_BYTES, contentVersion } from '../../main/services/editor/workspace.js';
import { WitnessError, errorReport } from '../../main/contract/errors.js';

function setup(): { dir: string; ws: string; api: ReturnType<typeof createDirectApi> } {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-ws-'));
  const ws = path.join(dir, 'workspace');
  return { dir, ws, api: createDirectApi({ workspace: ws, auditFile: path.join(dir, 'audit.sqlite') }) };
}

/** The rejection is a WitnessError with this code, and (when given) this path in its report. */
const code =
  (c: string, p?: string) =>
  (e: unknown): boolean => {
    assert.ok(e instanceof WitnessError, String(e));
    assert.equal(e.code, c, e.message);
    if (p !== undefined) assert.equal(errorReport(e).path, p);
    return true;
  };

test('workspace: list creates the folder and lists files recursively, skipping dot-folders and node_modules', async () => {
  const { ws, api } = setup();
  assert.deepEqual((await api.workspaceList()).files, []);
  mkdirSync(path.join(ws, 'specs/deep'), { recursive: true });
  mkdirSync(path.join(ws, '.git'));
  mkdirSync(path.join(ws, 'node_modules/x'), { recursive: true });
  writeFileSync(path.join(ws, 'specs/patrol.ltl'), 'G F e1');
  writeFileSync(path.join(ws, 'specs/deep/b.ltl'), 'F e2');
  writeFileSync(path.join(ws, 'a.json'), '{}');
  writeFileSync(path.join(ws, '.git/config'), '');
  writeFileSync(path.join(ws, 'node_modules/x/index.js'), '');
  const list = await api.workspaceList();
  assert.deepEqual(
    list.files.map((f) => f.path),
    ['a.json', 'specs/deep/b.ltl', 'specs/patrol.ltl'],
  );
  assert.equal(list.files[2]!.size, 6);
  assert.ok(list.files[2]!.mtime_ms > 0);
  assert.equal(list.truncated, undefined);
});

test('workspace: read and write round-trip with versions; a stale version is a conflict and nothing is overwritten', async () => {
  const { ws, api } = setup();
  const created = await api.workspaceWrite({ path: 'specs/new.ltl', text: 'F e1\n', baseVersion: null });
  assert.equal(created.version, contentVersion(Buffer.from('F e1\n')));
  assert.equal(readFileSync(path.join(ws, 'specs/new.ltl'), 'utf8'), 'F e1\n');
  const read = await api.workspaceRead({ path: 'specs/new.ltl' });
  assert.deepEqual(read, { text: 'F e1\n', version: created.version });
  const saved = await api.workspaceWrite({ path: 'specs/new.ltl', text: 'F e2\n', baseVersion: read.version });
  assert.notEqual(saved.version, read.version);
  // Someone else edits the file; saving on the old version is refused and their edit stays.
  writeFileSync(path.join(ws, 'specs/new.ltl'), 'G e3\n');
  await assert.rejects(
    api.workspaceWrite({ path: 'specs/new.ltl', text: 'mine', baseVersion: saved.version }),
    (e: Error) => code('conflict', 'specs/new.ltl')(e) && /changed on disk since it was opened/.test(e.message),
  );
  assert.equal(readFileSync(path.join(ws, 'specs/new.ltl'), 'utf8'), 'G e3\n');
  // A new file never replaces one; without a base version the write is unconditional (overwrite).
  await assert.rejects(
    api.workspaceWrite({ path: 'specs/new.ltl', text: 'x', baseVersion: null }),
    (e: Error) => code('conflict')(e) && /already exists/.test(e.message),
  );
  await api.workspaceWrite({ path: 'specs/new.ltl', text: 'mine' });
  assert.equal(readFileSync(path.join(ws, 'specs/new.ltl'), 'utf8'), 'mine');
  // No temporary files are left behind.
  assert.deepEqual(readdirSync(path.join(ws, 'specs')), ['new.ltl']);
});

test('workspace: concurrent saves on one version: exactly one wins, the other is a conflict', async () => {
  const { api } = setup();
  const { version } = await api.workspaceWrite({ path: 'a.ltl', text: 'F a' });
  const results = await Promise.allSettled([
    api.workspaceWrite({ path: 'a.ltl', text: 'F b', baseVersion: version }),
    api.workspaceWrite({ path: 'a.ltl', text: 'F c', baseVersion: version }),
  ]);
  assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
});

test('workspace: paths outside the folder are refused: .., absolute, and symbolic links that escape', async () => {
  const { dir, ws, api } = setup();
  await api.workspaceList();
  writeFileSync(path.join(dir, 'secret.txt'), 'secret');
  mkdirSync(path.join(dir, 'outside'));
  symlinkSync(path.join(dir, 'secret.txt'), path.join(ws, 'link.txt'));
  symlinkSync(path.join(dir, 'outside'), path.join(ws, 'out'));
  symlinkSync(path.join(dir, 'missing.txt'), path.join(ws, 'dangling.txt'));
  writeFileSync(path.join(ws, 'inside.ltl'), 'F a');
  symlinkSync(path.join(ws, 'inside.ltl'), path.join(ws, 'alias.ltl'));
  for (const p of [
    '../secret.txt',
    'specs/../../secret.txt',
    '..\\secret.txt',
    path.join(dir, 'secret.txt'),
    'C:\\x.txt',
    '\\\\server\\x',
  ]) {
    await assert.rejects(api.workspaceRead({ path: p }), code('forbidden', p), p);
    await assert.rejects(api.workspaceWrite({ path: p, text: 'x' }), code('forbidden', p), p);
  }
  await assert.rejects(
    api.workspaceRead({ path: 'link.txt' }),
    (e: Error) => code('forbidden', 'link.txt')(e) && /outside the workspace/.test(e.message),
  );
  await assert.rejects(api.workspaceWrite({ path: 'link.txt', text: 'x' }), code('forbidden', 'link.txt'));
  await assert.rejects(
    api.workspaceWrite({ path: 'out/new.txt', text: 'x', baseVersion: null }),
    code('forbidden', 'out/new.txt'),
  );
  await assert.rejects(api.workspaceWrite({ path: 'dangling.txt', text: 'x' }), code('forbidden'));
  assert.equal(readFileSync(path.join(dir, 'secret.txt'), 'utf8'), 'secret');
  assert.deepEqual(readdirSync(path.join(dir, 'outside')), []);
  // A link that stays inside is followed, and listed; escaping links are not listed.
  assert.equal((await api.workspaceRead({ path: 'alias.ltl' })).text, 'F a');
  assert.deepEqual(
    (await api.workspaceList()).files.map((f) => f.path),
    ['alias.ltl', 'inside.ltl'],
  );
  await assert.rejects(api.workspaceRead({ path: 'a\0b' }), code('invalid-path'));
  await assert.rejects(api.workspaceRead({ path: './' }), code('invalid-path'));
});

test('workspace: missing files, folders, binary and oversized files are refused with their code', async () => {
  const { ws, api } = setup();
  await api.workspaceList();
  await assert.rejects(api.workspaceRead({ path: 'nope.ltl' }), code('not-found', 'nope.ltl'));
  await assert.rejects(
    api.workspaceWrite({ path: 'gone.ltl', text: 'x', baseVersion: contentVersion(Buffer.from('y')) }),
    (e: Error) => code('conflict')(e) && /deleted on disk/.test(e.message),
  );
  mkdirSync(path.join(ws, 'dir'));
  await assert.rejects(api.workspaceRead({ path: 'dir' }), code('not-a-file'));
  writeFileSync(path.join(ws, 'f.txt'), 'x');
  await assert.rejects(api.workspaceWrite({ path: 'f.txt/child.ltl', text: 'x' }), code('invalid-path'));
  writeFileSync(path.join(ws, 'bin.dat'), Buffer.from([1, 0, 2]));
  await assert.rejects(api.workspaceRead({ path: 'bin.dat' }), code('not-text'));
  writeFileSync(path.join(ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  await assert.rejects(
    api.workspaceRead({ path: 'latin1.txt' }),
    (e: Error) => code('not-text')(e) && /not UTF-8/.test(e.message),
  );
  writeFileSync(path.join(ws, 'big.ltl'), 'a'.repeat(MAX_FILE_BYTES + 1));
  await assert.rejects(api.workspaceRead({ path: 'big.ltl' }), code('too-large', 'big.ltl'));
  await assert.rejects(
    api.workspaceWrite({ path: 'big2.ltl', text: 'é'.repeat(MAX_FILE_BYTES / 2 + 1) }),
    code('too-large'),
  );
  // Through the dispatcher the codes survive as ApiErrors.
  const reply = await createDispatcher(api)('workspaceRead', { path: '../x' });
  assert.ok(!reply.ok && reply.error.code === 'forbidden' && reply.error.path === '../x', JSON.stringify(reply));
  const empty = await createDispatcher(api)('workspaceRead', { path: '' });
  assert.ok(!empty.ok && empty.error.code === 'invalid-params');
});

/**
 * `witness audit` on evidence as it is found: an export never overwrites the database (nor a link
 * to it, its WAL, any SQLite file) nor anything that is not a regular file (a device, a FIFO, a socket);
 * write-protected evidence in a read-only folder verifies, WAL and all, without a byte written there; corrupt pages, a
 * folder or an unreadable file exit 2 naming the file; a tampered runs table shows in `ls` and `verify`. The read-only
 * and unreadable cases run the real binary as an unprivileged user when the tests run as root (root reads anything).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { AuditLog, sha256 } from '../../main/services/audit/store.js';
import { seeded } from '../../main/bench/audit-writer.js';
import { cli } from './harness.js';

const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));
const STORE = new URL('../../main/services/audit/store.js', import.meta.url).href;

const root = process.getuid?.() === 0;
/** The real binary as a user who cannot write what root made read-only (this user when not root). */
function unprivileged(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd,
    env: { ...process.env, HOME: cwd, XDG_CACHE_HOME: join(cwd, '.cache') },
    ...(root ? { uid: 65534, gid: 65534 } : {}),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A folder every user can enter (mkdtemp makes it 0700). */
function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'witness-cli-audit-'));
  chmodSync(d, 0o755);
  return d;
}

async function database(file: string, events = 40): Promise<string> {
  let t = 1_760_000_000_000;
  const log = AuditLog.open(file, { now: () => (t += 3) });
  const r = await log.startRun({
    world: 'tabletop',
    backend: 'mujoco',
    operator: 'ada',
    software: 'witness test',
    models: {},
    spec: 'the mug on the tray',
  });
  for (let i = 0; i < events; i++) void log.append(r, 'evidence', { i, note: 'x'.repeat(200) });
  await log.append(r, 'run_end', { outcome: 'success' });
  await log.close();
  return r;
}

const digest = (f: string): string => sha256(readFileSync(f).toString('latin1'));

/**
 * Every export format to each `--out` target is refused: exit 2, the message names the target and says `why` (and
 * `also`).
 */
async function assertExportRefused(db: string, targets: readonly [string, RegExp][], also?: RegExp): Promise<void> {
  for (const format of ['jsonl', 'csv', 'mcap']) {
    for (const [out, why] of targets) {
      const r = await cli('audit', 'export', db, '--format', format, '--out', out);
      assert.equal(r.code, 2, `${format} to ${out}: ${r.err}`);
      assert.match(r.err, new RegExp(`^error: --out ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      assert.match(r.err, why);
      if (also !== undefined) assert.match(r.err, also);
    }
  }
}

test('export refuses the database itself (by name, ./name, a symbolic or hard link), its WAL, any SQLite file, a folder: exit 2, evidence intact', async () => {
  const d = folder();
  const db = join(d, 'A.sqlite');
  await database(db);
  const other = join(d, 'B.sqlite');
  await database(other, 3);
  symlinkSync(db, join(d, 'link.sqlite'));
  linkSync(db, join(d, 'hard.sqlite'));
  mkdirSync(join(d, 'out'));
  const before = digest(db),
    otherBefore = digest(other);
  const targets: [string, RegExp][] = [
    [db, /is the audit database .* itself/],
    [`./${relative(process.cwd(), db)}`, /is the audit database .* itself/],
    [join(d, 'link.sqlite'), /is the audit database .* itself/],
    [join(d, 'hard.sqlite'), /is the audit database .* itself/],
    [`${db}-wal`, /is the wal file of the audit database/],
    [other, /is an existing SQLite database/],
    [join(d, 'out'), /is a folder/],
  ];
  await assertExportRefused(db, targets, /nothing was written/);
  assert.equal(digest(db), before, 'the database is unchanged');
  assert.equal(digest(other), otherBefore, 'the other database is unchanged');
  assert.equal(existsSync(`${db}-wal`) ? readFileSync(`${db}-wal`).length : 0, 0, 'no WAL written');
  assert.equal((await cli('audit', 'verify', db)).code, 0);
  // A new file, and an existing export (not a database), are fine.
  const fresh = join(d, 'out', 'a.jsonl');
  assert.equal((await cli('audit', 'export', db, '--format', 'jsonl', '--out', fresh)).code, 0);
  assert.equal((await cli('audit', 'export', db, '--format', 'csv', '--out', fresh)).code, 0);
  assert.match(readFileSync(fresh, 'utf8'), /^seq,run_id,/);
});

test('export refuses what is not a regular file or a new name: device nodes, a FIFO, a socket, links to them — exit 2, nothing replaced, no temporary left', async () => {
  const d = folder();
  const db = join(d, 'A.sqlite');
  await database(db, 3);
  const dev = join(d, 'dev');
  mkdirSync(dev);
  // As root, copies of /dev/null and /dev/zero in a scratch folder (root could replace the real ones); else the real
  // ones.
  const nodes = root
    ? [
        ['null', 'c', '1', '3'],
        ['zero', 'c', '1', '5'],
      ].map(([n, ...a]) => {
        execFileSync('mknod', [join(dev, n!), ...a]);
        return join(dev, n!);
      })
    : ['/dev/null', '/dev/zero'];
  execFileSync('mkfifo', [join(dev, 'fifo')]);
  const sock = createServer();
  await new Promise<void>((r) => sock.listen(join(dev, 'sock'), r));
  symlinkSync(nodes[0]!, join(dev, 'to-null'));
  symlinkSync(join(dev, 'fifo'), join(dev, 'to-fifo'));
  try {
    const targets: [string, RegExp][] = [
      [
        nodes[0]!,
        /: is a character device, not a regular file; an export is written only to a regular file or a new name, and never replaces a device, a FIFO or a socket; nothing was written\n$/,
      ],
      [nodes[1]!, /: is a character device, not a regular file/],
      [join(dev, 'fifo'), /: is a FIFO \(named pipe\), not a regular file/],
      [join(dev, 'sock'), /: is a socket, not a regular file/],
      [join(dev, 'to-null'), /: is a symbolic link to a character device, not a regular file/],
      [join(dev, 'to-fifo'), /: is a symbolic link to a FIFO \(named pipe\), not a regular file/],
    ];
    await assertExportRefused(db, targets);
    const kinds = (f: string): string => {
      const s = lstatSync(f);
      return s.isCharacterDevice()
        ? 'c'
        : s.isFIFO()
          ? 'p'
          : s.isSocket()
            ? 's'
            : s.isSymbolicLink()
              ? 'l'
              : s.isFile()
                ? 'f'
                : '?';
    };
    assert.deepEqual(nodes.map(kinds), ['c', 'c'], 'the device nodes are still devices');
    assert.deepEqual(
      readdirSync(dev)
        .sort()
        .map((f) => `${f}:${kinds(join(dev, f))}`),
      root
        ? ['fifo:p', 'null:c', 'sock:s', 'to-fifo:l', 'to-null:l', 'zero:c']
        : ['fifo:p', 'sock:s', 'to-fifo:l', 'to-null:l'],
      'nothing replaced, no temporary left',
    );
  } finally {
    sock.close();
  }
});

test('write-protected evidence in a read-only folder verifies, lists and exports — with and without a WAL — and nothing is written there', async () => {
  const d = folder();
  // Checkpointed: the database file alone (its header still says WAL mode).
  const plain = join(d, 'plain');
  mkdirSync(plain);
  await database(join(plain, 'a.sqlite'));
  // A hot WAL: the writer was killed before any checkpoint, so the WAL holds every event.
  const hot = join(d, 'hot');
  mkdirSync(hot);
  const writer = join(d, 'writer.mjs');
  writeFileSync(
    writer,
    `
    import { AuditLog } from ${JSON.stringify(STORE)};
    const log = AuditLog.open(${JSON.stringify(join(hot, 'a.sqlite'))});
    const run = await log.startRun({ world: 'w', backend: 'b', operator: 'ada', software: 's', models: {} });
    for (let i = 0; i < 30; i++) await log.append(run, 'evidence', { i });
    process.kill(process.pid, 'SIGKILL');
  `,
  );
  await new Promise((r) => spawn(process.execPath, [writer], { stdio: 'inherit' }).on('exit', r));
  assert.ok(readFileSync(join(hot, 'a.sqlite-wal')).length > 0, 'the WAL holds the events');
  for (const [dir, events] of [
    [plain, 42],
    [hot, 31],
  ] as const) {
    // As a copy handed over as evidence: no -shm beside it.
    rmSync(join(dir, 'a.sqlite-shm'), { force: true });
    for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o444);
    chmodSync(dir, 0o555);
    const listing = readdirSync(dir).sort();
    const sums = listing.map((f) => digest(join(dir, f)));
    const v = unprivileged(['audit', 'verify', join(dir, 'a.sqlite')], d);
    assert.equal(v.code, 0, v.err);
    assert.match(v.out, new RegExp(`intact: ${events} events, 1 runs`));
    const ls = unprivileged(['audit', 'ls', join(dir, 'a.sqlite')], d);
    assert.equal(ls.code, 0, ls.err);
    assert.match(ls.out, /ada/);
    const out = join(d, `${events}.jsonl`);
    chmodSync(d, 0o777);
    const ex = unprivileged(['audit', 'export', join(dir, 'a.sqlite'), '--format', 'jsonl', '--out', out], d);
    chmodSync(d, 0o755);
    assert.equal(ex.code, 0, ex.err);
    assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, events);
    assert.deepEqual(readdirSync(dir).sort(), listing, 'nothing created beside the evidence');
    assert.deepEqual(
      listing.map((f) => digest(join(dir, f))),
      sums,
      'not a byte changed',
    );
  }
});

test('corrupt pages, a folder, an unreadable file, a pipe given as the database: exit 2 naming the file', async () => {
  const d = folder();
  const good = join(d, 'good.sqlite');
  await database(good, 300);
  const bytes = readFileSync(good);
  const page = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
  const random = seeded(42);
  const garble = (from: number, to: number): Buffer => {
    const b = Buffer.from(bytes);
    for (let i = from; i < to; i++) b[i] = Math.floor(random() * 256);
    return b;
  };
  // One page in the middle garbled: quick_check finds it.
  const onePage = join(d, 'one-page.sqlite');
  const mid = Math.floor(bytes.length / page / 2);
  writeFileSync(onePage, garble(mid * page, (mid + 1) * page));
  // Every page after the schema garbled: every read fails.
  const allPages = join(d, 'all-pages.sqlite');
  writeFileSync(allPages, garble(2 * page, bytes.length));
  for (const [file, commands] of [
    [onePage, [['verify']]],
    [
      allPages,
      [['verify'], ['ls'], ['query'], ['show', 'x'], ['export', '--format', 'csv', '--out', join(d, 'x.csv')]],
    ],
  ] as const) {
    for (const c of commands) {
      const [cmd, ...rest] = c;
      const r = await cli('audit', cmd, file, ...rest);
      assert.equal(r.code, 2, `${cmd} ${file}: ${r.err}`);
      assert.ok(r.err.startsWith(`error: ${file}: `), r.err);
      assert.match(r.err, /corrupt|malformed/);
    }
  }
  const folderDb = join(d, 'folder.sqlite');
  mkdirSync(folderDb);
  for (const cmd of ['verify', 'ls', 'query']) {
    const r = await cli('audit', cmd, folderDb);
    assert.equal(r.code, 2, r.err);
    assert.equal(r.err, `error: ${folderDb}: is a folder, not an audit database file\n`);
  }
  const pipe = join(d, 'pipe.sqlite');
  spawnSync('mkfifo', [pipe]);
  if (existsSync(pipe)) {
    const r = await cli('audit', 'verify', pipe);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, new RegExp(`^error: ${pipe}: is not a regular file`));
  }
  const locked = join(d, 'unreadable.sqlite');
  copyFileSync(good, locked);
  chmodSync(locked, 0o000);
  const r = unprivileged(['audit', 'verify', locked], d);
  assert.equal(r.code, 2, r.err);
  assert.equal(r.err, `error: ${locked}: cannot be read (permission denied)\n`);
});

test('a forged runs table: ls shows the chained operator marked TAMPERED, verify exits 1 naming the run and the dropped trigger', async () => {
  const d = folder();
  const db = join(d, 'a.sqlite');
  const runId = await database(db, 3);
  const raw = new Database(db);
  raw.exec("DROP TRIGGER runs_no_update; UPDATE runs SET operator = 'mallory'");
  raw.close();
  const ls = await cli('audit', 'ls', db);
  assert.equal(ls.code, 0);
  assert.match(
    ls.out,
    new RegExp(`^${runId} .* ada .*TAMPERED: its operator is "mallory" in the runs table but "ada"`),
  );
  assert.doesNotMatch(ls.out, /mallory +\d/);
  assert.match(ls.err, /run `witness audit verify`/);
  const v = await cli('audit', 'verify', db);
  assert.equal(v.code, 1);
  assert.match(v.out, new RegExp(`NOT intact: runs ${runId}: its operator is "mallory"`));
  assert.match(v.out, /also: schema runs_no_update: the trigger runs_no_update is missing/);
});

test('query --kind: an event kind the log does not record exits 2 listing the kinds (was: exit 0, nothing printed); a known kind filters', async () => {
  const d = folder();
  const db = join(d, 'a.sqlite');
  await database(db, 3);
  const bad = await cli('audit', 'query', db, '--kind', 'nope');
  assert.equal(bad.code, 2);
  assert.equal(bad.out, '');
  assert.match(
    bad.err,
    /^error: --kind must be an event kind the audit log records: run_start, run_end, tool_call, .*evidence.*; got 'nope'\n$/,
  );
  const ok = await cli('audit', 'query', db, '--kind', 'evidence', '--json');
  assert.equal(ok.code, 0, ok.err);
  const kinds = ok.out
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { kind: string }).kind);
  assert.deepEqual(kinds, ['evidence', 'evidence', 'evidence']);
});

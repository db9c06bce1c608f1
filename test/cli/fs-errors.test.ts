/**
 * File-system errors are the path's problem, not a bug: a name too long (ENAMETOOLONG), a loop of
 * symbolic links (ELOOP), a dangling link, a file where a folder is needed — given as an input, an
 * output or the audit database — end with exit 2 and a message naming the path and what is wrong
 * with it, never `error: internal` (70).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { report } from '../../main/cli/errors.js';
import { createDirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { asset, cli } from './harness.js';

function scene(): { dir: string; long: string; deep: string; loop: string; dangling: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'witness-fs-errors-'));
  symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
  symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
  symlinkSync(join(dir, 'gone'), join(dir, 'dangling'));
  writeFileSync(join(dir, 'file'), 'x');
  return {
    dir,
    long: join(dir, 'a'.repeat(300)),
    deep: join(dir, ...Array.from({ length: 30 }, () => 'd'.repeat(200))),
    loop: join(dir, 'loop-a'),
    dangling: join(dir, 'dangling'),
    file: join(dir, 'file'),
  };
}

const ACT = [
  'act',
  '--world',
  'tabletop',
  '--tools',
  asset('tools'),
  '--plan',
  asset('plans/warehouse.json'),
  '--goal',
  'objects.red_bin.on == "shelf_c4"',
  '--replans',
  '0',
];

test('an audit database whose folder cannot be made (a name too long, a loop of links, a dangling link, a file in the way): exit 2 naming it and why', async () => {
  const s = scene();
  try {
    for (const [db, why] of [
      [join(s.long, 'a.sqlite'), /cannot create its folder: ENAMETOOLONG: the name is too long for the file system/],
      // A path of 6000 bytes: the message keeps its start and end (cli/errors.ts clipMessage).
      [
        join(s.deep, 'a.sqlite'),
        /ENAMETOOLONG: the name is too long for the file system \(a name over 255 bytes, or a path over 4095\)\n$/,
      ],
      [join(s.loop, 'a.sqlite'), /cannot create its folder: ELOOP: too many levels of symbolic links/],
      [
        join(s.dangling, 'a.sqlite'),
        new RegExp(
          `cannot create its folder: ENOENT: ${s.dangling.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a symbolic link to \\S+gone, which does not exist`,
        ),
      ],
      [join(s.file, 'a.sqlite'), /cannot create its folder: E(EXIST|NOTDIR): /],
    ] as const) {
      const r = await cli(...ACT, '--audit', db);
      assert.equal(r.code, 2, `${db.slice(0, 80)}: ${r.err.slice(0, 300)}`);
      assert.ok(r.err.startsWith(`error: ${db.slice(0, 1000)}`), r.err.slice(0, 300));
      assert.match(r.err, why);
      assert.equal(r.err.split('\n').length, 2, 'one line');
    }
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('inputs and outputs named by such paths: exit 2 naming the path and the errno in words, the path said once', async () => {
  const s = scene();
  try {
    for (const [argv, file, why] of [
      [
        ['graph', 'info', s.long],
        s.long,
        /cannot read: ENAMETOOLONG: the name is too long for the file system \(a name over 255 bytes, or a path over 4095\)\n$/,
      ],
      [['data', 'info', s.loop], s.loop, /cannot read: ELOOP: too many levels of symbolic links/],
      [
        ['graph', 'info', s.dangling],
        s.dangling,
        /cannot read: ENOENT: it is a symbolic link to \S+gone, which does not exist\n$/,
      ],
      [
        [
          'graph',
          'from-map',
          asset('maps/lab.yaml'),
          '--regions',
          asset('maps/lab-regions.json'),
          '--out',
          join(s.long, 'g.json'),
        ],
        join(s.long, 'g.json'),
        /cannot write: ENAMETOOLONG: /,
      ],
      [
        [
          'graph',
          'from-map',
          asset('maps/lab.yaml'),
          '--regions',
          asset('maps/lab-regions.json'),
          '--out',
          join(s.dangling, 'g.json'),
        ],
        join(s.dangling, 'g.json'),
        /cannot write: ENOENT: \S+dangling is a symbolic link to \S+gone, which does not exist\n$/,
      ],
    ] as const) {
      const r = await cli(...argv);
      assert.equal(r.code, 2, `${argv.join(' ').slice(0, 120)}: ${r.err.slice(0, 300)}`);
      assert.ok(r.err.startsWith(`error: ${file}: `), r.err.slice(0, 300));
      assert.match(r.err, why);
      assert.equal(r.err.split(file).length, 2, `the path once: ${r.err.slice(0, 400)}`);
    }
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('an audit database named by such a path (read, verified, or written): exit 2 naming it and why in words', async () => {
  const s = scene();
  try {
    for (const [argv, file, why] of [
      [
        ['audit', 'verify', s.long],
        s.long,
        /cannot be read: ENAMETOOLONG: the name is too long for the file system \(a name over 255 bytes, or a path over 4095\)\n$/,
      ],
      [['audit', 'ls', s.loop], s.loop, /cannot be read: ELOOP: too many levels of symbolic links/],
      [
        ['audit', 'ls', s.dangling],
        s.dangling,
        /no such file: it is a symbolic link to \S+gone, which does not exist\n$/,
      ],
      [
        [...ACT, '--audit', s.dangling],
        s.dangling,
        /it is a symbolic link to \S+gone, which does not exist: an audit database is not created through a link to nothing\n$/,
      ],
    ] as const) {
      const r = await cli(...argv);
      assert.equal(r.code, 2, `${argv.join(' ').slice(0, 120)}: ${r.err.slice(0, 300)}`);
      assert.ok(r.err.startsWith(`error: ${file}: `), r.err.slice(0, 300));
      assert.match(r.err, why);
      assert.equal(r.err.split(file).length, 2, `the path once: ${r.err.slice(0, 400)}`);
    }
    // Nothing was created where the link points (gone), nor beside it.
    assert.deepEqual(readdirSync(s.dir).sort(), ['dangling', 'file', 'loop-a', 'loop-b']);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('a file-system error no reader named still reports the path, exit 2: never internal', () => {
  for (const [code, exit, words] of [
    ['ENAMETOOLONG', 2, 'the name is too long'],
    ['ELOOP', 2, 'too many levels of symbolic links'],
    ['ENOENT', 2, 'no such file or folder'],
    ['EACCES', 2, 'permission denied'],
  ] as const) {
    let err = '';
    const e = Object.assign(new Error(`${code}: raw, mkdir '/x/y'`), { code, path: '/x/y', syscall: 'mkdir' });
    assert.equal(
      report(e, {
        out: () => undefined,
        err: (t) => {
          err += t;
        },
      }),
      exit,
    );
    assert.equal(
      err,
      `error: /x/y: cannot mkdir: ${code}: ${words}${code === 'ENAMETOOLONG' ? ' for the file system (a name over 255 bytes, or a path over 4095)' : code === 'ELOOP' ? ' (links that lead back to themselves)' : ''}\n`,
    );
  }
  let err = '';
  assert.equal(
    report(Object.assign(new Error('EBADF: bad file descriptor'), { code: 'EBADF' }), {
      out: () => undefined,
      err: (t) => {
        err += t;
      },
    }),
    70,
    'not about a path: still a bug',
  );
  assert.match(err, /^error: internal: EBADF/);
});

test('the API reports such an error the same way: its code and the path, not internal', async () => {
  const api = createDirectApi();
  const raw = Object.assign(new Error("ELOOP: too many symbolic links encountered, open '/w/loop'"), {
    code: 'ELOOP',
    path: '/w/loop',
    syscall: 'open',
  });
  const dispatch = createDispatcher({ ...api, version: () => Promise.reject(raw) });
  assert.deepEqual(await dispatch('version', {}), {
    ok: false,
    error: {
      code: 'invalid-input',
      message: '/w/loop: cannot open: ELOOP: too many levels of symbolic links (links that lead back to themselves)',
      path: '/w/loop',
    },
  });
});

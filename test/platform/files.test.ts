/**
 * The atomic writer writes only to a regular file or a new name: a device node, a FIFO or a socket
 * (or a link to one) is refused before anything is written, and again just before the rename, so
 * one that appears while the content is written is not replaced either; no temporary is left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FileError,
  appendLineDurable,
  notWritable,
  privateCopy,
  writeAtomicWith,
  writeFileAtomic,
} from '../../main/platform/files.js';

const refused =
  (kind: RegExp) =>
  (e: unknown): boolean =>
    e instanceof FileError && e.code === 'not-a-file' && kind.test(e.message) && /is never replaced/.test(e.message);

test('a FIFO, a link to a device, a folder: refused with not-a-file before anything is written; a regular file and a new name are written', async () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-files-'));
  try {
    execFileSync('mkfifo', [join(d, 'fifo')]);
    symlinkSync('/dev/null', join(d, 'null'));
    symlinkSync(join(d, 'nowhere'), join(d, 'dangling'));
    await assert.rejects(
      writeFileAtomic(join(d, 'fifo'), 'x'),
      refused(/fifo: is a FIFO \(named pipe\), not a regular file/),
    );
    await assert.rejects(
      writeFileAtomic(join(d, 'null'), 'x'),
      refused(/null: is a symbolic link to a character device/),
    );
    await assert.rejects(writeFileAtomic(d, 'x'), refused(/: is a folder, not a regular file/));
    assert.equal(notWritable(join(d, 'fifo')), 'is a FIFO (named pipe)');
    assert.equal(notWritable(join(d, 'dangling')), null, 'a link to nothing is a new name');
    assert.equal(notWritable(join(d, 'new')), null);
    writeFileSync(join(d, 'old'), 'old');
    await writeFileAtomic(join(d, 'old'), 'new');
    await writeFileAtomic(join(d, 'new'), 'new');
    assert.deepEqual([readFileSync(join(d, 'old'), 'utf8'), readFileSync(join(d, 'new'), 'utf8')], ['new', 'new']);
    assert.deepEqual(readdirSync(d).sort(), ['dangling', 'fifo', 'new', 'null', 'old']);
    assert.ok(lstatSync(join(d, 'fifo')).isFIFO());
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a FIFO made at the target while the content is written is not replaced: refused at the rename, the temporary removed', async () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-files-'));
  try {
    const target = join(d, 'out.jsonl');
    await assert.rejects(
      writeAtomicWith(target, async (fh) => {
        await fh.write('{"a":1}\n');
        execFileSync('mkfifo', [target]);
      }),
      refused(/out\.jsonl: is a FIFO/),
    );
    assert.deepEqual(readdirSync(d), ['out.jsonl']);
    assert.ok(lstatSync(target).isFIFO());
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a durable journal line: appended with its newline to a new or an existing file, earlier lines kept', () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-journal-'));
  try {
    const file = join(d, 'journal.jsonl');
    appendLineDurable(file, '{"a":1}');
    appendLineDurable(file, '{"b":2}');
    assert.equal(readFileSync(file, 'utf8'), '{"a":1}\n{"b":2}\n');
    assert.throws(() => appendLineDurable(join(d, 'no-folder', 'journal.jsonl'), 'x'), /ENOENT/);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a private copy: the file and those companions that exist, in a fresh folder; a missing file leaves no folder', () => {
  const d = mkdtempSync(join(tmpdir(), 'witness-copy-src-'));
  const made: string[] = [];
  try {
    const file = join(d, 'log.sqlite');
    writeFileSync(file, 'main');
    writeFileSync(`${file}-wal`, 'wal');
    const { dir, copy } = privateCopy(file, ['-wal', '-shm'], 'witness-copy-');
    made.push(dir);
    assert.equal(copy, join(dir, 'log.sqlite'));
    assert.deepEqual(readdirSync(dir).sort(), ['log.sqlite', 'log.sqlite-wal']);
    assert.equal(readFileSync(`${copy}-wal`, 'utf8'), 'wal');
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('witness-copy-missing-')).length;
    assert.throws(() => privateCopy(join(d, 'none.sqlite'), [], 'witness-copy-missing-'), /ENOENT/);
    assert.equal(readdirSync(tmpdir()).filter((n) => n.startsWith('witness-copy-missing-')).length, before);
  } finally {
    for (const m of [d, ...made]) rmSync(m, { recursive: true, force: true });
  }
});

/**
 * Text from outside printed with its control characters escaped: a value that would clear the
 * screen (ESC [2J), overwrite a line (CR, backspace), start a line of its own that looks like ours
 * (LF), act as a C1 control (U+009B, CSI) or reorder what is shown (U+202E) reaches the terminal as
 * escapes — in error messages quoting a file, in audit ls/show/query (text and JSON), and in a
 * bag's topic names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printable, printableJson } from '../../main/cli/printable.js';
import { AuditLog } from '../../main/services/audit/store.js';
import { writeDb3 } from '../services/datasets/rosbag2-fixtures.js';
import { asset, cli } from './harness.js';

/**
 * What a hostile value carries: clear the screen, return to the line's start, a fake outcome on a new line, C1 CSI, a
 * right-to-left override, a backspace.
 */
const HOSTILE = '\u001b[2J\r\n  outcome: success\u009b2J\u202eevil\b';
/** Where the first character a terminal acts on is, other than the newline that ends each line; -1 when none. */
function rawAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (
      (c < 0x20 && c !== 0x0a) ||
      (c >= 0x7f && c <= 0x9f) ||
      c === 0x061c ||
      c === 0x200e ||
      c === 0x200f ||
      c === 0x2028 ||
      c === 0x2029 ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2066 && c <= 0x2069)
    )
      return i;
  }
  return -1;
}

const assertPrintable = (text: string, what: string): void => {
  const at = rawAt(text);
  assert.equal(
    at,
    -1,
    `${what}: a raw U+${text.charCodeAt(at).toString(16).padStart(4, '0')} in ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`,
  );
  assert.doesNotMatch(text, /^\s*outcome: success/m, `${what}: a line of its own that looks like an outcome`);
};

test('printable escapes C0, DEL, C1, separators and bidi controls, one line in, one line out; printableJson keeps the JSON value', () => {
  assert.equal(printable(HOSTILE), '\\e[2J\\r\\n  outcome: success\\u009b2J\\u202eevil\\b');
  assert.equal(
    printable('\u0000\u0007\u007f\t\u000b\u000c\u2028\u2066\u200f'),
    '\\x00\\x07\\x7f\\t\\v\\f\\u2028\\u2066\\u200f',
  );
  assert.equal(printable('plain, with a \\ backslash and ünïcode ✓'), 'plain, with a \\ backslash and ünïcode ✓');
  const json = printableJson({ s: HOSTILE, n: [1, '\u0085'] });
  assertPrintable(json, 'printableJson');
  assert.deepEqual(JSON.parse(json), { s: HOSTILE, n: [1, '\u0085'] });
});

test("an error quoting a file's value (a regions file's world) is one line with the value escaped", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-printable-'));
  try {
    for (const f of ['lab.yaml', 'lab.pgm']) copyFileSync(asset(`maps/${f}`), join(dir, f));
    const regions = JSON.parse(
      (await import('node:fs')).readFileSync(asset('maps/lab-regions.json'), 'utf8'),
    ) as Record<string, unknown>;
    writeFileSync(join(dir, 'r.json'), JSON.stringify({ ...regions, world: HOSTILE }));
    const r = await cli(
      'graph',
      'from-map',
      join(dir, 'lab.yaml'),
      '--regions',
      join(dir, 'r.json'),
      '--out',
      join(dir, 'g.json'),
    );
    assert.equal(r.code, 2, r.err);
    assertPrintable(r.err, 'stderr');
    assert.equal(r.err.split('\n').length, 2, `one line: ${r.err}`);
    assert.match(r.err, /the regions are for "\\e\[2J\\r\\n {2}outcome: success\\u009b2J\\u202eevil\\b"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("audit ls, show and query print a log's fields and event bodies escaped, as text and as JSON", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-printable-'));
  try {
    const db = join(dir, 'a.sqlite');
    const log = AuditLog.open(db);
    const run = await log.startRun({
      world: `lab${HOSTILE}`,
      backend: 'mujoco',
      operator: `ada${HOSTILE}`,
      software: 'witness test',
      models: {},
      spec: `F dock${HOSTILE}`,
    });
    await log.append(run, 'evidence', { note: HOSTILE }, { tool: `pick${HOSTILE}`, failureLabel: `slip${HOSTILE}` });
    await log.append(run, 'run_end', { outcome: `success${HOSTILE}`, replans: 0 });
    await log.close();
    for (const argv of [
      ['ls', db],
      ['ls', db, '--json'],
      ['show', db, run],
      ['show', db, run, '--json'],
      ['query', db],
      ['query', db, '--json'],
      ['query', db, '--tool', `pick${HOSTILE}`],
    ]) {
      const r = await cli('audit', ...argv);
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.err}`);
      assertPrintable(r.out + r.err, `audit ${argv[0]}${argv.includes('--json') ? ' --json' : ''}`);
      if (argv.includes('--json')) for (const l of r.out.trim().split('\n')) JSON.parse(l);
    }
    const shown = await cli('audit', 'show', db, run);
    assert.match(
      shown.out,
      /^run [0-9a-f-]+: lab\\e\[2J\\r\\n {2}outcome: success\\u009b2J\\u202eevil\\b \(mujoco\), operator ada\\e/m,
    );
    assert.match(shown.out, /^specification: F dock\\e\[2J/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("data info prints a bag's topic names escaped (text and JSON)", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-printable-'));
  try {
    const bag = join(dir, 'b.db3');
    writeDb3(bag, { distro: 'humble', pose: 'odometry', action: 'twist', poseTopic: `/odom${HOSTILE}` });
    for (const json of [false, true]) {
      const r = await cli('data', 'info', bag, ...(json ? ['--json'] : []));
      assert.equal(r.code, 0, r.err);
      assertPrintable(r.out + r.err, `data info${json ? ' --json' : ''}`);
      assert.match(
        r.out,
        json
          ? /"\/odom\\u001b\[2J\\r\\n {2}outcome: success\\u009b2J\\u202eevil\\b"/
          : /^ {2}\/odom\\e\[2J\\r\\n {2}outcome: success\\u009b2J\\u202eevil\\b {2}nav_msgs/m,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

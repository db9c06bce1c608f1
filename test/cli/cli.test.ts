import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli } from './harness.js';

const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));

test('contract: the real binary prints HOA with exit 0, and error: L:C: on stderr with exit 2', () => {
  const ok = spawnSync(process.execPath, [BIN, 'ltl', 'translate', 'G F a & (!b U c)'], { encoding: 'utf8' });
  assert.equal(ok.status, 0);
  assert.match(ok.stdout, /^HOA: v1\n/);
  assert.equal(ok.stderr, '');
  const bad = spawnSync(process.execPath, [BIN, 'ltl', 'translate', 'G (a U'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, '');
  assert.equal(bad.stderr, "error: 1:7: expected a formula after 'U', found end of input\n");
});

test('the compiled entry run directly is the command too, once (not twice through bin/witness.js)', () => {
  const entry = fileURLToPath(new URL('../../main/witness.js', import.meta.url));
  const ok = spawnSync(process.execPath, [entry, 'ltl', 'translate', 'F a'], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout.match(/^HOA: v1$/gm)?.length, 1);
  const bad = spawnSync(process.execPath, [entry, 'ltl', 'translate', 'G (a U'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, "error: 1:7: expected a formula after 'U', found end of input\n");
  const viaBin = spawnSync(process.execPath, [BIN, 'ltl', 'translate', 'F a'], { encoding: 'utf8' });
  assert.equal(viaBin.stdout.match(/^HOA: v1$/gm)?.length, 1);
});

test("translate: formats json and dot; X is accepted (the LTL tools read Spot's syntax), a mission spec refuses it", async () => {
  const j = await cli('ltl', 'translate', '--format', 'json', 'F a');
  assert.equal(j.code, 0);
  assert.equal((JSON.parse(j.out) as { format: string }).format, 'witness-buchi');
  const d = await cli('ltl', 'translate', '--format', 'dot', 'F a');
  assert.match(d.out, /^digraph buchi/);
  const x = await cli('ltl', 'translate', 'G (a -> X b)');
  assert.equal(x.code, 0);
  assert.match(x.out, /^HOA: v1\nname: "G \(a -> X b\)"\n/);
  const plan = await cli(
    'plan',
    '--graph',
    fileURLToPath(new URL('../../../assets/graphs/warehouse.json', import.meta.url)),
    '--spec',
    'G (dock -> X pack)',
  );
  assert.equal(plan.code, 2);
  assert.match(
    plan.err,
    /^error: --spec:1:12: the next operator X is not supported: specifications must be stutter-invariant/,
  );
  const t = await cli('ltl', 'translate', '--acceptance', 'transition', 'G F a');
  assert.match(t.out, /trans-acc/);
});

test('translate: bad flags and missing input are usage errors (exit 2), budgets exit 3', async () => {
  const f = await cli('ltl', 'translate', '--format', 'xml', 'a');
  assert.equal(f.code, 2);
  assert.match(f.err, /argument 'xml' is invalid/);
  const none = await cli('ltl', 'translate');
  assert.equal(none.code, 2);
  assert.match(none.err, /missing formula/);
  const states = await cli('ltl', 'translate', '--max-states', '10', 'F a & F b & F c & F d & F e');
  assert.equal(states.code, 3);
  assert.match(states.err, /^error: budget: translation exceeded its state budget of 10 states/);
  const long = await cli('ltl', 'translate', 'a & '.repeat(3000) + 'a');
  assert.equal(long.code, 3);
  const ms = await cli('ltl', 'translate', '--max-states', 'lots', 'a');
  assert.equal(ms.code, 2);
});

test('translate --file: errors name the file, line and column', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-cli-'));
  const spec = join(dir, 'spec.ltl');
  writeFileSync(spec, 'G (a ->\n  F b) &\n  (c U\n');
  const r = await cli('ltl', 'translate', '--file', spec);
  assert.equal(r.code, 2);
  assert.equal(r.err, `error: ${spec}:4:1: expected a formula after 'U', found end of input\n`);
  const missing = await cli('ltl', 'translate', '--file', join(dir, 'nope.ltl'));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /cannot read .*nope\.ltl: ENOENT/);
  writeFileSync(spec, 'F a & G F b\n');
  assert.equal((await cli('ltl', 'translate', '--file', spec)).code, 0);
});

test('translate --disjoint / --unavailable prune and report', async () => {
  const r = await cli('ltl', 'translate', '--disjoint', '--unavailable', 'b,zz', '--stats', 'F (a & b) | F b | F a');
  assert.equal(r.code, 0);
  assert.match(r.err, /--unavailable names propositions the formula does not use: zz/);
  assert.match(r.err, /pruning: \d+ guard terms dropped/);
  const empty = await cli('ltl', 'translate', '--unavailable', 'a', 'F a');
  assert.match(empty.err, /no accepting run remains/);
});

test('parse, check and monitor', async () => {
  const p = await cli('ltl', 'parse', '[]<>a && (b V c)');
  assert.equal(p.out, 'G F a & b R c\n');
  assert.equal((await cli('ltl', 'parse', '--syntax', 'spin', 'G F a & b W c')).out, '[]<>a && (b U c || []b)\n');
  const yes = await cli('ltl', 'check', 'G F a', '--prefix', 'b', '--cycle', ';a');
  assert.equal(yes.code, 0);
  assert.match(yes.out, /^satisfied/);
  const no = await cli('ltl', 'check', '!b U a', '--prefix', 'b', '--cycle', 'a', '--json');
  assert.equal(no.code, 1);
  assert.deepEqual(JSON.parse(no.out), { formula: '!b U a', satisfied: false });
  const noCycle = await cli('ltl', 'check', 'a', '--cycle', '');
  assert.equal(noCycle.code, 2);
  const badLetter = await cli('ltl', 'check', 'a', '--cycle', 'a b');
  assert.equal(badLetter.code, 2);
  assert.match(badLetter.err, /--cycle: letter 1: 'a b' is not a proposition name/);
  const m = await cli('ltl', 'monitor', 'G !b', '--word', 'a;;b');
  assert.equal(m.code, 1);
  assert.match(m.out, /VIOLATED/);
});

test('every sub-command has --help', async () => {
  for (const argv of [
    [],
    ['ltl'],
    ['ltl', 'translate'],
    ['ltl', 'parse'],
    ['ltl', 'check'],
    ['ltl', 'monitor'],
    ['demo'],
    ['bench'],
    ['bench', 'ltl'],
    ['bench', 'world'],
    ['world'],
    ['world', 'ls'],
    ['world', 'render'],
    ['world', 'check'],
    ['world', 'scenes'],
    ['data'],
    ['data', 'gen'],
    ['data', 'info'],
    ['data', 'import'],
    ['data', 'export'],
    ['model'],
    ['model', 'check'],
    ['train'],
    ['train', 'embed'],
    ['train', 'policy'],
    ['backbone'],
    ['backbone', 'eval'],
    ['backbone', 'train'],
    ['backbone', 'train-hiql'],
    ['backbone', 'eval-hiql'],
    ['graph'],
    ['graph', 'build'],
    ['graph', 'info'],
    ['graph', 'export'],
  ]) {
    const r = await cli(...argv, '--help');
    assert.equal(r.code, 0, argv.join(' '));
    assert.match(r.out, /Usage: witness/);
  }
});

test('backbone eval-hiql: an unknown world or a bad flag is bad input (exit 2), named', async () => {
  const w = await cli('backbone', 'eval-hiql', '--world', 'nowhere', '--goals', '1');
  assert.equal(w.code, 2);
  assert.match(w.err, /--world: unknown world 'nowhere'/);
  const g = await cli('backbone', 'eval-hiql', '--world', 'pointmaze-medium', '--goals', '0');
  assert.equal(g.code, 2);
  assert.match(g.err, /--goals/);
});

test('demo: the embedded maze and the case studies; writes the picture, dataset, HOA and DOT on request', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-demo-'));
  const r = await cli('demo', '--out', dir, '--steps', '2000');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /navigate dataset: 2000 transitions/);
  assert.ok(readdirSync(dir).includes('pointmaze-medium.svg'));
  assert.match(r.out, /eq6 +\d+/);
  assert.match(r.out, /violation detected at step 2/);
  assert.doesNotMatch(r.out, /DISAGREE/);
  assert.ok(readdirSync(dir).includes('eq6.hoa'));
});

test('bench cli: the three start-up commands as new processes, with their ratios to node -e 0; a bad --mission is a usage error', async () => {
  const r = await cli('bench', 'cli', '--runs', '1', '--json');
  assert.equal(r.code, 0, r.err);
  const rows = JSON.parse(r.out) as { command: string; p50_ms: number; ratio: number; goal: number | null }[];
  assert.deepEqual(
    rows.map((x) => [x.command, x.goal]),
    [
      ['node -e 0', null],
      ['witness --version', 4],
      ["witness ltl translate 'G F a'", 6],
    ],
  );
  assert.equal(rows[0]!.ratio, 1);
  for (const x of rows.slice(1)) assert.equal(x.ratio, x.p50_ms / rows[0]!.p50_ms);
  const bad = await cli('bench', 'cli', '--mission', '0');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--mission must be an integer in 1\.\.100, got '0'/);
});

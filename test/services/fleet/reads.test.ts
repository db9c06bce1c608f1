/**
 * `witness audit ls|show|query|replay|export --from postgres://…` against a real PostgreSQL (server.ts), as a reader
 * role: the same lines and JSON as on the local logs that were pushed, each after its source; the filters; paging with
 * a cursor; show, replay and export through a mirror; usage errors; no password printed. Skipped, saying why, only
 * where PostgreSQL is not installed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { AuditLog } from '../../../main/services/audit/store.js';
import { pushLog } from '../../../main/services/fleet/push.js';
import { initStore } from '../../../main/app/fleet.js';
import { fleetSources } from '../../../main/app/fleet-reads.js';
import { auditVerify } from '../../../main/app/audit.js';
import { run } from '../../../main/cli/main.js';
import { writtenLog } from '../audit/forge.js';
import { type PgServer, pgMissing, startPg } from './server.js';

const BIN = fileURLToPath(new URL('../../../../bin/witness.js', import.meta.url));
const skip = pgMissing() ?? false;

async function cli(...args: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = '',
    err = '';
  const status = await run(args, { out: (s) => (out += s), err: (s) => (err += s) });
  return { status, out, err };
}

/** The lines of `out` (some), each after `prefix`. */
function prefixed(prefix: string, out: string): string {
  assert.notEqual(out, '', 'the local log answers something to compare with');
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => `${prefix}${l}\n`)
    .join('');
}

/** A log of a tool loop on `world`: `n` tool calls, every fifth a failure record of `tool`. */
async function toolLog(file: string, world: string, n: number, t0: number): Promise<void> {
  let t = t0;
  const log = AuditLog.open(file, { now: () => (t += 1000) });
  const r = await log.startRun({ world, backend: 'test', operator: 'op', software: 'test', models: {} });
  for (let i = 0; i < n; i++)
    await log.append(r, i % 5 === 4 ? 'failure_record' : 'tool_call', { i, note: `call ${i}` }, { tool: 'grip' });
  await log.append(r, 'run_end', { outcome: 'failure' });
  await log.close();
}

describe('the read commands on a fleet store (a reader role)', { skip }, () => {
  let server: PgServer;
  let dir: string;
  let owner: string;
  let url: string;
  const logs: { file: string; host: string; robot: string; id: string }[] = [];
  const line = (l: (typeof logs)[number]): string => `${l.host}/${l.robot}/${l.id.slice(0, 12)}  `;

  before(async () => {
    server = startPg();
    dir = mkdtempSync(join(tmpdir(), 'witness-fleet-reads-'));
    const c = new pg.Client(server.url);
    await c.connect();
    await c.query('CREATE DATABASE reads');
    await c.end();
    owner = server.urlFor('witness', server.password, 'reads');
    await initStore(owner);
    const o = new pg.Client(owner);
    await o.connect();
    await o.query(`CREATE ROLE forensics LOGIN PASSWORD 'r3ader-pw' IN ROLE witness_reader`);
    await o.end();
    url = server.urlFor('forensics', 'r3ader-pw', 'reads');
    const a = await writtenLog(dir, 'pc1.sqlite');
    const b = join(dir, 'pc2.sqlite');
    await toolLog(b, 'warehouse', 23, 1_770_000_000_000);
    for (const [file, host, robot] of [
      [a.file, 'pc1', 'arm1'],
      [b, 'pc2', 'arm2'],
    ] as const) {
      const r = await pushLog(file, owner, { host, robot });
      logs.push({ file, host, robot, id: r.log_id });
    }
  });
  after(() => server?.stop());
  async function sql<T extends pg.QueryResultRow>(u: string, text: string, values: unknown[] = []): Promise<T[]> {
    const c = new pg.Client(u);
    await c.connect();
    try {
      return (await c.query<T>(text, values)).rows;
    } finally {
      await c.end();
    }
  }

  test('ls and query print what they print for each pushed log, each line after its source; JSON names it', async () => {
    let ls = '',
      q = '',
      lsJson: unknown[] = [];
    const qJson: unknown[] = [];
    for (const l of logs) {
      ls += prefixed(line(l), (await cli('audit', 'ls', l.file)).out);
      q += prefixed(line(l), (await cli('audit', 'query', l.file, '--limit', '1000')).out);
      const source = { log_id: l.id, host: l.host, robot: l.robot };
      lsJson = [
        ...lsJson,
        ...(JSON.parse((await cli('audit', 'ls', l.file, '--json')).out) as object[]).map((r) => ({ ...r, source })),
      ];
      for (const j of (await cli('audit', 'query', l.file, '--json', '--limit', '1000')).out.trim().split('\n'))
        qJson.push({ ...(JSON.parse(j) as object), source });
    }
    const r = await cli('audit', 'ls', '--from', url);
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out, ls);
    assert.deepEqual(JSON.parse((await cli('audit', 'ls', '--from', url, '--json')).out), lsJson);
    assert.equal((await cli('audit', 'query', '--from', url, '--limit', '1000')).out, q);
    const j = await cli('audit', 'query', '--from', url, '--limit', '1000', '--json');
    assert.deepEqual(
      j.out
        .trim()
        .split('\n')
        .map((x) => JSON.parse(x) as unknown),
      qJson,
    );
    assert.doesNotMatch(r.out + j.out + r.err, /r3ader-pw/);
  });

  test('the filters choose sources, runs and events; nothing matching is an empty answer, exit 0', async () => {
    const [a, b] = logs as [(typeof logs)[number], (typeof logs)[number]];
    const only = async (l: (typeof logs)[number], ...args: string[]) =>
      prefixed(line(l), (await cli('audit', ...args.map((x) => (x === 'FILE' ? l.file : x)))).out);
    for (const f of [
      ['--host', 'pc2'],
      ['--robot', 'arm2'],
      ['--source', b.id.slice(0, 6)],
      ['--source', b.id.toUpperCase()],
      ['--world', 'warehouse'],
    ])
      assert.equal((await cli('audit', 'ls', '--from', url, ...f)).out, await only(b, 'ls', 'FILE'), f.join(' '));
    assert.equal(
      (await cli('audit', 'ls', '--from', url, '--world', 'tabletop')).out,
      (await only(a, 'ls', 'FILE'))
        .split('\n')
        .filter((x) => x.includes('tabletop'))
        .join('\n') + '\n',
    );
    assert.equal(
      (await cli('audit', 'query', '--from', url, '--kind', 'failure_record', '--tool', 'grip')).out,
      await only(b, 'query', 'FILE', '--kind', 'failure_record'),
    );
    assert.equal(
      (await cli('audit', 'query', '--from', url, '--text', 'WAYPOINT')).out,
      await only(a, 'query', 'FILE', '--text', 'waypoint'),
    );
    // The time window: from its start (inclusive) to its end (exclusive); spans back from now reach both logs.
    const since = String(1_770_000_000_000 + 5000);
    const until = String(1_770_000_000_000 + 9000);
    assert.equal(
      (await cli('audit', 'query', '--from', url, '--since', since, '--until', until)).out,
      await only(b, 'query', 'FILE', '--from', since, '--to', String(Number(until) - 1)),
    );
    assert.equal(
      (await cli('audit', 'query', '--from', url, '--since', '400000d', '--limit', '1000')).out,
      (await cli('audit', 'query', '--from', url, '--limit', '1000')).out,
    );
    for (const args of [
      ['ls', '--from', url, '--host', 'nobody'],
      ['query', '--from', url, '--robot', 'nobody'],
      ['query', '--from', url, '--since', '2h'],
      ['query', '--from', url, '--tool', 'nothing'],
    ]) {
      const r = await cli('audit', ...args);
      assert.deepEqual([r.status, r.out, r.err], [0, '', ''], args.join(' '));
    }
    assert.equal((await cli('audit', 'ls', '--from', url, '--host', 'nobody', '--json')).out, '[]\n');
  });

  test('the sources, as the console lists them: identity, counts, times, worlds; the filters select them', async () => {
    const [a, b] = logs as [(typeof logs)[number], (typeof logs)[number]];
    const all = await fleetSources(url);
    const local = (file: string) => auditVerify(file);
    assert.deepEqual(
      all.map((s) => [s.log_id, s.host, s.robot, s.events, s.runs, s.worlds]),
      [
        [a.id, 'pc1', 'arm1', local(a.file).events, 2, ['pointmaze-medium', 'tabletop']],
        [b.id, 'pc2', 'arm2', local(b.file).events, 1, ['warehouse']],
      ],
    );
    assert.deepEqual([all[1]!.first_ms, all[1]!.last_ms], [1_770_000_001_000, 1_770_000_025_000]);
    assert.ok(!Number.isNaN(Date.parse(all[0]!.registered_at)));
    for (const [f, want] of [
      [{ world: 'tabletop' }, [a.id]],
      [{ source: b.id.slice(0, 3) }, [b.id]],
      [{ since_ms: 1_770_000_025_000 }, [b.id]],
      [{ since_ms: 1_770_000_025_001 }, []],
      [{ until_ms: 1_770_000_000_000 }, [a.id]],
      [{ run: 'nope' }, []],
    ] as const)
      assert.deepEqual(
        (await fleetSources(url, f)).map((s) => s.log_id),
        want,
        JSON.stringify(f),
      );
  });

  test('query pages by (source, seq): a page’s last line gives the cursor of the next', async () => {
    const all = (await cli('audit', 'query', '--from', url, '--limit', '1000')).out;
    let seen = '';
    let cursor: string | undefined;
    for (let i = 0; i < 20; i++) {
      const r = await cli('audit', 'query', '--from', url, '--limit', '4', ...(cursor ? ['--after', cursor] : []));
      assert.equal(r.status, 0, r.err);
      if (r.out === '') break;
      seen += r.out;
      const last = r.out.trim().split('\n').at(-1)!;
      const m = /^\S+\/\S+\/([0-9a-f]{12})\s+(\d+)/.exec(last)!;
      cursor = `${m[1]}:${m[2]}`;
    }
    assert.equal(seen, all);
    // One source: a plain sequence number will do.
    const b = logs[1]!;
    const tail = await cli('audit', 'query', '--from', url, '--host', 'pc2', '--after', '20');
    assert.equal(tail.out, prefixed(line(b), (await cli('audit', 'query', b.file, '--after', '20')).out));
    for (const bad of ['20', 'zz:1', `${b.id.slice(0, 4)}:x`]) {
      const r = await cli('audit', 'query', '--from', url, '--after', bad);
      assert.equal(r.status, 2, bad);
      assert.match(r.err, /--after/);
    }
  });

  test('show and export read the mirror of one source: the same bytes as on the pushed log', async () => {
    const [a, b] = logs as [(typeof logs)[number], (typeof logs)[number]];
    const runs = JSON.parse((await cli('audit', 'ls', a.file, '--json')).out) as { id: string }[];
    for (const r of runs) {
      const mine = await cli('audit', 'show', '--from', url, r.id.slice(0, 8));
      assert.equal(mine.status, 0, mine.err);
      assert.equal(mine.out, (await cli('audit', 'show', a.file, r.id.slice(0, 8))).out);
      assert.equal(
        (await cli('audit', 'show', '--from', url, '--host', 'pc1', r.id, '--json')).out,
        (await cli('audit', 'show', a.file, r.id, '--json')).out,
      );
    }
    for (const format of ['jsonl', 'csv', 'mcap']) {
      const mine = join(dir, `store.${format}`);
      const theirs = join(dir, `local.${format}`);
      const r = await cli('audit', 'export', '--from', url, '--robot', 'arm2', '--format', format, '--out', mine);
      assert.equal(r.status, 0, r.err);
      assert.equal((await cli('audit', 'export', b.file, '--format', format, '--out', theirs)).status, 0);
      assert.deepEqual(readFileSync(mine), readFileSync(theirs), format);
    }
    // Filters that select several sources, or none, are a usage error naming the candidates.
    const many = await cli('audit', 'export', '--from', url, '--format', 'jsonl', '--out', join(dir, 'x.jsonl'));
    assert.equal(many.status, 2);
    assert.match(
      many.err,
      new RegExp(`export needs one source, and 2 match.*${a.id.slice(0, 16)}.*${b.id.slice(0, 16)}`),
    );
    const none = await cli('audit', 'show', '--from', url, '--host', 'pc2', runs[0]!.id);
    assert.equal(none.status, 2);
    assert.match(none.err, /show needs one source, and no source .* holds a run/);
    assert.doesNotMatch(many.err + none.err, /r3ader-pw/);
  });

  test('replay reads the mirror of one source: the same bytes as replay on the pushed log, text and JSON', async () => {
    for (const l of logs) {
      const runs = JSON.parse((await cli('audit', 'ls', l.file, '--json')).out) as { id: string }[];
      assert.ok(runs.length > 0);
      for (const r of runs) {
        const mine = await cli('audit', 'replay', '--from', url, '--host', l.host, r.id.slice(0, 8));
        assert.equal(mine.status, 0, mine.err);
        assert.equal(mine.out, (await cli('audit', 'replay', l.file, r.id.slice(0, 8))).out);
        assert.match(mine.out, /\npositions: \d+ recorded/);
        const json = await cli(
          'audit',
          'replay',
          '--from',
          url,
          '--robot',
          l.robot,
          r.id,
          '--json',
          '--positions',
          '2',
        );
        assert.equal(json.status, 0, json.err);
        assert.equal(json.out, (await cli('audit', 'replay', l.file, r.id, '--json', '--positions', '2')).out);
      }
    }
    // A run no selected source holds: the error and code of show --from.
    const runs = JSON.parse((await cli('audit', 'ls', logs[0]!.file, '--json')).out) as { id: string }[];
    const none = await cli('audit', 'replay', '--from', url, '--host', 'pc2', runs[0]!.id);
    const show = await cli('audit', 'show', '--from', url, '--host', 'pc2', runs[0]!.id);
    assert.equal(none.status, 2);
    assert.equal(none.status, show.status);
    assert.equal(none.err, show.err.replace('show needs', 'replay needs'));
    assert.match(none.err, /replay needs one source, and no source .* holds a run/);
    const both = await cli('audit', 'replay', logs[0]!.file, runs[0]!.id, '--from', url);
    assert.equal(both.status, 2);
    assert.match(both.err, /not both/);
    assert.doesNotMatch(none.err + both.err, /r3ader-pw/);
  });

  test('usage: one of a database and --from; the filters need a store; a wrong source; a bad time', async () => {
    const a = logs[0]!;
    for (const [args, why] of [
      [['ls', a.file, '--from', url], /not both/],
      [['ls'], /name an audit database, or a fleet store/],
      [['show', a.file, 'x', '--from', url], /not both/],
      [['export', a.file, '--from', url, '--format', 'jsonl', '--out', join(dir, 'y')], /not both/],
      [['query', a.file, '--from', url], /not both/],
      [['ls', a.file, '--host', 'pc1'], /--host filters a fleet store's sources/],
      [['query', a.file, '--since', '7d', '--world', 'w'], /--world, --since filter a fleet store's sources/],
      [['query', '--from', url, '--to', '5'], /--to is the time window of a local log/],
      [['ls', '--from', url, '--source', 'xyz'], /--source must be a log id or a prefix/],
      [['ls', '--from', url, '--since', 'yesterday'], /--since must be a time/],
      [['ls', '--from', url, '--since', '1d', '--until', '2d'], /--until must come after --since/],
      [['query', '--from', '2025-01-01'], /name an audit database, or a fleet store/],
    ] as const) {
      const r = await cli('audit', ...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, why, args.join(' '));
    }
    const wrong = await cli('audit', 'ls', '--from', server.urlFor('forensics', 'not-the-pw', 'reads'));
    assert.equal(wrong.status, 2);
    assert.match(wrong.err, /cannot log in/);
    assert.doesNotMatch(wrong.err, /not-the-pw/);
  });

  test('query --from --follow prints the events pushed after it started', async () => {
    const file = join(dir, 'live.sqlite');
    await toolLog(file, 'live', 3, 1_780_000_000_000);
    await pushLog(file, owner, { host: 'pc3' });
    const child = spawn(process.execPath, [BIN, 'audit', 'query', '--from', url, '--host', 'pc3', '--follow']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const until = async (n: number): Promise<void> => {
      for (let i = 0; i < 200 && out.trim().split('\n').length < n; i++) await new Promise((r) => setTimeout(r, 50));
    };
    try {
      await until(5);
      assert.equal(out.trim().split('\n').length, 5, out);
      await toolLog(file, 'live', 2, 1_780_000_100_000);
      await pushLog(file, owner, { host: 'pc3' });
      await until(9);
      const lines = out.trim().split('\n');
      assert.equal(lines.length, 9, out);
      assert.match(lines[8]!, /^pc3\/–\/[0-9a-f]{12}\s+9\s.*run_end/);
    } finally {
      child.kill();
    }
  });

  test('ls --from marks the runs whose row the store holds otherwise than their run_start, as ls does locally', async () => {
    const a = logs[0]!;
    const src = await sql<{ id: string }>(owner, 'SELECT id FROM witness.sources WHERE host = $1', ['pc1']);
    const ids = JSON.parse((await cli('audit', 'ls', a.file, '--json')).out) as { id: string }[];
    await sql(owner, 'ALTER TABLE witness.runs DISABLE TRIGGER runs_append_only');
    await sql(owner, `UPDATE witness.runs SET operator = 'mallory' WHERE id = $1`, [ids[1]!.id]);
    await sql(
      owner,
      `INSERT INTO witness.runs (source, id, started_ms, world, backend, operator, software, models, meta)
       VALUES ($1, 'zz-forged', 0, 'w', 'b', 'o', 's', '{}', '{}')`,
      [src[0]!.id],
    );
    const r = await cli('audit', 'ls', '--from', url, '--host', 'pc1');
    assert.equal(r.status, 0, r.err);
    const lines = r.out.trim().split('\n');
    assert.equal(lines.length, 3);
    assert.doesNotMatch(lines[0]!, /TAMPERED/);
    assert.match(lines[1]!, /TAMPERED: its operator is "mallory" in the runs table but "bob" in its chained run_start/);
    assert.match(lines[2]!, /^pc1\/arm1\/[0-9a-f]{12} {2}zz-forged .*TAMPERED: no run_start event/);
    assert.match(r.err, /runs marked TAMPERED/);
  });
});

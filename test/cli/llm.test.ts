/**
 * `witness act --planner llm` against local servers that misbehave: a 300 MB reply (refused after
 * --llm-max-reply-bytes, memory bounded), a 20 MB tool argument (refused before the world, the
 * output small), arguments and replies nested 100 000 deep under the byte caps (refused, the audit
 * run ended), a server that never answers (--llm-timeout-ms: exit 3), and a URL that is none (exit 2). The witness
 * process runs as a child, so its peak memory is its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../main/cli/main.js';
import { waitingLine } from '../../main/cli/progress.js';

const ENTRY = new URL('../../main/witness.js', import.meta.url).href;
const TOOLS = fileURLToPath(new URL('../../../assets/tools', import.meta.url));
const GOAL = 'objects.red_mug.on == "tray"';
const act = (url: string, ...extra: string[]): string[] => [
  'act',
  '--world',
  'tabletop',
  '--tools',
  TOOLS,
  '--goal',
  GOAL,
  '--planner',
  'llm',
  '--llm-url',
  url,
  '--no-audit',
  ...extra,
];

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '',
    err = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await run(argv, {
    out: (s) => {
      out += s;
    },
    err: (s) => {
      err += s;
    },
    stdin,
  });
  return { code, out, err };
}

/** The witness CLI in a child process that reports its peak resident memory (KiB) on its last stderr line. */
function witness(
  args: string[],
  timeout_ms: number,
): Promise<{ code: number | null; out: string; err: string; maxRss_mb: number }> {
  const script =
    `const { main } = await import(${JSON.stringify(ENTRY)}); const code = await main(process.argv.slice(1));` +
    'process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\\n`); process.exitCode = code;';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '',
      err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout_ms);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const m = /maxRSS (\d+)\n$/.exec(err);
      resolve({ code, out, err: err.replace(/maxRSS \d+\n$/, ''), maxRss_mb: m ? Number(m[1]) / 1024 : NaN });
    });
  });
}

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ url: string; server: Server; requests: number[] }> {
  const requests: number[] = [];
  const server = createServer((req, res) => {
    let n = 0,
      body = '';
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (body.length < 1_000_000) body += c.toString();
    });
    req.on('end', () => {
      requests.push(n);
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, requests };
}

const stop = (s: { server: Server }): void => {
  s.server.closeAllConnections();
  s.server.close();
};

const reply = (call: { name: string; arguments: string }): string =>
  JSON.stringify({
    choices: [{ message: { content: null, tool_calls: [{ id: 'c', type: 'function', function: call }] } }],
  });

test(
  'witness act --planner llm: a 300 MB reply, streamed without a length, is refused past --llm-max-reply-bytes (exit 2) and memory stays bounded',
  { timeout: 120_000 },
  async () => {
    const TOTAL = 300 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const s = await serve((_req, res) => {
      // Chunked (no Content-Length), generated as the client reads: the client must stop reading itself.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":[{"message":{"content":"');
      const pump = (): void => {
        while (sent < TOTAL && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end('"}}]}');
      };
      res.on('error', () => undefined);
      pump();
    });
    try {
      const r = await witness(act(s.url), 100_000);
      assert.equal(r.code, 2, r.err + r.out);
      assert.match(
        r.err,
        /^error: the reply from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions is larger than 8 MiB \([\d.]+ MiB read, the rest left unread; --llm-max-reply-bytes sets the limit\): it was not used\n/m,
      );
      assert.match(r.out, /outcome: escalated — the planner gave up: the reply from/);
      assert.equal(s.requests.length, 1, 'a reply too large is not asked for again');
      assert.equal(r.err.split('\n').filter((l) => l.startsWith('error:')).length, 1);
      assert.ok(r.maxRss_mb < 400, `peak memory ${r.maxRss_mb.toFixed(0)} MB`);
      assert.ok(sent < TOTAL, `the server was stopped early (${(sent / 2 ** 20).toFixed(0)} MiB sent)`);
    } finally {
      stop(s);
    }
  },
);

test(
  'witness act --planner llm: a 20 MB argument is refused before the world (the tool named), never echoed: output and the next request stay small',
  { timeout: 120_000 },
  async () => {
    let turn = 0;
    const s = await serve((_req, res) => {
      turn++;
      const body =
        turn === 1
          ? reply({ name: 'pick', arguments: JSON.stringify({ target: 'a'.repeat(20 * 1024 * 1024) }) })
          : reply({ name: 'finish', arguments: '{}' });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    try {
      const r = await witness(act(s.url, '--llm-max-reply-bytes', String(64 * 1024 * 1024)), 100_000);
      assert.equal(r.code, 1, r.err + r.out);
      assert.match(
        r.out,
        /invalid proposal pick: the arguments of pick are 20\.0 MiB of JSON, over the limit of 1 MiB for a call's arguments; nothing was executed\n/,
      );
      assert.match(r.out, /outcome: goal-not-met — the planner stopped but the goal verifier says/);
      assert.match(r.out, /; 0 tool calls, /);
      assert.ok(r.out.length + r.err.length < 16 * 1024, `output of ${r.out.length + r.err.length} characters`);
      assert.equal(s.requests.length, 2);
      assert.ok(s.requests[1]! < 64 * 1024, `the second request is ${s.requests[1]} bytes`);
    } finally {
      stop(s);
    }
  },
);

test(
  'witness act --planner llm: a server that never answers → exit 3 after --llm-timeout-ms per attempt, naming the flag',
  { timeout: 60_000 },
  async () => {
    const s = await serve(() => undefined);
    try {
      const r = await cli(...act(s.url, '--llm-timeout-ms', '500'));
      assert.equal(r.code, 3, r.err + r.out);
      assert.match(
        r.err,
        /^error: budget: no answer from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions within 500 ms \(2 attempts; --llm-timeout-ms sets the time per attempt\)\n/m,
      );
      // Both attempts were made; whether the first reached the server before its 500 ms ran out depends on the machine.
      assert.ok(s.requests.length >= 1 && s.requests.length <= 2, `${s.requests.length} requests`);
      const j = await cli(...act(s.url, '--llm-timeout-ms', '300', '--json'));
      assert.equal(j.code, 3);
      const doc = JSON.parse(j.out) as { outcome: string; plannerError?: { code: string; message: string } };
      assert.equal(doc.outcome, 'escalated');
      assert.equal(doc.plannerError?.code, 'budget');
      assert.match(doc.plannerError.message, /^no answer from .* within 300 ms/);
    } finally {
      stop(s);
    }
  },
);

test('witness act --planner llm: a reply of the wrong shape (null, a list, a null message or call) is the planner giving up in words, never a TypeError', async () => {
  const shapes: [string, RegExp][] = [
    ['null', /the server's reply is not a JSON object: null/],
    ['[1,2]', /the server's reply is not a JSON object: \[1,2\]/],
    ['{"choices":[{"message":null}]}', /the server's reply has no choices\[0\]\.message/],
    [
      '{"choices":[{"message":{"content":"no","tool_calls":[{"function":null}]}}]}',
      /the model answered in text instead of calling a tool: "no"/,
    ],
  ];
  let body = '';
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  try {
    for (const [shape, says] of shapes) {
      body = shape;
      const r = await cli(...act(s.url, '--replans', '0'));
      assert.equal(r.code, 1, `${shape}: ${r.err}${r.out}`);
      assert.match(r.out, says, shape);
      assert.doesNotMatch(r.out + r.err, /Cannot read properties|TypeError|internal/, shape);
    }
  } finally {
    stop(s);
  }
});

test('witness act --planner llm: --llm-url must be an http(s) URL, and the numeric LLM flags are strict (exit 2, nothing runs)', async () => {
  for (const [args, msg] of [
    [
      act('not a url'),
      /^error: --llm-url must be an http:\/\/ or https:\/\/ URL, e\.g\. http:\/\/127\.0\.0\.1:8080, got 'not a url'\n/,
    ],
    [
      act('ftp://example.org'),
      /^error: --llm-url must be an http:\/\/ or https:\/\/ URL, got 'ftp:\/\/example\.org' \(scheme ftp:\)\n/,
    ],
    [
      act('http://127.0.0.1:1', '--llm-timeout-ms', '0x10'),
      /^error: --llm-timeout-ms must be an integer in 1\.\.3600000, got '0x10'\n/,
    ],
    [
      act('http://127.0.0.1:1', '--llm-max-reply-bytes', '1e400'),
      /^error: --llm-max-reply-bytes must be an integer in 1024\.\.1073741824, got '1e400'\n/,
    ],
  ] as const) {
    const r = await cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, msg);
    assert.equal(r.out, '');
  }
});

test('waitingLine: on a terminal one line rewritten every second and cleared at the end; otherwise a line every 10 s', () => {
  let tty = '';
  const t = waitingLine(
    {
      out: () => undefined,
      err: (s) => {
        tty += s;
      },
    },
    'waiting for the LLM',
    true,
  );
  for (const s of [1.0, 2.01, 3.2]) t.tick(s);
  t.done();
  assert.equal(tty, '\rwaiting for the LLM (1 s)…\rwaiting for the LLM (2 s)…\rwaiting for the LLM (3 s)…\r\x1b[K');
  let log = '';
  const l = waitingLine(
    {
      out: () => undefined,
      err: (s) => {
        log += s;
      },
    },
    'waiting for the LLM',
    false,
  );
  for (let s = 1; s <= 25; s++) l.tick(s);
  l.done();
  l.tick(1);
  assert.equal(log, 'waiting for the LLM: 10 s…\nwaiting for the LLM: 20 s…\n');
});

/** 100 000 levels of arrays: about 200 KB, well under the byte caps on a reply and on a call's arguments. */
const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

test(
  'witness act --planner llm: arguments nested 100 000 deep under the byte cap are an invalid proposal (the tool and the limit named), and the audit run ends',
  { timeout: 120_000 },
  async () => {
    let turn = 0;
    const s = await serve((_req, res) => {
      turn++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          turn === 1
            ? reply({ name: 'pick', arguments: `{"target":${DEEP}}` })
            : reply({ name: 'finish', arguments: '{}' }),
        );
    });
    const dir = mkdtempSync(join(tmpdir(), 'witness-llm-deep-'));
    const db = join(dir, 'audit.sqlite');
    try {
      const r = await cli(...act(s.url).filter((a) => a !== '--no-audit'), '--audit', db);
      assert.equal(r.code, 1, r.err + r.out);
      assert.match(
        r.out,
        /invalid proposal pick: the arguments of pick are nested deeper than 256 levels of arrays and objects \(at 1:266\), over the limit for a call's arguments; nothing was executed\n/,
      );
      assert.match(r.out, /outcome: goal-not-met — the planner stopped but the goal verifier says/);
      assert.equal(r.err, '');
      assert.equal(s.requests.length, 2);
      assert.ok(s.requests[1]! < 64 * 1024, `the second request is ${s.requests[1]} bytes`);
      const runId = /audit: run ([0-9a-f-]+) in /.exec(r.out)![1]!;
      const shown = await cli('audit', 'show', db, runId, '--json');
      assert.equal(shown.code, 0, shown.err);
      const events = (
        JSON.parse(shown.out) as { events: { kind: string; body: { outcome?: string; errors?: string[] } }[] }
      ).events;
      assert.deepEqual(
        events.filter((e) => e.kind === 'run_end').map((e) => e.body.outcome),
        ['goal-not-met'],
      );
      assert.match(
        events.find((e) => e.kind === 'evidence')!.body.errors![0]!,
        /^the arguments of pick are nested deeper than 256 levels/,
      );
    } finally {
      stop(s);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'witness act --planner llm: a reply nested 100 000 deep (arguments as an object) is refused: exit 2 naming the limit, the run ended escalated in the audit log',
  { timeout: 120_000 },
  async () => {
    const s = await serve((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"pick","arguments":{"target":${DEEP}}}}]}}]}`,
        );
    });
    const dir = mkdtempSync(join(tmpdir(), 'witness-llm-deep-'));
    const db = join(dir, 'audit.sqlite');
    try {
      const r = await cli(...act(s.url).filter((a) => a !== '--no-audit'), '--audit', db);
      assert.equal(r.code, 2, r.err + r.out);
      assert.match(
        r.err,
        /^error: the reply from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions is nested deeper than 256 levels of arrays and objects \(at 1:\d+\): it was not used\n$/,
      );
      assert.match(r.out, /outcome: escalated — the planner gave up: the reply from/);
      assert.equal(s.requests.length, 1, 'a reply refused for its shape is not asked for again');
      const ls = await cli('audit', 'ls', db);
      assert.equal(ls.code, 0, ls.err);
      assert.doesNotMatch(ls.out, /no end/);
      const runId = /audit: run ([0-9a-f-]+) in /.exec(r.out)![1]!;
      const events = (
        JSON.parse((await cli('audit', 'show', db, runId, '--json')).out) as {
          events: { kind: string; body: { outcome?: string } }[];
        }
      ).events;
      assert.deepEqual(
        events.filter((e) => e.kind === 'run_end').map((e) => e.body.outcome),
        ['escalated'],
      );
    } finally {
      stop(s);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'witness act --planner llm: a reply in text, a tool name and a server error carrying terminal controls print escaped — no cleared screen, no faked outcome line',
  { timeout: 120_000 },
  async () => {
    const HOSTILE = '\u001b[2J\u001b[H\r\n  outcome: success — the goal verifier confirms the goal\u009b2K\u202e';
    let turn = 0;
    const s = await serve((_req, res) => {
      turn++;
      if (turn === 1)
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ choices: [{ message: { content: HOSTILE } }] }));
      else if (turn === 2)
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(reply({ name: `pick${HOSTILE}`, arguments: JSON.stringify({ target: HOSTILE }) }));
      else res.writeHead(400).end(`bad request${HOSTILE}`);
    });
    try {
      for (const json of [false, true]) {
        turn = 0;
        const r = await cli(...act(s.url), ...(json ? ['--json'] : []));
        assert.equal(r.code, 1, r.err + r.out);
        const all = r.out + r.err;
        for (const c of ['\u001b', '\r', '\u009b', '\u202e'])
          assert.ok(
            !all.includes(c),
            `a raw U+${c.charCodeAt(0).toString(16).padStart(4, '0')} in ${JSON.stringify(all)}`,
          );
        if (json) {
          assert.ok(
            (JSON.parse(r.out) as { reason: string }).reason.includes(`bad request${HOSTILE}`),
            'the JSON value is unchanged',
          );
          continue;
        }
        assert.deepEqual(
          r.out
            .split('\n')
            .filter((l) => /^\s*outcome:/.test(l))
            .map((l) => l.slice(0, 31)),
          ['  outcome: escalated — the plan'],
          'one outcome line, ours',
        );
        assert.match(
          r.out,
          /invalid proposal \(text\): the model answered in text instead of calling a tool: "\\e\[2J\\e\[H\\r\\n {2}outcome: success/,
        );
        assert.match(r.out, /unknown tool "pick\\e\[2J/);
        assert.match(
          r.out,
          /HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: bad request\\e\[2J\\e\[H\\r\\n/,
        );
      }
    } finally {
      stop(s);
    }
  },
);

/**
 * The LLM planner against a local server on 127.0.0.1 that speaks the chat-completions protocol and
 * replays recorded transcripts (test/fixtures/llm), checking what each request carried.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { LlmError, LlmPlanner } from '../../main/services/llm/openai-planner.js';
import { bytesText, longString } from '../../main/services/llm/bounded.js';
import { parseTool, registerTools } from '../../main/core/loop/tools.js';
import type { Vocabulary } from '../../main/core/loop/vocabulary.js';
import { runLoop, type ToolWorld } from '../../main/core/loop/loop.js';

interface Turn {
  reply?: unknown;
  status?: number;
  body?: string;
  delay_ms?: number;
  expect?: string[];
}

async function replay(name: string): Promise<{ url: string; server: Server; requests: string[]; misses: string[] }> {
  const turns = (
    JSON.parse(readFileSync(new URL(`../../../test/fixtures/llm/${name}.json`, import.meta.url), 'utf8')) as {
      turns: Turn[];
    }
  ).turns;
  const requests: string[] = [];
  const misses: string[] = [];
  let i = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      requests.push(body);
      const t = turns[i++];
      if (req.url !== '/v1/chat/completions' || t === undefined) {
        res.writeHead(404).end('no such turn');
        return;
      }
      for (const e of t.expect ?? [])
        if (!body.includes(e)) misses.push(`turn ${i}: the request does not mention ${e}`);
      const send = (): void => {
        if (t.status !== undefined) res.writeHead(t.status).end(t.body ?? '');
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(t.reply));
      };
      if (t.delay_ms) setTimeout(send, t.delay_ms).unref();
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, server, requests, misses };
}

const VOCAB: Vocabulary = {
  fields: {
    'gripper.width_cm': 'number',
    'gripper.holding': 'string',
    'gripper.load_N': 'number',
    'gripper.payload_limit_N': 'number',
  },
  objects: ['red_mug', 'tray'],
  objectFields: { on: 'string', mass_kg: 'number', in_workspace: 'bool' },
  propositions: [],
  skills: ['pick', 'place'],
};
const asset = (f: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../../assets/tools/${f}`, import.meta.url), 'utf8'));
const TOOLS = registerTools(
  ['pick.json', 'place.json'].map((f) => ({ def: parseTool(asset(f), f), file: f })),
  VOCAB,
);

/** The step-through's tabletop stand-in: a grasp 2 cm lower succeeds; the skill always returns ok. */
function world(): ToolWorld & { calls: number } {
  const s = {
    gripper: { width_cm: 8, holding: '', load_N: 0, payload_limit_N: 20 },
    objects: {
      red_mug: { on: 'table', mass_kg: 0.3, in_workspace: true },
      tray: { on: 'table', mass_kg: 0.5, in_workspace: true },
    },
  };
  const w = {
    calls: 0,
    observe: () => Promise.resolve(structuredClone(s)),
    execute: (skill: string, args: unknown) => {
      w.calls++;
      const a = args as { target: string; approach_dz?: number };
      if (skill === 'pick') {
        if ((a.approach_dz ?? 0) <= -0.02) Object.assign(s.gripper, { width_cm: 4.1, holding: a.target });
        else s.gripper.width_cm = 0;
      } else if (s.gripper.holding !== '') {
        s.objects.red_mug.on = a.target;
        Object.assign(s.gripper, { holding: '', width_cm: 8 });
      }
      return Promise.resolve({ status: 'ok' });
    },
  };
  return w;
}

const loopOpts = { replans: 2, goal: 'objects.red_mug.on == "tray"', clock: () => 0 };

test('LLM planner: the step-through, with the failure record in the second request', async () => {
  const s = await replay('step-through');
  try {
    const planner = new LlmPlanner(TOOLS, { baseUrl: s.url, model: 'recorded', timeout_ms: 2000 });
    const r = await runLoop(TOOLS, world(), planner, 'place the red mug on the tray', loopOpts);
    assert.equal(r.outcome, 'success', r.reason);
    assert.deepEqual([r.toolCalls, r.replans], [3, 1]);
    assert.deepEqual(s.misses, []);
    const first = JSON.parse(s.requests[0]!) as {
      model: string;
      tools: { function: { name: string; parameters: unknown } }[];
      messages: { role: string }[];
    };
    assert.equal(first.model, 'recorded');
    assert.deepEqual(
      first.tools.map((t) => t.function.name),
      ['pick', 'place', 'finish'],
    );
    assert.deepEqual(
      first.tools[0]!.function.parameters,
      asset('pick.json') && (asset('pick.json') as { arguments: unknown }).arguments,
    );
  } finally {
    s.server.close();
  }
});

test('LLM planner: a 500, malformed argument JSON, plain text and an unknown tool are all survived', async () => {
  const s = await replay('robust');
  try {
    const w = world();
    const r = await runLoop(
      TOOLS,
      w,
      new LlmPlanner(TOOLS, { baseUrl: s.url, model: 'recorded', timeout_ms: 2000 }),
      'g',
      { ...loopOpts, maxSchemaErrors: 5 },
    );
    assert.equal(r.outcome, 'success', r.reason);
    assert.equal(r.schemaErrors, 3, 'malformed JSON, text, unknown tool');
    assert.equal(r.replans, 0);
    assert.equal(w.calls, 2, 'nothing invalid reached the world');
    assert.deepEqual(s.misses, []);
    assert.equal(s.requests.length, 6, 'the 500 was retried; the goal verifier ended the run before finish');
  } finally {
    s.server.close();
  }
});

test('LLM planner: a server that does not answer in time → the planner gives up and the loop escalates', async () => {
  const s = await replay('slow');
  try {
    const w = world();
    const r = await runLoop(
      TOOLS,
      w,
      new LlmPlanner(TOOLS, { baseUrl: s.url, model: 'recorded', timeout_ms: 200, attempts: 2 }),
      'g',
      loopOpts,
    );
    assert.equal(r.outcome, 'escalated');
    assert.match(
      r.reason,
      /the planner gave up: no answer from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions within 200 ms \(2 attempts; timeout_ms sets the time per attempt\)/,
    );
    assert.equal(r.plannerError?.code, 'budget', 'a timeout is a time budget spent: front ends exit 3');
    assert.equal(w.calls, 0);
  } finally {
    s.server.closeAllConnections();
    s.server.close();
  }
});

test("LLM planner: after an escalation the operator's decision reaches the model as a note", async () => {
  const s = await replay('operator-retry');
  try {
    const decide = () => Promise.resolve({ decision: 'retry' as const, reason: 'try lower', operator: 'op' });
    const r = await runLoop(
      TOOLS,
      world(),
      new LlmPlanner(TOOLS, { baseUrl: s.url, model: 'recorded', timeout_ms: 2000 }),
      'g',
      { ...loopOpts, replans: 0, decide },
    );
    assert.equal(r.outcome, 'success', r.reason);
    assert.deepEqual(s.misses, []);
    const second = JSON.parse(s.requests[1]!) as { messages: { role: string; content: string | null }[] };
    const note = second.messages.find((m) => m.role === 'user' && m.content?.includes('the operator decided'));
    assert.match(
      note!.content!,
      /^The loop escalated \(replan budget R = 0 exhausted; 1 failure record\(s\)\); the operator decided retry: try lower$/,
    );
  } finally {
    s.server.close();
  }
});

/**
 * A server whose every reply is `body(n)` for the n-th request (1-based), recording the size of each request; a
 * reply with `after` waits for that promise.
 */
async function answering(
  body: (n: number) => {
    status?: number;
    headers?: Record<string, string>;
    text: string;
    after?: Promise<unknown>;
  },
): Promise<{ url: string; server: Server; sizes: number[] }> {
  const sizes: number[] = [];
  const server = createServer((req, res) => {
    let n = 0;
    req.on('data', (c: Buffer) => {
      n += c.length;
    });
    req.on('end', () => {
      sizes.push(n);
      const b = body(sizes.length);
      const send = (): void => {
        res.writeHead(b.status ?? 200, { 'content-type': 'application/json', ...b.headers }).end(b.text);
      };
      if (b.after !== undefined) void b.after.then(send);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, sizes };
}

const toolCall = (name: string, args: string): string =>
  JSON.stringify({
    choices: [
      { message: { content: null, tool_calls: [{ id: 'c', type: 'function', function: { name, arguments: args } }] } },
    ],
  });

test('LLM planner: an argument string over the per-string cap is an invalid proposal naming the tool and the argument; it never reaches the world or the next request', async () => {
  const s = await answering((n) => ({
    text: n === 1 ? toolCall('pick', JSON.stringify({ target: 'a'.repeat(100 * 1024) })) : toolCall('finish', '{}'),
  }));
  try {
    const w = world();
    const events: { kind: string; body: unknown }[] = [];
    const r = await runLoop(TOOLS, w, new LlmPlanner(TOOLS, { baseUrl: s.url, model: 'm', timeout_ms: 5000 }), 'g', {
      ...loopOpts,
      onEvent: (kind, body) => {
        events.push({ kind, body });
      },
    });
    assert.equal(r.outcome, 'goal-not-met');
    assert.equal(w.calls, 0, 'nothing reached the world');
    const invalid = r.history.entries.find((e) => e.kind === 'schema-error');
    assert.deepEqual(invalid, {
      kind: 'schema-error',
      call: { tool: 'pick', args: '(100.0 KiB of arguments, not kept)' },
      errors: [
        'argument $.target of pick is a string of 100 KiB, over the limit of 64 KiB per string; nothing was executed',
      ],
    });
    assert.ok(JSON.stringify(events).length < 4096, 'the audit evidence does not carry the string');
    assert.ok(s.sizes[1]! < 16 * 1024, `the next request is ${s.sizes[1]} bytes`);
    assert.equal(r.plannerError, undefined);
  } finally {
    s.server.close();
  }
});

test('LLM planner: arguments over the total cap, and arguments that are not JSON, are refused without being kept whole', async () => {
  const big = JSON.stringify({ target: 'red_mug', notes: Array.from({ length: 40 }, () => 'n'.repeat(1000)) });
  const s = await answering((n) => ({
    text:
      n === 1
        ? toolCall('pick', big)
        : n === 2
          ? toolCall('pick', `{"target": "${'x'.repeat(5000)}`)
          : toolCall('finish', '{}'),
  }));
  try {
    const w = world();
    const planner = new LlmPlanner(TOOLS, {
      baseUrl: s.url,
      model: 'm',
      timeout_ms: 5000,
      maxArgumentsBytes: 10_000,
      maxArgumentStringBytes: 2000,
    });
    const r = await runLoop(TOOLS, w, planner, 'g', { ...loopOpts, maxSchemaErrors: 5 });
    const errors = r.history.entries.flatMap((e) => (e.kind === 'schema-error' ? [e] : []));
    assert.equal(errors.length, 2);
    assert.equal(
      errors[0]!.errors[0],
      `the arguments of pick are ${bytesText(big.length)} of JSON, over the limit of 9.8 KiB for a call's arguments; nothing was executed`,
    );
    assert.match(errors[1]!.errors[0]!, /^the arguments of pick are not valid JSON \(/);
    assert.ok(String(errors[1]!.call.args).length <= 201, 'unparsable arguments are kept clipped');
    assert.equal(w.calls, 0);
    assert.ok(planner.transcript.length <= 8);
  } finally {
    s.server.close();
  }
});

test('LLM planner: a reply over maxReplyBytes is refused (code too-large, not retried), whether its Content-Length says so or it streams', async () => {
  for (const declared of [true, false]) {
    const text = toolCall('finish', '{}') + ' '.repeat(10_000);
    const s = await answering(() => ({
      text,
      ...(declared ? { headers: { 'content-length': String(Buffer.byteLength(text)) } } : {}),
    }));
    try {
      const planner = new LlmPlanner(TOOLS, { baseUrl: s.url, model: 'm', timeout_ms: 5000, maxReplyBytes: 4096 });
      const err = await planner.next({ goal: 'g', entries: [], state: {} }).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof LlmError, String(err));
      assert.equal(err.code, 'too-large');
      assert.match(
        err.message,
        declared
          ? /^the reply from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions is larger than 4 KiB \(its Content-Length says 9\.\d KiB; maxReplyBytes sets the limit\): it was not used$/
          : /^the reply from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions is larger than 4 KiB \([\d.]+ KiB read, the rest left unread; maxReplyBytes sets the limit\): it was not used$/,
      );
      assert.equal(s.sizes.length, 1, 'not asked again');
      // Through the loop: the run ends escalated, the error kept for the front end's exit code.
      const r = await runLoop(TOOLS, world(), planner, 'g', loopOpts);
      assert.equal(r.outcome, 'escalated');
      assert.equal(r.plannerError?.code, 'too-large');
    } finally {
      s.server.close();
    }
  }
});

test('LLM planner: while a request waits, waiting.tick is told the seconds once a second, and done once it ends', async () => {
  // The reply waits for the planner's first tick (not for a fixed time that a loaded machine may outrun).
  let ticked = (): void => {};
  const firstTick = new Promise<void>((resolve) => {
    ticked = resolve;
  });
  const s = await answering(() => ({ text: toolCall('finish', '{}'), after: firstTick }));
  try {
    const ticks: number[] = [];
    let done = 0;
    const planner = new LlmPlanner(TOOLS, {
      baseUrl: s.url,
      model: 'm',
      timeout_ms: 10_000,
      waiting: {
        tick: (t) => {
          ticks.push(t);
          ticked();
        },
        done: () => {
          done++;
        },
      },
    });
    assert.deepEqual(await planner.next({ goal: 'g', entries: [], state: {} }), { kind: 'done' });
    assert.ok(ticks.length >= 1 && ticks.every((t) => t >= 0.9), `ticks ${ticks.join(', ')}`);
    assert.equal(done, 1);
  } finally {
    s.server.close();
  }
});

test('LLM planner: a base URL that is not http(s) is invalid input', () => {
  for (const url of ['not a url', 'ftp://h', '']) {
    assert.throws(
      () => new LlmPlanner(TOOLS, { baseUrl: url, model: 'm' }),
      (e: unknown) =>
        e instanceof Error &&
        'code' in e &&
        e.code === 'invalid-input' &&
        /must be an http:\/\/ or https:\/\/ URL/.test(e.message),
    );
  }
});

test('longString: the first string (value or key) over the cap with its JSON path; iterative on deep nesting', () => {
  assert.equal(longString({ a: 'x', b: [1, 'yy'] }, 2), null);
  assert.deepEqual(longString({ a: 'x', b: [1, 'yyy'] }, 2), { path: '$.b[1]', bytes: 3 });
  assert.deepEqual(longString({ 'a b': { c: 'zzzz' } }, 3), { path: '$["a b"].c', bytes: 4 });
  assert.deepEqual(longString({ [`k${'k'.repeat(9)}`]: 1 }, 5), { path: '$ (a key)', bytes: 10 });
  assert.deepEqual(longString({ s: 'é'.repeat(3) }, 5), { path: '$.s', bytes: 6 }, 'UTF-8 bytes, not characters');
  let deep: unknown = 'long string';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const hit = longString(deep, 4);
  assert.equal(hit?.bytes, 11);
  assert.ok(hit?.path.startsWith('$[0][0]'));
});

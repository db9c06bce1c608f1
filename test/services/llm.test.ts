/**
 * The LLM planner against a local server on 127.0.0.1 that speaks the chat-completions protocol and
 * replays recorded transcripts (test/fixtures/llm), checking what each request carried.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { LlmPlanner } from '../../main/services/llm/openai-planner.js';
import { parseTool, registerTools } from '../../main/core/loop/tools.js';
import type { Vocabulary } from '../../main/core/loop/vocabulary.js';
import { runLoop, type ToolWorld } from '../../main/core/loop/loop.js';

interface Turn { reply?: unknown; status?: number; body?: string; delay_ms?: number; expect?: string[] }

async function replay(name: string): Promise<{ url: string; server: Server; requests: string[]; misses: string[] }> {
  const turns = (JSON.parse(readFileSync(new URL(`../../../test/fixtures/llm/${name}.json`, import.meta.url), 'utf8')) as { turns: Turn[] }).turns;
  const requests: string[] = [];
  const misses: string[] = [];
  let i = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      requests.push(body);
      const t = turns[i++];
      if (req.url !== '/v1/chat/completions' || t === undefined) {
        res.writeHead(404).end('no such turn');
        return;
      }
      for (const e of t.expect ?? []) if (!body.includes(e)) misses.push(`turn ${i}: the request does not mention ${e}`);
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
  fields: { 'gripper.width_cm': 'number', 'gripper.holding': 'string', 'gripper.load_N': 'number', 'gripper.payload_limit_N': 'number' },
  objects: ['red_mug', 'tray'], objectFields: { on: 'string', mass_kg: 'number', in_workspace: 'bool' }, propositions: [], skills: ['pick', 'place'],
};
const asset = (f: string): unknown => JSON.parse(readFileSync(new URL(`../../../assets/tools/${f}`, import.meta.url), 'utf8'));
const TOOLS = registerTools(['pick.json', 'place.json'].map((f) => ({ def: parseTool(asset(f), f), file: f })), VOCAB);

/** The step-through's tabletop stand-in: a grasp 2 cm lower succeeds; the skill always returns ok. */
function world(): ToolWorld & { calls: number } {
  const s = { gripper: { width_cm: 8, holding: '', load_N: 0, payload_limit_N: 20 }, objects: { red_mug: { on: 'table', mass_kg: 0.3, in_workspace: true }, tray: { on: 'table', mass_kg: 0.5, in_workspace: true } } };
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
    const first = JSON.parse(s.requests[0]!) as { model: string; tools: { function: { name: string; parameters: unknown } }[]; messages: { role: string }[] };
    assert.equal(first.model, 'recorded');
    assert.deepEqual(first.tools.map((t) => t.function.name), ['pick', 'place', 'finish']);
    assert.deepEqual(first.tools[0]!.function.parameters, asset('pick.json') && (asset('pick.json') as { arguments: unknown }).arguments);
  } finally {
    s.server.close();
  }
});

test('LLM planner: a 500, malformed argument JSON, plain text and an unknown tool are all survived', async () => {
  const s = await replay('robust');
  try {
    const w = world();
    const r = await runLoop(TOOLS, w, new LlmPlanner(TOOLS, { baseUrl: s.url, model: 'recorded', timeout_ms: 2000 }), 'g', { ...loopOpts, maxSchemaErrors: 5 });
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
    const r = await runLoop(TOOLS, w, new LlmPlanner(TOOLS, { baseUrl: s.url, model: 'recorded', timeout_ms: 200, attempts: 2 }), 'g', loopOpts);
    assert.equal(r.outcome, 'escalated');
    assert.match(r.reason, /the planner gave up: no answer from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions within 200 ms/);
    assert.equal(w.calls, 0);
  } finally {
    s.server.closeAllConnections();
    s.server.close();
  }
});

test('LLM planner: after an escalation the operator\'s decision reaches the model as a note', async () => {
  const s = await replay('operator-retry');
  try {
    const decide = () => Promise.resolve({ decision: 'retry' as const, reason: 'try lower', operator: 'op' });
    const r = await runLoop(TOOLS, world(), new LlmPlanner(TOOLS, { baseUrl: s.url, model: 'recorded', timeout_ms: 2000 }), 'g', { ...loopOpts, replans: 0, decide });
    assert.equal(r.outcome, 'success', r.reason);
    assert.deepEqual(s.misses, []);
    const second = JSON.parse(s.requests[1]!) as { messages: { role: string; content: string | null }[] };
    const note = second.messages.find((m) => m.role === 'user' && m.content?.includes('the operator decided'));
    assert.match(note!.content!, /^The loop escalated \(replan budget R = 0 exhausted; 1 failure record\(s\)\); the operator decided retry: try lower$/);
  } finally {
    s.server.close();
  }
});

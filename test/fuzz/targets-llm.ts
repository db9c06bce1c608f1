/**
 * Fuzzing targets for what an LLM server sends: replies to `witness act --planner llm`, mutated from
 * valid tool calls, and nested JSON under the byte caps — arguments (as JSON text or as an object)
 * and reply fields nested up to 150 000 deep in a few hundred KB. Each case is one run of the tool
 * loop as `witness act` runs it (app/act.ts: the real LLM client over HTTP, the MuJoCo tabletop, an
 * audit log), judged as the CLI judges it: success returns, a planner failure Witness names is its
 * error, any other end is the answer "no" (exit 1); a crash or an unended audit run is a bug. So is
 * the client throwing an error of the engine's (a stack overflow, a TypeError; the client's own
 * failures are Errors in its words) or an internal one, though the loop turns any throw into the
 * planner giving up: that is a crash the outcome hides.
 */
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import fc from 'fast-check';
import { WitnessError } from '../../main/contract/errors.js';
import { act, tabletopTools } from '../../main/app/act.js';
import { openAuditLog, settleAudit } from '../../main/app/audit-log.js';
import { TabletopWorld } from '../../main/backends/mujoco/tabletop.js';
import { LlmPlanner } from '../../main/services/llm/openai-planner.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { queryEvents } from '../../main/services/audit/forensics.js';
import { hostileJson, nested } from './mutate.js';
import type { Planner } from '../../main/core/loop/loop.js';
import type { Target } from './targets.js';

const call = (name: string, args: string | object): string =>
  JSON.stringify({
    choices: [
      { message: { content: null, tool_calls: [{ id: 'c', type: 'function', function: { name, arguments: args } }] } },
    ],
  });
const FINISH = call('finish', '{}');
const SEEDS = [
  call('pick', '{"target":"red_mug"}'),
  call('place', '{"target":"tray"}'),
  call('pick', { target: 'red_mug' }),
  FINISH,
  JSON.stringify({ choices: [{ message: { content: 'I will pick the mug first.' } }] }),
];

/** Replies whose JSON nests deep while staying far below the reply (8 MiB) and arguments (1 MiB) caps. */
const deepReply: fc.Arbitrary<string> = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 200, max: 400 }), fc.integer({ min: 1_000, max: 150_000 })),
    shape: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
    where: fc.constantFrom('arguments-text', 'arguments-object', 'argument-value', 'reply-field', 'tool-name'),
  })
  .map(({ depth, shape, where }) => {
    const deep = nested(depth, shape);
    switch (where) {
      case 'arguments-text':
        return call('pick', deep);
      case 'arguments-object':
        return `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"pick","arguments":${deep}}}]}}]}`;
      case 'argument-value':
        return call('pick', `{"target":${deep}}`);
      case 'tool-name':
        return `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":${deep},"arguments":"{}"}}]}}]}`;
      default:
        return `{"usage":${deep},${SEEDS[0]!.slice(1)}`;
    }
  });

/** One server for the suite: the case's reply on the first turn of a run, `finish` after it. */
let served: { url: string; server: Server } | null = null;
let replies: string[] = [];
async function server(): Promise<string> {
  if (served === null) {
    const s = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(replies.shift() ?? FINISH),
      );
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    s.unref();
    served = { url: `http://127.0.0.1:${(s.address() as { port: number }).port}`, server: s };
  }
  return served.url;
}

let world: Promise<TabletopWorld> | null = null;

/** The engine's errors: a bug wherever they come from. */
const ENGINE = [RangeError, TypeError, ReferenceError, SyntaxError];

/** The client as the loop calls it, keeping the first engine or internal error it throws. */
function watched(p: Planner, seen: { crash: Error | undefined }): Planner {
  return {
    next: async (h) => {
      try {
        return await p.next(h);
      } catch (e) {
        if (ENGINE.some((c) => e instanceof c) || (e instanceof WitnessError && e.code === 'internal'))
          seen.crash ??= e as Error;
        throw e;
      }
    },
  };
}

/**
 * One run of the tool loop on `reply`, as `witness act --planner llm --audit DB` runs it; throws what the CLI would
 * exit with.
 */
async function runOnReply(reply: string, scratch: string): Promise<unknown> {
  const url = await server();
  world ??= TabletopWorld.open({ heightNoise_m: 0, perceptionNoise_m: 0 });
  const file = path.join(scratch, 'audit.sqlite');
  const log = await openAuditLog(file);
  const seen: { run: string | null; crash: Error | undefined } = { run: null, crash: undefined };
  replies = [reply];
  let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
  try {
    const r = await act({
      world: await world,
      tools: tabletopTools(),
      planner: (tools) =>
        watched(new LlmPlanner(tools, { baseUrl: url, model: 'fuzz', timeout_ms: 10_000, attempts: 1 }), seen),
      goal: 'put the red mug on the tray',
      verify: 'objects.red_mug.on == "tray"',
      seed: 1,
      replans: 1,
      maxSteps: 4,
      clock: () => 0,
      audit: { log, operator: 'fuzz', via: 'fuzz' },
      started: (id) => {
        seen.run = id;
      },
    });
    await settleAudit(log, [{ errors: r.auditErrors }]);
    const res = r.result;
    if (res.plannerError !== undefined) throw new WitnessError(res.plannerError.code, res.plannerError.message);
    if (res.outcome !== 'success') throw new WitnessError('negative', `${res.outcome}: ${res.reason}`);
    outcome = { ok: true, value: res };
  } catch (e) {
    outcome = { ok: false, error: e };
  } finally {
    await log.close();
  }
  // Whatever the run's end, it was recorded.
  if (seen.run !== null && !runEnded(file, seen.run))
    throw new Error(`the audit run ${seen.run} was left without an end`);
  if (seen.crash !== undefined) throw seen.crash;
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

function runEnded(file: string, run: string): boolean {
  const db = openAuditReadOnly(file);
  try {
    return queryEvents(db, { kind: 'run_end', limit: 10 }).some((e) => e.run_id === run);
  } finally {
    db.close();
  }
}

/** The LLM targets (one line in targets.ts spreads them into the list). */
export function llmTargets(): Target[] {
  return [
    {
      name: 'llm-reply',
      reads: 'LLM replies to the tool loop (mutated tool calls)',
      weight: 0.3,
      input: () => hostileJson(SEEDS),
      run: (reply: string, scratch: string) => runOnReply(reply, scratch),
    } satisfies Target<string> as unknown as Target,
    {
      name: 'llm-nested',
      reads: 'LLM replies and tool arguments nested deep under the byte caps',
      weight: 0.3,
      input: () => deepReply,
      run: (reply: string, scratch: string) => runOnReply(reply, scratch),
    } satisfies Target<string> as unknown as Target,
  ];
}

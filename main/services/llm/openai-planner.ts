/**
 * An LLM planner over the OpenAI-compatible chat-completions tool-calling protocol (llama.cpp
 * server, Ollama, vLLM, …). Each turn sends the goal, the tools (their argument schemas as function
 * parameters, plus `finish`), the observed state and the loop's history — passes, schema errors and
 * failure records as structured JSON, operator decisions as notes — and takes one tool call back.
 * It is robust to what servers and models do: unparsable argument JSON and text instead of a call
 * go back to the loop as invalid proposals (the loop tells the model on the next turn); an unknown
 * tool is the loop's to reject; timeouts and server errors are retried once, then the planner gives
 * up (the loop escalates).
 *
 * It is bounded: each request has a timeout (LlmError, code budget, once the attempts are spent),
 * the reply is read as a stream and refused past a byte limit (code too-large) without being held
 * whole, and a proposed call whose arguments are too large — their JSON text, or any one string in
 * them — goes back as an invalid proposal naming the tool and the argument, with the arguments
 * themselves dropped: nothing that size reaches the world, the audit log, the next request or the
 * trace. Nor does anything nested deeper than MAX_JSON_DEPTH: such a reply is refused (code
 * invalid-input), such arguments are an invalid proposal. While a request waits, `waiting` is told
 * the seconds elapsed, once a second.
 */
import { LLM_DEFAULTS } from '../../contract/defaults.js';
import { type ErrorCode, WitnessError } from '../../contract/errors.js';
import type { History, Planner, Proposal, RulesView } from '../../core/loop/loop.js';
import type { RegisteredTool } from '../../core/loop/tools.js';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../../core/input/json.js';
import { bytesText, longString, readBounded } from './bounded.js';

/**
 * A failure of the LLM client that ends the planner's turn: a timeout (budget) or a reply over the size limit
 * (too-large).
 */
export class LlmError extends WitnessError {
  override readonly name = 'LlmError';
  constructor(code: ErrorCode, message: string) {
    super(code, message);
  }
}

/** Told while a request waits for its reply. */
interface WaitingProgress {
  /** Seconds since the request was sent, once a second. */
  tick(elapsed_s: number): void;
  /** The reply came (or the request failed). */
  done(): void;
}

export interface LlmConfig {
  /** e.g. http://127.0.0.1:8080 (llama.cpp), http://127.0.0.1:11434 (Ollama); `/v1/chat/completions` is appended. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  /** Per request, reading the reply included (default LLM_DEFAULTS.timeout_ms). */
  readonly timeout_ms?: number;
  readonly temperature?: number;
  /** Attempts per turn for timeouts and server errors. */
  readonly attempts?: number;
  /** The largest reply read, bytes (default LLM_DEFAULTS.maxReplyBytes). */
  readonly maxReplyBytes?: number;
  /** The longest string in a call's arguments, bytes (default LLM_DEFAULTS.maxArgumentStringBytes). */
  readonly maxArgumentStringBytes?: number;
  /** A call's whole arguments as JSON text, bytes (default LLM_DEFAULTS.maxArgumentsBytes). */
  readonly maxArgumentsBytes?: number;
  /** Progress while a request waits (the CLI's "waiting for the LLM" line); none by default. */
  readonly waiting?: WaitingProgress;
  /** Where "a flag to change it" points in messages (the CLI's flag names); default: the config fields. */
  readonly names?: { readonly timeout?: string; readonly maxReply?: string };
}

/** Requests and replies kept in `transcript` (the latest ones). */
const TRANSCRIPT_TURNS = 8;

/** A base URL the client can use: http(s), parsed; anything else is invalid input naming `flag`. */
export function checkBaseUrl(url: string, flag = 'baseUrl'): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new WitnessError(
      'invalid-input',
      `${flag} must be an http:// or https:// URL, e.g. http://127.0.0.1:8080, got '${url}'`,
      { path: flag },
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new WitnessError(
      'invalid-input',
      `${flag} must be an http:// or https:// URL, got '${url}' (scheme ${u.protocol})`,
      { path: flag },
    );
  return u;
}

const FINISH_TOOL = 'finish';

interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

const SYSTEM = [
  'You control a robot through typed tools. Call exactly one tool per turn with arguments that match its schema.',
  'After every call you get the observed world state. A failure record names the violated postcondition and what the sensors showed:',
  'change the plan to fix that cause; do not repeat the same call. Call `finish` when the goal holds in the observed state.',
].join(' ');

/** The rules, as the planner is told them once per request (the obligations come after the state). */
function rulesText(v: RulesView): string {
  return [
    'Rules (LTL over the propositions below, one letter per executed call: the call and the state observed after it;',
    'a call that would break a rule is refused before it runs and comes back as a failure record of stage "rule"):',
    ...v.rules.map((r) => `- ${r.name}: ${r.ltl}${r.description !== undefined ? ` (${r.description})` : ''}`),
    'Propositions (CEL; call.tool and call.args are the call):',
    ...v.propositions.map((p) => `- ${p.name} := ${p.expr}`),
  ].join('\n');
}

export class LlmPlanner implements Planner {
  /** The latest requests sent and their replies (TRANSCRIPT_TURNS of them, for diagnosis and tests). */
  readonly transcript: { request: unknown; response: unknown }[] = [];

  constructor(
    private readonly tools: ReadonlyMap<string, RegisteredTool>,
    private readonly cfg: LlmConfig,
  ) {
    checkBaseUrl(cfg.baseUrl);
  }

  private messages(h: History): Message[] {
    const m: Message[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Goal: ${h.goal}` },
    ];
    if (h.rules !== undefined) m.push({ role: 'user', content: rulesText(h.rules) });
    let n = 0;
    for (const e of h.entries) {
      if (e.kind === 'goal') continue;
      const id = `call_${++n}`;
      if (e.kind === 'schema-error') {
        m.push({
          role: 'assistant',
          content: null,
          tool_calls: [
            { id, type: 'function', function: { name: e.call.tool, arguments: JSON.stringify(e.call.args ?? null) } },
          ],
        });
        m.push({
          role: 'tool',
          tool_call_id: id,
          content: JSON.stringify({ error: 'invalid call, nothing was executed', details: e.errors }),
        });
      } else if (e.kind === 'pass') {
        m.push({
          role: 'assistant',
          content: null,
          tool_calls: [
            { id, type: 'function', function: { name: e.call.tool, arguments: JSON.stringify(e.call.args) } },
          ],
        });
        m.push({
          role: 'tool',
          tool_call_id: id,
          content: JSON.stringify({ result: 'postconditions hold', observed_state: e.state }),
        });
      } else if (e.kind === 'operator') {
        // Not a tool result: the operator answered an escalation (retry: replan; skip: the step is abandoned).
        m.push({
          role: 'user',
          content: `The loop escalated (${e.escalation.reason}); the operator decided ${e.decision.decision}: ${e.decision.reason}`,
        });
      } else {
        const r = e.record;
        m.push({
          role: 'assistant',
          content: null,
          tool_calls: [{ id, type: 'function', function: { name: r.tool, arguments: JSON.stringify(r.args) } }],
        });
        m.push({ role: 'tool', tool_call_id: id, content: JSON.stringify({ failure_record: r }) });
      }
    }
    m.push({ role: 'user', content: `Observed state now: ${JSON.stringify(h.state)}` });
    if (h.rules !== undefined && h.rules.obligations.length > 0)
      m.push({ role: 'user', content: `Pending rule obligations: ${h.rules.obligations.join('; ')}` });
    return m;
  }

  private body(h: History): Record<string, unknown> {
    const tools = [...this.tools.values()].map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.arguments },
    }));
    tools.push({
      type: 'function',
      function: {
        name: FINISH_TOOL,
        description: 'Declare the goal achieved.',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
    });
    return {
      model: this.cfg.model,
      messages: this.messages(h),
      tools,
      tool_choice: 'auto',
      temperature: this.cfg.temperature ?? 0,
    };
  }

  private async post(body: unknown): Promise<unknown> {
    const url = `${this.cfg.baseUrl.replace(/\/+$/, '')}/v1/chat/completions`;
    const attempts = Math.max(1, this.cfg.attempts ?? LLM_DEFAULTS.attempts);
    const timeout = this.cfg.timeout_ms ?? LLM_DEFAULTS.timeout_ms;
    const maxReply = this.cfg.maxReplyBytes ?? LLM_DEFAULTS.maxReplyBytes;
    const began = Date.now();
    const waiting = this.cfg.waiting;
    const ticker = waiting !== undefined ? setInterval(() => waiting.tick((Date.now() - began) / 1000), 1000) : null;
    ticker?.unref();
    let last = '';
    try {
      for (let i = 0; i < attempts; i++) {
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(this.cfg.apiKey ? { authorization: `Bearer ${this.cfg.apiKey}` } : {}),
            },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(timeout),
          });
          const text = await readBounded(res, maxReply);
          if (typeof text !== 'string') {
            throw new LlmError(
              'too-large',
              `the reply from ${url} is larger than ${bytesText(maxReply)} (${text.declared ? `its Content-Length says ${bytesText(text.over)}` : `${bytesText(text.over)} read, the rest left unread`}; ${this.cfg.names?.maxReply ?? 'maxReplyBytes'} sets the limit): it was not used`,
            );
          }
          if (!res.ok) {
            last = `HTTP ${res.status} from ${url}: ${text.slice(0, 200)}`;
            if (res.status >= 500 || res.status === 429) continue;
            throw new Error(last);
          }
          // Nesting is checked before parsing: what the planner and the loop do with the reply walks it.
          const deep = jsonTooDeep(text);
          if (deep !== null)
            throw new LlmError(
              'invalid-input',
              `the reply from ${url} is nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (at ${deep}): it was not used`,
            );
          try {
            return JSON.parse(text) as unknown;
          } catch {
            last = `the server's reply is not JSON: ${text.slice(0, 120)}`;
          }
        } catch (e) {
          if (e instanceof WitnessError) throw e;
          if (e instanceof Error && e.name === 'TimeoutError') {
            last = `no answer from ${url} within ${timeout} ms`;
          } else if (e instanceof Error && e.message.startsWith('HTTP ')) throw e;
          else last = `cannot reach ${url}: ${e instanceof Error ? e.message : String(e)}`;
        }
      }
    } finally {
      if (ticker !== null) {
        clearInterval(ticker);
        waiting!.done();
      }
    }
    // A server that never answers in time is a time budget spent (exit 3); other failures leave it to the loop.
    if (last.startsWith('no answer')) {
      throw new LlmError(
        'budget',
        `${last} (${attempts} attempt${attempts === 1 ? '' : 's'}; ${this.cfg.names?.timeout ?? 'timeout_ms'} sets the time per attempt)`,
      );
    }
    throw new Error(last);
  }

  async next(h: History): Promise<Proposal> {
    const body = this.body(h);
    const reply = await this.post(body);
    this.transcript.push({ request: body, response: reply });
    if (this.transcript.length > TRANSCRIPT_TURNS) this.transcript.shift();
    if (reply === null || typeof reply !== 'object' || Array.isArray(reply))
      throw new Error(`the server's reply is not a JSON object: ${JSON.stringify(reply).slice(0, 200)}`);
    const msg = (
      reply as {
        choices?: {
          message?: { content?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[] };
        }[];
      }
    ).choices?.[0]?.message;
    if (msg === null || typeof msg !== 'object')
      throw new Error(`the server's reply has no choices[0].message: ${JSON.stringify(reply).slice(0, 200)}`);
    const call = msg.tool_calls?.[0]?.function;
    if (call === null || typeof call !== 'object' || typeof call.name !== 'string') {
      const text = typeof msg.content === 'string' ? msg.content.trim() : '';
      return {
        kind: 'call',
        call: { tool: '(text)', args: null },
        invalid: `the model answered in text instead of calling a tool: "${text.slice(0, 200)}"`,
      };
    }
    const name = call.name.length > 200 ? `${call.name.slice(0, 200)}…` : call.name;
    if (name === FINISH_TOOL) return { kind: 'done' };
    const raw =
      typeof call.arguments === 'string'
        ? call.arguments
        : call.arguments === undefined
          ? '{}'
          : JSON.stringify(call.arguments);
    const maxArgs = this.cfg.maxArgumentsBytes ?? LLM_DEFAULTS.maxArgumentsBytes;
    const rawBytes = raw.length * 3 <= maxArgs ? raw.length : Buffer.byteLength(raw, 'utf8');
    if (rawBytes > maxArgs) {
      return {
        kind: 'call',
        call: { tool: name, args: dropped(rawBytes) },
        invalid: `the arguments of ${name} are ${bytesText(rawBytes)} of JSON, over the limit of ${bytesText(maxArgs)} for a call's arguments; nothing was executed`,
      };
    }
    // Before parsing: arguments nested deeper than any tool's schema would overflow the stack of what
    // walks them (validation, the audit log's canonical JSON, the next request).
    const deep = jsonTooDeep(raw);
    if (deep !== null) {
      return {
        kind: 'call',
        call: { tool: name, args: dropped(rawBytes) },
        invalid: `the arguments of ${name} are nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (at ${deep}), over the limit for a call's arguments; nothing was executed`,
      };
    }
    let args: unknown;
    try {
      args = JSON.parse(raw) as unknown;
    } catch (e) {
      return {
        kind: 'call',
        call: { tool: name, args: raw.length > 200 ? `${raw.slice(0, 200)}…` : raw },
        invalid: `the arguments of ${name} are not valid JSON (${e instanceof Error ? e.message : String(e)}): ${raw.slice(0, 200)}`,
      };
    }
    const maxString = this.cfg.maxArgumentStringBytes ?? LLM_DEFAULTS.maxArgumentStringBytes;
    const long = longString(args, maxString);
    if (long !== null) {
      return {
        kind: 'call',
        call: { tool: name, args: dropped(rawBytes) },
        invalid: `argument ${long.path} of ${name} is a string of ${bytesText(long.bytes)}, over the limit of ${bytesText(maxString)} per string; nothing was executed`,
      };
    }
    return { kind: 'call', call: { tool: name, args } };
  }
}

/** What stands for arguments too large to keep (in the history, the audit log and the next request). */
const dropped = (bytes: number): string => `(${bytesText(bytes)} of arguments, not kept)`;

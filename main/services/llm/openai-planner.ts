/**
 * An LLM planner over the OpenAI-compatible chat-completions tool-calling protocol (llama.cpp
 * server, Ollama, vLLM, …). Each turn sends the goal, the tools (their argument schemas as function
 * parameters, plus `finish`), the observed state and the loop's history — passes, schema errors and
 * failure records as structured JSON, operator decisions as notes — and takes one tool call back.
 * It is robust to what servers and models do: unparsable argument JSON and text instead of a call
 * go back to the loop as invalid proposals (the loop tells the model on the next turn); an unknown
 * tool is the loop's to reject; timeouts and server errors are retried once, then the planner gives
 * up (the loop escalates).
 */
import type { History, Planner, Proposal } from '../../core/loop/loop.js';
import type { RegisteredTool } from '../../core/loop/tools.js';

export interface LlmConfig {
  /** e.g. http://127.0.0.1:8080 (llama.cpp), http://127.0.0.1:11434 (Ollama); `/v1/chat/completions` is appended. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  readonly timeout_ms?: number;
  readonly temperature?: number;
  /** Attempts per turn for timeouts and server errors. */
  readonly attempts?: number;
}

export const FINISH_TOOL = 'finish';

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

export class LlmPlanner implements Planner {
  /** Every request sent and the raw reply (for the audit log and tests). */
  readonly transcript: { request: unknown; response: unknown }[] = [];

  constructor(private readonly tools: ReadonlyMap<string, RegisteredTool>, private readonly cfg: LlmConfig) {}

  private messages(h: History): Message[] {
    const m: Message[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Goal: ${h.goal}` },
    ];
    let n = 0;
    for (const e of h.entries) {
      if (e.kind === 'goal') continue;
      const id = `call_${++n}`;
      if (e.kind === 'schema-error') {
        m.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: e.call.tool, arguments: JSON.stringify(e.call.args ?? null) } }] });
        m.push({ role: 'tool', tool_call_id: id, content: JSON.stringify({ error: 'invalid call, nothing was executed', details: e.errors }) });
      } else if (e.kind === 'pass') {
        m.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: e.call.tool, arguments: JSON.stringify(e.call.args) } }] });
        m.push({ role: 'tool', tool_call_id: id, content: JSON.stringify({ result: 'postconditions hold', observed_state: e.state }) });
      } else if (e.kind === 'operator') {
        // Not a tool result: the operator answered an escalation (retry: replan; skip: the step is abandoned).
        m.push({ role: 'user', content: `The loop escalated (${e.escalation.reason}); the operator decided ${e.decision.decision}: ${e.decision.reason}` });
      } else {
        const r = e.record;
        m.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: r.tool, arguments: JSON.stringify(r.args) } }] });
        m.push({ role: 'tool', tool_call_id: id, content: JSON.stringify({ failure_record: r }) });
      }
    }
    m.push({ role: 'user', content: `Observed state now: ${JSON.stringify(h.state)}` });
    return m;
  }

  private body(h: History): Record<string, unknown> {
    const tools = [...this.tools.values()].map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.arguments } }));
    tools.push({ type: 'function', function: { name: FINISH_TOOL, description: 'Declare the goal achieved.', parameters: { type: 'object', properties: {}, additionalProperties: false } } });
    return { model: this.cfg.model, messages: this.messages(h), tools, tool_choice: 'auto', temperature: this.cfg.temperature ?? 0 };
  }

  private async post(body: unknown): Promise<unknown> {
    const url = `${this.cfg.baseUrl.replace(/\/+$/, '')}/v1/chat/completions`;
    const attempts = Math.max(1, this.cfg.attempts ?? 2);
    let last = '';
    for (let i = 0; i < attempts; i++) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(this.cfg.apiKey ? { authorization: `Bearer ${this.cfg.apiKey}` } : {}) },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(this.cfg.timeout_ms ?? 30_000),
        });
        const text = await res.text();
        if (!res.ok) {
          last = `HTTP ${res.status} from ${url}: ${text.slice(0, 200)}`;
          if (res.status >= 500 || res.status === 429) continue;
          throw new Error(last);
        }
        try {
          return JSON.parse(text) as unknown;
        } catch {
          last = `the server's reply is not JSON: ${text.slice(0, 120)}`;
        }
      } catch (e) {
        if (e instanceof Error && e.name === 'TimeoutError') last = `no answer from ${url} within ${this.cfg.timeout_ms ?? 30_000} ms`;
        else if (e instanceof Error && e.message.startsWith('HTTP ')) throw e;
        else last = `cannot reach ${url}: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    throw new Error(last);
  }

  async next(h: History): Promise<Proposal> {
    const body = this.body(h);
    const reply = await this.post(body);
    this.transcript.push({ request: body, response: reply });
    const msg = (reply as { choices?: { message?: { content?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[] } }[] }).choices?.[0]?.message;
    if (msg === undefined) throw new Error(`the server's reply has no choices[0].message: ${JSON.stringify(reply).slice(0, 200)}`);
    const call = msg.tool_calls?.[0]?.function;
    if (call === undefined || typeof call.name !== 'string') {
      const text = (msg.content ?? '').trim();
      return { kind: 'call', call: { tool: '(text)', args: null }, invalid: `the model answered in text instead of calling a tool: "${text.slice(0, 200)}"` };
    }
    if (call.name === FINISH_TOOL) return { kind: 'done' };
    let args: unknown;
    try {
      args = JSON.parse(call.arguments ?? '{}') as unknown;
    } catch (e) {
      return { kind: 'call', call: { tool: call.name, args: call.arguments ?? null }, invalid: `the arguments of ${call.name} are not valid JSON (${e instanceof Error ? e.message : String(e)}): ${String(call.arguments).slice(0, 200)}` };
    }
    return { kind: 'call', call: { tool: call.name, args } };
  }
}

/**
 * WebSocket frames as fuzzing targets: valid frame sequences (calls, fragments, pings, binary,
 * 16- and 64-bit lengths, a close), mutated byte-wise, sent after a real upgrade to a live `witness
 * web` process (a child of this one, started once per run) and to the live Foxglove server its
 * console starts. A case is refused when the server closes that connection with a close code or
 * answers with an error; it is a bug when the process stops, a good client is not answered after, or
 * the answer is an internal error.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WitnessError } from '../../main/contract/errors.js';
import { apiClient, frame, RawClient, startWitnessWeb, upgradeRequest, type WebChild } from '../api/web-raw.js';
import fc from 'fast-check';
import { mutatedBytes, nested } from './mutate.js';
import type { Target } from './targets.js';

/** How long a case waits for the server to react to its bytes before it resets the connection. */
const REACT_MS = 60;
/** How long a call that must be answered may take (a few hundred KB parsed and refused, on a loaded machine). */
const ANSWER_MS = 10_000;
const KEY = Uint8Array.of(0x37, 0xfa, 0x21, 0x3d);

const cat = (...b: Buffer[]): Uint8Array => new Uint8Array(Buffer.concat(b));
const text = (s: string, o: { fin?: boolean } = {}): Buffer => frame(1, s, { key: KEY, ...o });
const call = (id: number, method: string, params: unknown = {}): string => JSON.stringify({ id, method, params });

function apiSeeds(): Uint8Array[] {
  return [
    cat(text(call(1, 'version'))),
    cat(text('{"id":2,"meth', { fin: false }), frame(0, 'od":"estopState","params":{}}', { key: KEY })),
    cat(frame(9, 'ping', { key: KEY }), text(call(3, 'worldVocabulary', { world: 'pointmaze-medium' }))),
    cat(frame(2, Uint8Array.of(0, 1, 2, 3, 255), { key: KEY }), text('null')),
    cat(text(call(4, 'worldVocabulary', { world: 'w'.repeat(300) }))),
    cat(text(call(5, 'worldVocabulary', { world: 'w'.repeat(70_000) }))),
    cat(text(call(6, 'version')), frame(8, Uint8Array.of(0x03, 0xe8), { key: KEY })),
  ];
}

/**
 * Calls whose JSON nests deep in a few hundred KB, far under the frame limit, sent whole (a byte mutation would break
 * them): in the parameters, a parameter, the id or the method.
 */
const deepCall: fc.Arbitrary<Uint8Array> = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 200, max: 400 }), fc.integer({ min: 1_000, max: 150_000 })),
    shape: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
    method: fc.constantFrom('planGraph', 'worldVocabulary', 'version', 'auditQuery', 'ltlTranslate', 'sceneOf'),
    // planGraph's graph is the one parameter of any shape (a labelled graph, already parsed): the most cases.
    where: fc.oneof({ weight: 3, arbitrary: fc.constant('graph') }, fc.constantFrom('params', 'id', 'method')),
  })
  .map(({ depth, shape, method, where }) => {
    const deep = nested(depth, shape);
    const json =
      where === 'params'
        ? `{"id":1,"method":"${method}","params":${deep}}`
        : where === 'graph'
          ? `{"id":1,"method":"planGraph","params":{"graph":${deep},"spec":"F a"}}`
          : where === 'id'
            ? `{"id":${deep},"method":"${method}","params":{}}`
            : `{"id":1,"method":${deep},"params":{}}`;
    return cat(text(json));
  });

function foxgloveSeeds(): Uint8Array[] {
  const sub = JSON.stringify({
    op: 'subscribe',
    subscriptions: [
      { id: 1, channelId: 1 },
      { id: 2, channelId: 3 },
    ],
  });
  return [
    cat(text(sub)),
    cat(text(sub), text(JSON.stringify({ op: 'unsubscribe', subscriptionIds: [1, 2] }))),
    cat(frame(9, 'ping', { key: KEY }), text(JSON.stringify({ op: 'getParameters', parameterNames: ['a'], id: 'x' }))),
    cat(frame(2, Uint8Array.of(1, 0, 0, 0, 1, 7, 7), { key: KEY })),
  ];
}

interface Live {
  readonly web: WebChild;
  readonly foxglove: number;
}

const live = new Map<string, Promise<Live>>();

/**
 * The `witness web` of a target for this run (one for all its cases: a crash is the bug), with its Foxglove server on.
 */
function server(target: string): Promise<Live> {
  let l = live.get(target);
  if (l === undefined) {
    l = (async () => {
      const web = await startWitnessWeb(mkdtempSync(path.join(tmpdir(), `witness-fuzz-${target}-`)), {
        detached: true,
      });
      const c = await apiClient(web.port, web.token);
      const on = await c.call('foxgloveStart', { port: 0 });
      c.ws.close();
      if (on['ok'] !== true) throw new Error(`foxgloveStart: ${JSON.stringify(on)}`);
      return { web, foxglove: (on['result'] as { port: number }).port };
    })();
    live.set(target, l);
  }
  return l;
}

/** The bound on the server's peak resident set, as the spawned tier's on a command's (cli-targets.ts). */
const RSS_LIMIT_MB = 1024;

/** The peak resident set of a process in MiB (Linux), or null where /proc does not say. */
function peakRssMb(pid: number): number | null {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/**
 * The server after a case: still running, answering a good client, its memory bounded (the bug otherwise, with its
 * stderr).
 */
async function stillServes(web: WebChild): Promise<void> {
  const rss = peakRssMb(web.pid);
  if (rss !== null && rss > RSS_LIMIT_MB)
    throw new Error(`the server's peak resident set is ${rss.toFixed(0)} MiB (the bound is ${RSS_LIMIT_MB})`);
  try {
    const c = await apiClient(web.port, web.token);
    try {
      const r = await c.call('version', {}, 10_000);
      if (r['ok'] !== true) throw new Error(`version: ${JSON.stringify(r)}`);
    } finally {
      c.ws.close();
    }
  } catch (e) {
    for (let i = 0; i < 50 && web.exited() === null; i++) await new Promise((r) => setTimeout(r, 20));
    const why = /^\w*Error: .*$/m.exec(web.stderr())?.[0] ?? web.stderr().slice(-300);
    throw new Error(
      `the server stopped serving (${web.exited() ?? 'still running'}): ${e instanceof Error ? e.message : String(e)}; its stderr: ${why}`,
    );
  }
}

/**
 * Sends `bytes` on an upgraded connection (and waits for an answer where one is `answered`); a refusal is thrown as a
 * WitnessError naming the close code or the error, an answer that is an internal error as a plain Error (a bug: the
 * server survived it, but a value from outside reached code that could not take it).
 */
async function send(
  c: RawClient,
  bytes: Uint8Array,
  isError: (m: unknown) => boolean,
  isInternal: (m: unknown) => boolean = () => false,
  answered = false,
): Promise<void> {
  c.socket.write(bytes);
  if (answered) await c.until(() => c.texts().length > 0 || c.ended, 'an answer', ANSWER_MS);
  else await Promise.race([c.closed, new Promise((r) => setTimeout(r, REACT_MS))]);
  const internal = c.texts().find(isInternal);
  if (internal !== undefined) {
    c.socket.resetAndDestroy();
    throw new Error(`the server answered with an internal error: ${JSON.stringify(internal).slice(0, 300)}`);
  }
  const code = c.closeCode,
    errors = c.texts().filter(isError).length;
  c.socket.resetAndDestroy();
  if (code !== null && code !== 1000)
    throw new WitnessError('invalid-input', `the server closed the connection with ${code}`);
  if (errors > 0) throw new WitnessError('invalid-input', `the server answered ${errors} message(s) with an error`);
}

const target = <T>(t: Target<T>): Target => t as unknown as Target;

export function wsTargets(): Target[] {
  return [
    target({
      name: 'ws-api-frames',
      reads: 'WebSocket frames to the web API (a live `witness web`)',
      weight: 0.5,
      input: () => mutatedBytes(apiSeeds()),
      run: async (bytes: Uint8Array) => {
        const { web } = await server('ws-api-frames');
        try {
          await send(
            await RawClient.api(web.port, web.token),
            bytes,
            (m) => (m as { ok?: unknown }).ok === false,
            (m) => (m as { error?: { code?: unknown } }).error?.code === 'internal',
          );
        } finally {
          await stillServes(web);
        }
      },
    }),
    target({
      name: 'ws-api-nested',
      reads: 'calls to the web API nested deep under the frame limit (a live `witness web`)',
      weight: 0.3,
      input: () => deepCall,
      run: async (bytes: Uint8Array) => {
        const { web } = await server('ws-api-nested');
        try {
          // Each case waits for its answer: a call is answered, whatever it holds.
          await send(
            await RawClient.api(web.port, web.token),
            bytes,
            (m) => (m as { ok?: unknown }).ok === false,
            (m) => (m as { error?: { code?: unknown } }).error?.code === 'internal',
            true,
          );
        } finally {
          await stillServes(web);
        }
      },
    }),
    target({
      name: 'ws-foxglove-frames',
      reads: 'WebSocket frames to the live Foxglove server (the console’s, in `witness web`)',
      weight: 0.5,
      input: () => mutatedBytes(foxgloveSeeds()),
      run: async (bytes: Uint8Array) => {
        const { web, foxglove } = await server('ws-foxglove-frames');
        try {
          const c = await RawClient.open(
            foxglove,
            upgradeRequest(foxglove, '/', { 'Sec-WebSocket-Protocol': 'foxglove.websocket.v1' }),
          );
          await c.until(() => c.status !== null && c.texts().length >= 2, 'serverInfo and advertise');
          await send(
            c,
            bytes,
            (m) => (m as { op?: unknown; level?: unknown }).op === 'status' && (m as { level?: unknown }).level !== 0,
          );
        } finally {
          await stillServes(web);
        }
      },
    }),
  ];
}

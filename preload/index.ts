// Preload: exposes exactly one object, `window.witness`, implementing the API contract.
//
// Sandboxed preloads run as plain scripts with a restricted `require` ('electron' and a few
// others), not as ES modules, and cannot load our own files. Hence preload/package.json makes
// this file compile to CommonJS, and the channel table is mirrored here rather than imported;
// `satisfies ApiChannels` makes the build fail if the mirror drifts from the contract.
import { contextBridge, ipcRenderer } from 'electron';
import type { ApiChannel, ApiChannels, ApiMethod, WitnessApi } from '../main/api/contract.js';

const CHANNELS = Object.freeze({
  ltlTranslate: 'witness:ltl-translate',
  planGraph: 'witness:plan-graph',
  version: 'witness:version',
  ros2Status: 'witness:ros2-status',
} as const satisfies ApiChannels);

const KNOWN_CHANNELS: ReadonlySet<string> = new Set<string>(Object.values(CHANNELS));

async function invoke<M extends ApiMethod>(
  method: M,
  ...args: Parameters<WitnessApi[M]>
): Promise<Awaited<ReturnType<WitnessApi[M]>>> {
  const channel: ApiChannel = CHANNELS[method];
  if (!KNOWN_CHANNELS.has(channel)) {
    throw new Error(`witness preload: unknown API channel '${String(channel)}'`);
  }
  return (await ipcRenderer.invoke(channel, ...args)) as Awaited<ReturnType<WitnessApi[M]>>;
}

const api: WitnessApi = {
  ltlTranslate: (request) => invoke('ltlTranslate', request),
  planGraph: (request) => invoke('planGraph', request),
  version: () => invoke('version'),
  ros2Status: () => invoke('ros2Status'),
};

contextBridge.exposeInMainWorld('witness', api);

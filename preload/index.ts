// Preload: exposes exactly one object, `window.witness`, the bridge the renderer builds its typed
// API client on. It can only invoke the one API channel (main validates the method and its
// parameters against the contract and checks the sender) and listen to the one event channel.
//
// Sandboxed preloads run as plain scripts with a restricted `require` ('electron' and a few
// others), not as ES modules, and cannot load our own files. Hence preload/package.json makes this
// file compile to CommonJS, and the two channel names are repeated here; `satisfies` makes the
// build fail if they drift from the contract.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ApiEnvelope, ApiEvent, WitnessBridge } from '../main/contract/api.js';

const INVOKE = 'witness:invoke' satisfies typeof import('../main/contract/api.js').IPC_INVOKE;
const EVENT = 'witness:event' satisfies typeof import('../main/contract/api.js').IPC_EVENT;

const bridge: WitnessBridge = {
  transport: 'electron',
  invoke: (method: string, params: unknown) =>
    ipcRenderer.invoke(INVOKE, String(method), params) as Promise<ApiEnvelope>,
  subscribe(listener: (event: ApiEvent) => void): () => void {
    const handler = (_e: IpcRendererEvent, payload: ApiEvent): void => listener(payload);
    ipcRenderer.on(EVENT, handler);
    return () => {
      ipcRenderer.removeListener(EVENT, handler);
    };
  },
};

contextBridge.exposeInMainWorld('witness', bridge);

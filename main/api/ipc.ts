/**
 * The Electron IPC transport, written against minimal shapes of ipcMain and webContents so that it
 * never imports 'electron' (main/electron passes them in). One channel carries every call; the
 * sender must be the app's own page (its frame URL), and the dispatcher validates the method and
 * its parameters against the contract before any handler runs.
 */
import { IPC_EVENT, IPC_INVOKE, type ApiEnvelope } from '../contract/api.js';
import type { Dispatch } from './dispatch.js';
import type { EventBus } from '../app/events.js';

interface IpcSenderEvent {
  readonly senderFrame?: { readonly url: string } | null;
}

export interface HandlerRegistry {
  handle(channel: string, listener: (event: IpcSenderEvent, ...args: unknown[]) => unknown): void;
}

export interface EventTarget {
  isDestroyed(): boolean;
  send(channel: string, payload: unknown): void;
}

/** `trusted(url)` decides whether a sender frame is the app's page. */
export function registerIpc(registry: HandlerRegistry, dispatch: Dispatch, trusted: (url: string) => boolean): void {
  registry.handle(IPC_INVOKE, async (event, method, params, ...extra): Promise<ApiEnvelope> => {
    const url = event.senderFrame?.url ?? '';
    if (!trusted(url))
      return {
        ok: false,
        error: { code: 'forbidden', message: `IPC from an untrusted frame (${url || 'unknown'}) refused` },
      };
    if (extra.length > 0)
      return { ok: false, error: { code: 'invalid-params', message: 'an API call takes one parameter object' } };
    return dispatch(method, params);
  });
}

/** Forwards every bus event to a window until it is destroyed; returns the unsubscribe function. */
export function forwardEvents(bus: EventBus, target: EventTarget): () => void {
  const off = bus.subscribe((e) => {
    if (target.isDestroyed()) off();
    else target.send(IPC_EVENT, e);
  });
  return off;
}

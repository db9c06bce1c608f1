/**
 * Web mode's bridge: the API over a WebSocket to the server that served this page. The per-launch
 * token arrives in the page URL once; it is kept for this tab only (sessionStorage) and removed from
 * the address bar so it is not left in history or screenshots.
 */
import type { ApiEnvelope, ApiEvent, WitnessBridge } from '../../../main/contract/api.js';

const TOKEN_KEY = 'witness.token';

export function takeToken(): string | null {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl !== null) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

export interface WebBridge extends WitnessBridge {
  /** Called once when the connection to the server is lost. */
  onClose(listener: (why: string) => void): void;
}

export function connectWeb(token: string): Promise<WebBridge> {
  const ws = new WebSocket(
    `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/api?token=${encodeURIComponent(token)}`,
  );
  const pending = new Map<number, (e: ApiEnvelope) => void>();
  const listeners = new Set<(e: ApiEvent) => void>();
  const closers = new Set<(why: string) => void>();
  let nextId = 1;
  let closed: string | null = null;
  ws.addEventListener('message', (m) => {
    const msg = JSON.parse(String(m.data)) as { id?: number | null; event?: ApiEvent } & Partial<ApiEnvelope>;
    if (msg.event !== undefined) {
      for (const l of listeners) l(msg.event);
      return;
    }
    if (typeof msg.id === 'number') {
      const resolve = pending.get(msg.id);
      pending.delete(msg.id);
      resolve?.(msg as ApiEnvelope);
    }
  });
  ws.addEventListener('close', () => {
    closed = 'the connection to Witness was closed (the server stopped, or the token is wrong)';
    for (const [, resolve] of pending) resolve({ ok: false, error: { code: 'disconnected', message: closed } });
    pending.clear();
    for (const c of closers) c(closed);
  });
  const bridge: WebBridge = {
    transport: 'web',
    invoke(method, params) {
      if (closed !== null) return Promise.resolve({ ok: false, error: { code: 'disconnected', message: closed } });
      const id = nextId++;
      return new Promise<ApiEnvelope>((resolve) => {
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onClose(listener) {
      closers.add(listener);
    },
  };
  return new Promise((resolve, reject) => {
    ws.addEventListener('open', () => resolve(bridge), { once: true });
    ws.addEventListener(
      'error',
      () =>
        reject(
          new Error('cannot connect to the Witness server (is `witness web` running, and is the token from its URL?)'),
        ),
      { once: true },
    );
  });
}

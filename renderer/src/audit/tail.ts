/**
 * Tailing an audit database that is being written — by this session's missions or by another
 * process (the CLI, a second window): its head (runs, last event) is polled every POLL_MS while the
 * browser is on screen (`active`: its tab shown, the page visible — a hidden browser re-reading a
 * growing run every second would take time from a live mission), and `changed` is called once per
 * move, never twice at once. A failed poll is reported and polling goes on (a writer may hold the
 * database for a moment).
 */
import type { WitnessApi } from '../../../main/contract/api.js';

const POLL_MS = 1000;

export interface Head {
  runs: number;
  lastSeq: number;
}

export interface Tail {
  /** Follow `file` (undefined: the session's database) from `head`; null stops following. */
  follow(target: { file: string | undefined; head: Head } | null): void;
  /** The head last seen (after the last change was handled). */
  readonly head: Head | null;
  /** Polls now (the browser came back on screen). */
  poke(): void;
}

export function createTail(
  api: WitnessApi,
  active: () => boolean,
  changed: (head: Head) => Promise<void>,
  failed: (e: unknown) => void,
): Tail {
  let target: { file: string | undefined; head: Head } | null = null;
  let busy = false;
  const poll = async (): Promise<void> => {
    if (target === null || busy || document.hidden || !active()) return;
    const t = target;
    busy = true;
    try {
      const h = await api.auditHead(t.file !== undefined ? { file: t.file } : {});
      if (target !== t) return;
      if (h.runs !== t.head.runs || h.lastSeq !== t.head.lastSeq) {
        await changed({ runs: h.runs, lastSeq: h.lastSeq });
        if (target === t) t.head = { runs: h.runs, lastSeq: h.lastSeq };
      }
    } catch (e) {
      if (target === t) failed(e);
    } finally {
      busy = false;
    }
  };
  setInterval(() => void poll(), POLL_MS);
  return {
    follow(t) {
      target = t === null ? null : { file: t.file, head: { ...t.head } };
    },
    get head() {
      return target?.head ?? null;
    },
    poke() {
      void poll();
    },
  };
}

/** Fan-out of the events main pushes to every connected UI (IPC windows, WebSocket clients). */
import type { ApiEvent } from '../contract/api.js';

export class EventBus {
  private readonly listeners = new Set<(e: ApiEvent) => void>();

  subscribe(listener: (e: ApiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: ApiEvent): void {
    // One failing transport (a closed socket) must not stop the others.
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch {
        /* the transport drops its own dead connections */
      }
    }
  }
}

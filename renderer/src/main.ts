// Placeholder page: the workbench UI arrives with a later issue. Talks to the app only through
// the typed API object the preload (desktop) or the WebSocket bridge (web mode) provides.
import type { WitnessApi } from '../../main/api/contract.js';

declare global {
  interface Window {
    readonly witness?: WitnessApi;
  }
}

async function showVersion(): Promise<void> {
  const target = document.getElementById('version');
  const api = window.witness;
  if (!target || !api) return;
  try {
    target.textContent = `Version ${await api.version()}`;
  } catch (err) {
    target.textContent = `Version unavailable: ${err instanceof Error ? err.message : String(err)}`;
  }
}

void showVersion();

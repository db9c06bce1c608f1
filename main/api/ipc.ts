/**
 * The Electron IPC transport, written against a minimal handler registry so that it never imports
 * 'electron' (main/electron passes ipcMain in).
 */
import { API_CHANNELS, type ApiMethod, type WitnessApi } from './contract.js';

export interface HandlerRegistry {
  handle(channel: string, listener: (event: unknown, ...args: unknown[]) => unknown): void;
}

export function registerIpc(registry: HandlerRegistry, api: WitnessApi): void {
  for (const method of Object.keys(API_CHANNELS) as ApiMethod[]) {
    registry.handle(API_CHANNELS[method], (_event, ...args) =>
      (api[method] as (this: WitnessApi, ...a: unknown[]) => Promise<unknown>).apply(api, args));
  }
}

// The renderer's entry: find the bridge (the preload's in the desktop app, a WebSocket in web
// mode), build the typed API on it and mount the workbench.
import './style.css';
import type { WitnessBridge } from '../../main/contract/api.js';
import { createClient, errorText } from './api.js';
import { connectWeb, takeToken } from './bridge/web.js';
import { mountShell } from './shell.js';
import { missionPanel } from './console/panel.js';
import { editorsPanel } from './editors/panel.js';
import { graphPanel } from './graph/panel.js';
import { auditPanel } from './audit/panel.js';
import { actPanel } from './act/panel.js';

declare global {
  interface Window {
    readonly witness?: WitnessBridge;
  }
}

function fatal(root: HTMLElement, message: string): void {
  root.replaceChildren();
  const box = document.createElement('div');
  box.className = 'fatal';
  box.id = 'fatal';
  box.textContent = message;
  root.append(box);
}

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  let bridge: WitnessBridge;
  if (window.witness !== undefined) {
    bridge = window.witness;
  } else {
    const token = takeToken();
    if (token === null)
      return fatal(root, 'This page needs the token printed by `witness web` (open the exact URL it printed).');
    try {
      const web = await connectWeb(token);
      web.onClose((why) => {
        const banner = document.getElementById('conn');
        if (banner) {
          banner.textContent = 'disconnected';
          banner.classList.add('down');
          banner.title = why;
        }
      });
      bridge = web;
    } catch (e) {
      return fatal(root, errorText(e));
    }
  }
  const api = createClient(bridge);
  const info = await api.appInfo();
  mountShell(
    root,
    { api, info, onEvent: (l) => bridge.subscribe(l) },
    {
      panels: [missionPanel(), actPanel(), editorsPanel(), graphPanel(), auditPanel()],
    },
  );
  document.body.dataset.ready = 'true';
}

void start();

/**
 * The console's "Foxglove live" switch: serves the console's runs (missions and the tool loop) over
 * the Foxglove WebSocket protocol on 127.0.0.1 (main: app/foxglove-console.ts), shows the ws:// URL
 * to paste into Foxglove or Lichtblick and how many are connected. The state lives in main, so the
 * Mission and Tool loop tabs show the same switch, and it stays on between runs.
 */
import './foxglove.css';
import type { FoxgloveState } from '../../../main/contract/api.js';
import { FOXGLOVE_DEFAULTS } from '../../../main/contract/defaults.js';
import { type App, el } from '../app.js';
import { errorText } from '../api.js';

export interface FoxgloveSwitch {
  readonly element: HTMLElement;
}

/** `prefix` keeps the element ids of the two tabs apart ('' on the Mission tab, 'act-' on the Tool loop tab). */
export function foxgloveSwitch(app: App, prefix = ''): FoxgloveSwitch {
  const id = (s: string): string => `${prefix}foxglove-${s}`;
  const on = el('input', { id: id('on'), type: 'checkbox', role: 'switch', 'aria-checked': 'false' });
  const port = el('input', {
    id: id('port'),
    type: 'number',
    min: '1',
    max: '65535',
    value: String(FOXGLOVE_DEFAULTS.port),
    title: 'the port on 127.0.0.1 (Foxglove and Lichtblick suggest 8765)',
  });
  const url = el('code', { id: id('url'), class: 'foxglove-url' });
  const copy = el(
    'button',
    { id: id('copy'), title: 'copy the URL (Foxglove or Lichtblick: Open connection → Foxglove WebSocket)' },
    'Copy',
  );
  const clients = el('span', { id: id('clients'), class: 'foxglove-clients' });
  const serving = el(
    'div',
    { class: 'foxglove-serving', hidden: '' },
    url,
    copy,
    clients,
    el(
      'span',
      { class: 'foxglove-hint' },
      'In Foxglove or Lichtblick: Open connection → Foxglove WebSocket, paste the URL.',
    ),
  );
  const off = el(
    'div',
    { class: 'foxglove-off' },
    'Off. On: the runs here are served to Foxglove or Lichtblick, on 127.0.0.1 only.',
  );
  const errors = el('div', { id: id('error'), class: 'error', role: 'alert' });
  const element = el(
    'div',
    { id: id('box'), class: 'foxglove' },
    el(
      'div',
      { class: 'foxglove-row' },
      el('label', { class: 'foxglove-switch' }, on, el('span', {}, 'Foxglove live')),
      el('label', { class: 'foxglove-port' }, el('span', {}, 'Port'), port),
    ),
    el('div', { id: id('status'), role: 'status' }, serving, off),
    errors,
  );

  let busy = false;
  /** `port` follows what is served unless the operator is typing in it (`force`: after a refused port). */
  const render = (s: FoxgloveState, force = false): void => {
    on.checked = s.on;
    on.setAttribute('aria-checked', String(s.on));
    element.dataset['on'] = String(s.on);
    serving.hidden = !s.on;
    off.hidden = s.on;
    if (s.on) {
      url.textContent = s.url;
      clients.textContent = `${s.clients} ${s.clients === 1 ? 'client' : 'clients'} connected`;
      if (force || document.activeElement !== port) port.value = String(s.port);
    }
  };
  const act = (work: () => Promise<FoxgloveState>): void => {
    if (busy) return;
    busy = true;
    on.disabled = true;
    errors.textContent = '';
    work()
      .then(render, (e: unknown) => {
        errors.textContent = `Foxglove: ${errorText(e)}`;
        // Nothing changed in main: show what is.
        return app.api.foxgloveState().then(
          (s) => render(s, true),
          () => undefined,
        );
      })
      .finally(() => {
        busy = false;
        on.disabled = false;
      });
  };
  const start = (): void => {
    const p = Number(port.value);
    if (!Number.isInteger(p) || p < 1 || p > 65535) {
      errors.textContent = `Foxglove: the port must be a whole number from 1 to 65535, got "${port.value}"`;
      on.checked = element.dataset['on'] === 'true';
      return;
    }
    act(() => app.api.foxgloveStart({ port: p }));
  };
  on.addEventListener('change', () => (on.checked ? start() : act(() => app.api.foxgloveStop())));
  // A new port while it is on moves the server there.
  port.addEventListener('change', () => {
    if (element.dataset['on'] === 'true') start();
  });
  copy.addEventListener('click', () => {
    void navigator.clipboard?.writeText(url.textContent ?? '').then(
      () => app.notify(`Copied ${url.textContent ?? ''}`),
      () => app.notify('Copy failed: select the URL', 'error'),
    );
  });
  app.onEvent((e) => {
    if (e.topic === 'foxglove') render(e.state);
  });
  render({ on: false });
  app.api.foxgloveState().then(render, () => {
    /* an older main: the switch stays off */
  });
  return { element };
}

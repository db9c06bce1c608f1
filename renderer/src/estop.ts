/**
 * The emergency stop in the header, on every tab: the button and its key (F9: no editor, dialog or
 * browser binds it, so dismissing a popup never stops a robot and the stop works with focus
 * anywhere), the latched state (after it fires nothing can start or resume until an operator resets
 * it), and the reset dialog: an explicit acknowledgement and a reason, recorded with who reset it.
 * The button stays in reach above every modal dialog (modal.ts), and the status line follows the
 * latch whichever window fired or reset it.
 */
import type { ApiEvent, EstopState } from '../../main/contract/api.js';
import { type App, el } from './app.js';
import { errorText } from './api.js';
import { keepReachable, showModal } from './modal.js';
import { resetCheck } from './estop-model.js';

/** The key that fires the E-STOP (KeyboardEvent.key). */
const ESTOP_KEY = 'F9';

export interface EstopControls {
  /** The header's part: the latch banner and the button. */
  readonly header: HTMLElement;
  readonly dialog: HTMLDialogElement;
  /** Fires the E-STOP (the button, the key, and any panel's own E-STOP control). */
  fire(): void;
}

export interface EstopOptions {
  /** Fires the E-STOP; resolves to what it stopped and what the record keeps beside it, for the status line. */
  fire(): Promise<{ stopped: number; note: string | null }>;
}

const clock = (ms: number): string => new Date(ms).toLocaleTimeString();

/** The reset dialog's elements. */
function resetDialog() {
  const ack = el('input', { id: 'estop-ack', type: 'checkbox' });
  const reason = el('textarea', {
    id: 'estop-reset-reason',
    rows: '3',
    placeholder: 'What did you check? (required — recorded in the audit log with your name)',
  });
  const reset = el('button', { id: 'estop-reset', class: 'danger', disabled: '' }, 'Reset the E-STOP');
  const cancel = el('button', { id: 'estop-reset-cancel' }, 'Keep it latched');
  const err = el('div', { id: 'estop-reset-error', class: 'error', role: 'alert' });
  const what = el('p', { id: 'estop-reset-what' });
  const dialog = el(
    'dialog',
    { id: 'estop-reset-dialog', 'aria-labelledby': 'estop-reset-title' },
    el('h2', { id: 'estop-reset-title' }, 'Reset the emergency stop'),
    what,
    el(
      'label',
      { class: 'check' },
      ack,
      el('span', {}, 'I have checked that the robot and its surroundings are safe for it to move again'),
    ),
    el('label', { class: 'field' }, el('span', {}, 'Reason'), reason),
    err,
    el('div', { class: 'buttons' }, cancel, reset),
  );
  return { ack, reason, reset, cancel, err, what, dialog };
}

export function estopControls(app: Omit<App, 'post' | 'onMessage'>, o: EstopOptions): EstopControls {
  const button = el(
    'button',
    {
      class: 'estop',
      id: 'estop',
      'aria-keyshortcuts': ESTOP_KEY,
      title: `Emergency stop: halts every running mission and tool loop now, and latches until reset (${ESTOP_KEY}, with focus anywhere)`,
    },
    `E-STOP (${ESTOP_KEY})`,
  );
  const latchText = el('span', { id: 'estop-latch-text' });
  const resetOpen = el('button', { id: 'estop-reset-open', class: 'estop-reset-open' }, 'Reset…');
  const latch = el(
    'span',
    { id: 'estop-latch', class: 'estop-latch', role: 'alert', hidden: '' },
    latchText,
    resetOpen,
  );

  const { ack, reason, reset, cancel, err, what, dialog } = resetDialog();

  let state: EstopState = { latched: false };
  const sync = (): void => {
    const r = resetCheck(ack.checked, reason.value);
    reset.disabled = !r.allowed;
    err.textContent = r.message;
  };
  /** The status line while latched: who, what it stopped (null: not known yet), until reset. */
  const latchedLine = (s: Extract<EstopState, { latched: true }>, stopped: number | null): string =>
    `E-STOP by ${s.by} at ${clock(s.since)}: ${stopped === null ? '' : stopped > 0 ? `stopped ${stopped} run(s); ` : 'nothing was running; '}latched until reset`;
  const show = (s: EstopState): void => {
    const was = state;
    state = s;
    // The status line follows the latch, whichever window fired or reset it.
    if (s.latched && (!was.latched || was.since !== s.since || was.stopped.length !== s.stopped.length))
      app.notify(latchedLine(s, s.stopped.length > 0 ? s.stopped.length : null), 'error');
    else if (!s.latched && was.latched) app.notify('E-STOP reset: missions may run again', 'info');
    document.body.dataset.estop = s.latched ? 'latched' : 'clear';
    latch.hidden = !s.latched;
    button.classList.toggle('fired', s.latched);
    if (s.latched) {
      latchText.textContent = `E-STOP LATCHED since ${clock(s.since)} by ${s.by}${s.restored === true ? ' (still latched when the workbench started)' : ''}${s.recordError !== null ? ' (not recorded: see the status line)' : ''}`;
      latch.title = `${s.reason}${s.stopped.length > 0 ? `; stopped ${s.stopped.length} run(s)` : ''}${s.recordError !== null ? `; the audit log refused the record: ${s.recordError}` : ''}`;
      what.textContent = `Latched at ${clock(s.since)} by ${s.by}: ${s.reason}.${s.restored === true ? ' The workbench stopped while it was latched, and starts latched.' : ''} Nothing can start or resume until it is reset.`;
    } else if (dialog.open) dialog.close();
  };

  const fire = (): void => {
    button.classList.add('fired');
    o.fire().then(
      ({ stopped, note }) => {
        // Said only while it is still latched: a reset (from any window) since has its own line.
        if (!state.latched) return;
        app.notify(
          `${latchedLine(state, stopped)}${note !== null ? ' (your note is kept in the record)' : ''}`,
          'error',
        );
      },
      (e: unknown) => app.notify(`emergency stop failed: ${errorText(e)}`, 'error'),
    );
  };
  button.addEventListener('click', fire);
  // Capture phase on the window: no editor or dialog sees the key first, and none can swallow it.
  window.addEventListener(
    'keydown',
    (e) => {
      if (e.key !== ESTOP_KEY) return;
      e.preventDefault();
      e.stopPropagation();
      if (!e.repeat) fire();
    },
    { capture: true },
  );

  resetOpen.addEventListener('click', () => {
    // Open already (the button stays in reach above it): what the operator typed stays.
    if (!state.latched || dialog.open) return;
    ack.checked = false;
    reason.value = '';
    err.textContent = '';
    sync();
    showModal(dialog);
    ack.focus();
  });
  ack.addEventListener('change', sync);
  reason.addEventListener('input', sync);
  cancel.addEventListener('click', () => dialog.close());
  reset.addEventListener('click', () => {
    reset.disabled = true;
    app.api.estopReset({ acknowledged: true, reason: reason.value.trim() }).then(show, (e: unknown) => {
      sync();
      err.textContent = errorText(e);
    });
  });

  app.onEvent((e: ApiEvent) => {
    if (e.topic === 'estop') show(e.state);
  });
  app.api.estopState().then(show, (e: unknown) => app.notify(`E-STOP state unknown: ${errorText(e)}`, 'error'));
  const header = el('span', { class: 'estop-box', id: 'estop-box' }, latch, button);
  keepReachable(header);
  return { header, dialog, fire };
}

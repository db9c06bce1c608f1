/**
 * The escalation dialog: modal (nothing else can be clicked but the E-STOP), cannot be dismissed
 * with Esc or by clicking outside, and a decision needs a typed reason — both go to the audit log.
 */
import type { ConsoleEscalation as Escalation } from '../../../main/contract/api.js';
import type { DECISIONS } from '../../../main/contract/defaults.js';
import { type App, el } from '../app.js';

type MissionDecision = (typeof DECISIONS)[number];
import { errorText } from '../api.js';
import { linkNodes } from '../graph/node-links.js';
import { showModal } from '../modal.js';
import { reasonProblem } from '../../../main/contract/reason.js';

export interface EscalationDialog {
  readonly element: HTMLDialogElement;
  open(run: string, e: Escalation): void;
  close(): void;
  /** The reason typed so far while the dialog is open (an E-STOP keeps it in the record), else null. */
  pendingReason(): string | null;
}

export function escalationDialog(app: App): EscalationDialog {
  const message = el('p', { id: 'escalation-message', class: 'escalation-message' });
  const failures = el('ol', { id: 'escalation-failures', class: 'failures' });
  const reason = el('textarea', {
    id: 'escalation-reason',
    rows: '3',
    placeholder: 'Why? (required — recorded in the audit log)',
  });
  const abort = el('button', { id: 'decide-abort', class: 'danger', disabled: '' }, 'Abort mission');
  const retry = el('button', { id: 'decide-retry', disabled: '' }, 'Retry (grant another R replans)');
  const skip = el(
    'button',
    { id: 'decide-skip', disabled: '', hidden: '', title: 'Skip this subtask and go on with the next (the tool loop)' },
    'Skip the subtask',
  );
  const err = el('div', { class: 'error', role: 'alert' });
  // The header's E-STOP stays in reach above the dialog (modal.ts); the dialog carries one beside its
  // decisions too, where the operator's eyes are.
  const estop = el(
    'button',
    { id: 'escalation-estop', class: 'estop', title: 'Emergency stop (F9): your reason above is kept in the record' },
    'E-STOP (F9)',
  );
  estop.addEventListener('click', () => app.post({ kind: 'estop' }));
  const dialog = el(
    'dialog',
    { id: 'escalation', 'aria-labelledby': 'escalation-title' },
    el('h2', { id: 'escalation-title' }, 'The mission needs a decision'),
    message,
    el('h4', {}, 'Failure records'),
    failures,
    el('label', { class: 'field' }, el('span', {}, 'Reason'), reason),
    err,
    el('div', { class: 'buttons' }, retry, skip, abort, el('span', { class: 'spacer' }), estop),
  );
  let current: { run: string; escalation: Escalation } | null = null;

  // Esc must not dismiss it: the mission waits for a decision (the E-STOP, F9, answers it itself).
  dialog.addEventListener('cancel', (e) => e.preventDefault());
  const sync = (): void => {
    const problem = reasonProblem(reason.value.trim());
    const ok = problem === null;
    err.textContent = problem !== null && reason.value !== '' ? `The reason ${problem}.` : '';
    abort.disabled = !ok;
    retry.disabled = !ok;
    skip.disabled = !ok;
  };
  reason.addEventListener('input', sync);
  const decide = (decision: MissionDecision): void => {
    if (current === null) return;
    const c = current;
    abort.disabled = retry.disabled = skip.disabled = true;
    app.api.escalationDecide({ run: c.run, escalation: c.escalation.id, decision, reason: reason.value.trim() }).then(
      (r) => {
        if (!r.accepted) err.textContent = 'This escalation was already answered or the mission ended.';
        close();
      },
      (e: unknown) => {
        sync();
        err.textContent = errorText(e);
      },
    );
  };
  abort.addEventListener('click', () => decide('abort'));
  retry.addEventListener('click', () => decide('retry'));
  skip.addEventListener('click', () => decide('skip'));

  function close(): void {
    current = null;
    if (dialog.open) dialog.close();
  }

  return {
    element: dialog,
    open(run, escalation) {
      // Already open on it (a window joining a run learns of it twice): what the operator typed stays.
      if (current !== null && current.escalation.id === escalation.id && dialog.open) return;
      current = { run, escalation };
      message.textContent = escalation.reason;
      // The choices are the escalation's own: a mission's are abort and retry, the tool loop's add skip.
      skip.hidden = !escalation.options.includes('skip');
      retry.hidden = !escalation.options.includes('retry');
      failures.replaceChildren(
        ...escalation.failures.map((f) =>
          el(
            'li',
            {},
            f.source === 'mission'
              ? `t=${f.t} ${f.kind} ${f.from} → ${f.to}: ${f.rule}`
              : `${f.tool}: ${f.stage} "${f.violated}" failed → ${f.label} (${f.class})`,
          ),
        ),
      );
      // Node ids in the records open the Graph tab on the node; the dialog waits to be brought back.
      const reopen = (): void => {
        if (current === null || dialog.open) return;
        app.post({ kind: 'show-tab', tab: 'mission' });
        showModal(dialog);
      };
      linkNodes(failures, (id) => {
        dialog.close();
        app.post({ kind: 'focus-node', id, back: { label: 'Back to the escalation', action: reopen } });
      });
      reason.value = '';
      err.textContent = '';
      sync();
      if (!dialog.open) showModal(dialog);
      reason.focus();
    },
    close,
    pendingReason: () => (current !== null && reason.value.trim() !== '' ? reason.value.trim() : null),
  };
}

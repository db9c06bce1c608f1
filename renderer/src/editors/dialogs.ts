/** Small modal dialogs for the editors: a question with choices, and a file name. */
import { el } from '../app.js';
import { showModal } from '../modal.js';

export interface Choice {
  id: string;
  label: string;
  primary?: boolean;
}

function modal(
  title: string,
  body: (Node | string)[],
  buttons: HTMLButtonElement[],
  onCancel: () => void,
): HTMLDialogElement {
  const dialog = el(
    'dialog',
    { class: 'editors-dialog' },
    el('h3', {}, title),
    ...body,
    el('div', { class: 'dialog-buttons' }, ...buttons),
  );
  // Esc or the browser closing the dialog counts as the cancel choice.
  dialog.addEventListener('cancel', (e) => {
    e.preventDefault();
    onCancel();
  });
  showModal(dialog);
  return dialog;
}

/** Asks a question; resolves to the chosen id, or `cancelId` when the dialog is dismissed. */
export function choose(title: string, message: string, choices: Choice[], cancelId = 'cancel'): Promise<string> {
  return new Promise((resolve) => {
    let dialog: HTMLDialogElement | null = null;
    const finish = (id: string): void => {
      dialog?.close();
      dialog?.remove();
      resolve(id);
    };
    const buttons = choices.map((c) => {
      const b = el('button', { type: 'button', 'data-choice': c.id, class: c.primary ? 'primary' : '' }, c.label);
      b.addEventListener('click', () => finish(c.id));
      return b;
    });
    dialog = modal(title, [el('p', {}, message)], buttons, () => finish(cancelId));
    (buttons.find((_, i) => choices[i]!.primary) ?? buttons[0])?.focus();
  });
}

/**
 * Asks for a workspace-relative file path; resolves to it, or null when cancelled. `check`
 * returns why a path is not acceptable (shown under the field), or null.
 */
export function askPath(
  title: string,
  message: string,
  initial: string,
  check: (p: string) => string | null,
): Promise<string | null> {
  return new Promise((resolve) => {
    let dialog: HTMLDialogElement | null = null;
    const input = el('input', {
      type: 'text',
      class: 'path-input',
      spellcheck: 'false',
      value: initial,
      'aria-label': 'File path',
    });
    const why = el('div', { class: 'error path-error', role: 'alert' });
    const finish = (value: string | null): void => {
      dialog?.close();
      dialog?.remove();
      resolve(value);
    };
    const ok = el('button', { type: 'button', class: 'primary', 'data-choice': 'ok' }, 'OK');
    const cancel = el('button', { type: 'button', 'data-choice': 'cancel' }, 'Cancel');
    const submit = (): void => {
      const p = input.value.trim();
      const problem = check(p);
      if (problem !== null) {
        why.textContent = problem;
        input.focus();
        return;
      }
      finish(p);
    };
    ok.addEventListener('click', submit);
    cancel.addEventListener('click', () => finish(null));
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        submit();
      }
    });
    dialog = modal(title, [el('p', {}, message), input, why], [ok, cancel], () => finish(null));
    input.focus();
    // Select the name, not the folder, so typing replaces it.
    const slash = initial.lastIndexOf('/') + 1;
    const dot = initial.lastIndexOf('.');
    input.setSelectionRange(slash, dot > slash ? dot : initial.length);
  });
}

/** Why a workspace path is not acceptable, or null (the server checks again; this is for quick feedback). */
export function pathProblem(p: string): string | null {
  if (p === '') return 'Enter a file name, e.g. specs/patrol.ltl';
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.startsWith('\\'))
    return 'Give a path relative to the workspace folder';
  if (p.split(/[\\/]/).includes('..')) return "'..' is not allowed: files stay inside the workspace folder";
  if (p.endsWith('/')) return 'That is a folder; add a file name';
  return null;
}

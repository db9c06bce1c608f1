/**
 * Modal dialogs that leave the E-STOP in reach. A native modal dialog (showModal) makes everything
 * outside it inert, the header's E-STOP included, so an operator with a dialog open could not stop
 * the robot with the mouse. These dialogs are shown non-modally and made modal here: everything but
 * the topmost dialog and what must stay in reach (the E-STOP) is inert, a backdrop dims the window
 * under the dialog, the E-STOP sits above both, and Esc asks the topmost dialog to cancel as a
 * native modal one would. Dialogs stack: the newest is on top, the others wait under the backdrop.
 */

const stack: HTMLDialogElement[] = [];
/** Elements every dialog leaves in reach (the header's E-STOP box). */
const reachable = new Set<HTMLElement>();
/** Elements made inert here (and only those are released). */
const madeInert = new Set<HTMLElement>();
/** Where the focus was when each dialog opened: it goes back there when the dialog closes. */
const returnFocus = new WeakMap<HTMLDialogElement, Element | null>();
const watched = new WeakSet<HTMLDialogElement>();
let backdrop: HTMLElement | null = null;
let keyBound = false;

/** Keeps `e` usable above every modal dialog (the E-STOP). */
export function keepReachable(e: HTMLElement): void {
  reachable.add(e);
  e.classList.add('above-modal');
  update();
}

/** Shows `dialog` as a modal dialog on top of any open one; `dialog.close()` closes it as usual. */
export function showModal(dialog: HTMLDialogElement): void {
  bindKeys();
  // At the top of the document: no panel that hides (another tab shown) can hide an open dialog.
  if (dialog.parentElement !== document.body) document.body.append(dialog);
  if (!watched.has(dialog)) {
    watched.add(dialog);
    new MutationObserver(update).observe(dialog, { attributes: true, attributeFilter: ['open'] });
  }
  const at = stack.indexOf(dialog);
  if (at >= 0) stack.splice(at, 1);
  else returnFocus.set(dialog, document.activeElement);
  stack.push(dialog);
  dialog.classList.add('modal');
  dialog.setAttribute('aria-modal', 'true');
  if (!dialog.open) dialog.show();
  update();
  if (!dialog.contains(document.activeElement)) firstFocusable(dialog)?.focus();
}

/** The modal dialogs open now, the topmost last. */
function openModals(): readonly HTMLDialogElement[] {
  return stack.filter((d) => d.open && d.isConnected);
}

function update(): void {
  for (let i = stack.length - 1; i >= 0; i--) {
    const d = stack[i]!;
    if (d.open && d.isConnected) continue;
    stack.splice(i, 1);
    d.removeAttribute('data-modal-top');
    const back = returnFocus.get(d);
    returnFocus.delete(d);
    if (
      back instanceof HTMLElement &&
      back.isConnected &&
      (document.activeElement === null ||
        document.activeElement === document.body ||
        d.contains(document.activeElement))
    ) {
      // After the inert marks below are updated: the element may be inert until then.
      queueMicrotask(() => back.focus());
    }
  }
  for (const e of madeInert) e.inert = false;
  madeInert.clear();
  const top = stack[stack.length - 1];
  for (const d of stack) d.toggleAttribute('data-modal-top', d === top);
  const b = backdropElement();
  b.hidden = top === undefined;
  document.body.toggleAttribute('data-modal', top !== undefined);
  if (top === undefined) return;
  inertAround([top, ...reachable].filter((e) => e.isConnected));
}

/** Makes inert every element that holds none of `keep`: the siblings of each along its path up to the body. */
function inertAround(keep: readonly HTMLElement[]): void {
  const onPath = new Set<Element>(keep);
  const ancestors = new Set<Element>();
  for (const k of keep) {
    for (let p = k.parentElement; p !== null; p = p.parentElement) {
      onPath.add(p);
      ancestors.add(p);
    }
  }
  for (const a of ancestors) {
    for (const c of a.children) {
      if (onPath.has(c) || !(c instanceof HTMLElement) || c.inert || c === backdrop) continue;
      c.inert = true;
      madeInert.add(c);
    }
  }
}

function backdropElement(): HTMLElement {
  if (backdrop === null || !backdrop.isConnected) {
    backdrop = document.createElement('div');
    backdrop.className = 'modal-backdrop';
    backdrop.id = 'modal-backdrop';
    backdrop.hidden = true;
    document.body.append(backdrop);
  }
  return backdrop;
}

function firstFocusable(root: HTMLElement): HTMLElement | null {
  return root.querySelector<HTMLElement>(
    '[autofocus], input:not([disabled]), textarea:not([disabled]), select:not([disabled]), button:not([disabled]), [tabindex]:not([tabindex="-1"])',
  );
}

/** Esc asks the topmost dialog to cancel (its 'cancel' listeners may refuse), as a native modal dialog does. */
function bindKeys(): void {
  if (keyBound) return;
  keyBound = true;
  window.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || e.defaultPrevented) return;
    const top = openModals().at(-1);
    if (top === undefined) return;
    e.preventDefault();
    const cancel = new Event('cancel', { cancelable: true });
    if (top.dispatchEvent(cancel)) top.close();
  });
}

/**
 * "Train models…": a model bundle for the chosen world, trained in main (a worker thread) from a
 * fresh dataset. Progress and Cancel are in the status bar like every job; the new bundle joins
 * the world's models list when it is written.
 */
import { BUNDLE_NAME_PATTERN, TRAIN_DEFAULTS } from '../../../main/contract/defaults.js';
import { type App, el } from '../app.js';
import { errorText } from '../api.js';
import { showModal } from '../modal.js';

export interface TrainDialog {
  readonly element: HTMLDialogElement;
  open(world: string): void;
}

export function trainDialog(app: App, trained: (world: string, models: string) => void): TrainDialog {
  const name = el('input', {
    id: 'train-name',
    placeholder: 'e.g. medium-quick',
    pattern: BUNDLE_NAME_PATTERN.slice(1, -1),
  });
  const data = el('input', {
    id: 'train-dataset-steps',
    type: 'number',
    min: '1000',
    value: String(TRAIN_DEFAULTS.datasetSteps),
  });
  const embed = el('input', {
    id: 'train-embed-steps',
    type: 'number',
    min: '1',
    value: String(TRAIN_DEFAULTS.embedSteps),
  });
  const policy = el('input', {
    id: 'train-policy-steps',
    type: 'number',
    min: '1',
    value: String(TRAIN_DEFAULTS.policySteps),
  });
  const err = el('div', { class: 'error', role: 'alert', id: 'train-error' });
  const start = el('button', { id: 'train-start', class: 'primary' }, 'Start training');
  const cancel = el('button', { id: 'train-close' }, 'Close');
  const title = el('h2', {}, 'Train models');
  const dialog = el(
    'dialog',
    { id: 'train' },
    title,
    el(
      'p',
      { class: 'muted' },
      'Trains ψ (embedding) and π_low (policy) on a new navigate dataset and writes the bundle to the workspace. With the defaults this takes tens of minutes; progress and Cancel are in the status bar.',
    ),
    el('label', { class: 'field' }, el('span', {}, 'Name'), name),
    el('label', { class: 'field' }, el('span', {}, 'Dataset steps'), data),
    el('label', { class: 'field' }, el('span', {}, 'Embedding steps'), embed),
    el('label', { class: 'field' }, el('span', {}, 'Policy steps'), policy),
    err,
    el('div', { class: 'buttons' }, cancel, start),
  );
  let world = '';
  cancel.addEventListener('click', () => dialog.close());
  start.addEventListener('click', () => {
    err.textContent = '';
    if (!new RegExp(BUNDLE_NAME_PATTERN).test(name.value)) {
      err.textContent = 'Name: letters, digits, ".", "_" and "-", starting with a letter or digit.';
      name.focus();
      return;
    }
    const w = world,
      n = name.value;
    dialog.close();
    app.notify(`Training ${n} for ${w}…`);
    app.api
      .trainModels({
        job: `train-${Date.now()}`,
        world: w,
        name: n,
        datasetSteps: Number(data.value),
        embedSteps: Number(embed.value),
        policySteps: Number(policy.value),
      })
      .then(
        (r) => {
          app.notify(`Trained ${r.models} (${r.dir})`);
          trained(w, r.models);
        },
        (e: unknown) => app.notify(`Training ${n}: ${errorText(e)}`, 'error'),
      );
  });
  return {
    element: dialog,
    open(w) {
      world = w;
      title.textContent = `Train models for ${w}`;
      err.textContent = '';
      showModal(dialog);
      name.focus();
    },
  };
}

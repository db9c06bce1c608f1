/**
 * The Editors panel. Monaco is most of the renderer's code, so it loads the first time the panel
 * is shown, not with the window: the rest of the workbench is up without waiting for it.
 */
import { type App, type Panel, el } from '../app.js';
import { errorText } from '../api.js';
import type { EditorsView } from './view.js';

export function editorsPanel(): Panel {
  let root: HTMLElement | null = null;
  let app: App | null = null;
  let view: EditorsView | null = null;
  let loading: Promise<void> | null = null;

  const load = (): Promise<void> => {
    loading ??= import('./view.js').then(
      ({ EditorsView }) => {
        root!.replaceChildren();
        view = new EditorsView(root!, app!);
        view.shown();
      },
      (e: unknown) => {
        loading = null;
        root!.replaceChildren(el('p', { class: 'error' }, `The editors did not load: ${errorText(e)}`));
      },
    );
    return loading;
  };

  return {
    id: 'editors',
    title: 'Editors',
    mount(r, a) {
      root = r;
      app = a;
      r.append(el('p', { class: 'editors-loading' }, 'Loading the editors…'));
    },
    shown() {
      if (view !== null) view.shown();
      else void load();
    },
    // Nothing can be edited before the view exists.
    dirty: () => view?.dirty() ?? false,
  };
}

/** The Editors panel. */
import { type Panel, el } from '../app.js';

export function editorsPanel(): Panel {
  return {
    id: 'editors',
    title: 'Editors',
    mount(root) {
      root.append(el('p', { class: 'placeholder' }, 'Editors: coming with this issue.'));
    },
  };
}

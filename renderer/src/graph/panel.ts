/** The Graph panel. */
import { type Panel, el } from '../app.js';

export function graphPanel(): Panel {
  return {
    id: 'graph',
    title: 'Graph',
    mount(root) {
      root.append(el('p', { class: 'placeholder' }, 'Graph: coming with this issue.'));
    },
  };
}

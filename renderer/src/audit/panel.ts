/** The Audit panel. */
import { type Panel, el } from '../app.js';

export function auditPanel(): Panel {
  return {
    id: 'audit',
    title: 'Audit',
    mount(root) {
      root.append(el('p', { class: 'placeholder' }, 'Audit: coming with this issue.'));
    },
  };
}

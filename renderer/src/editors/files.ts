/** The workspace's file list: folders as headings, a dirty marker on files with unsaved edits. */
import type { WorkspaceFile } from '../../../main/contract/api.js';
import { el } from '../app.js';

export class FileList {
  readonly element: HTMLElement;
  private readonly list = el('ul', { class: 'editors-file-list', role: 'listbox', 'aria-label': 'Workspace files' });
  private readonly rootLine = el('div', { class: 'editors-root' });
  private readonly buttons = new Map<string, HTMLButtonElement>();

  constructor(open: (path: string) => void, create: () => void, refresh: () => void) {
    const add = el(
      'button',
      { type: 'button', id: 'editors-new', title: 'Create a file in the workspace' },
      'New file',
    );
    const again = el('button', { type: 'button', id: 'editors-refresh', title: 'List the workspace again' }, '⟳');
    add.addEventListener('click', create);
    again.addEventListener('click', refresh);
    this.element = el(
      'aside',
      { class: 'editors-files' },
      el(
        'div',
        { class: 'editors-files-head' },
        el('strong', {}, 'Workspace'),
        el('span', { class: 'spacer' }),
        add,
        again,
      ),
      this.rootLine,
      this.list,
    );
    this.list.addEventListener('click', (e) => {
      const b = (e.target as HTMLElement).closest<HTMLButtonElement>('button[data-path]');
      if (b !== null) open(b.dataset.path!);
    });
  }

  render(root: string, files: WorkspaceFile[], truncated: boolean): void {
    // Marks keep the path's slashes in place under the right-to-left trick that elides its start.
    this.rootLine.textContent = `\u200e${root}\u200e`;
    this.rootLine.title = root;
    this.buttons.clear();
    const items: HTMLElement[] = [];
    let folder = '';
    for (const f of files) {
      const slash = f.path.lastIndexOf('/');
      const dir = slash < 0 ? '' : f.path.slice(0, slash);
      if (dir !== folder) {
        folder = dir;
        if (dir !== '') items.push(el('li', { class: 'editors-folder' }, `${dir}/`));
      }
      const b = el(
        'button',
        { type: 'button', class: 'editors-file', 'data-path': f.path, title: `${f.path} (${f.size} bytes)` },
        el('span', { class: 'name' }, f.path.slice(slash + 1)),
        el('span', { class: 'dot', 'aria-hidden': 'true' }, '●'),
      );
      if (dir !== '') b.classList.add('nested');
      this.buttons.set(f.path, b);
      items.push(el('li', {}, b));
    }
    if (files.length === 0) items.push(el('li', { class: 'editors-none' }, 'No files yet: create one with New file.'));
    if (truncated) items.push(el('li', { class: 'editors-none' }, `Only the first ${files.length} files are listed.`));
    this.list.replaceChildren(...items);
  }

  /** Marks the open file and the files with unsaved edits. */
  mark(active: string | null, dirty: ReadonlySet<string>): void {
    for (const [path, b] of this.buttons) {
      b.classList.toggle('active', path === active);
      b.setAttribute('aria-selected', String(path === active));
      b.classList.toggle('dirty', dirty.has(path));
    }
  }
}

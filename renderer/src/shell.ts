/**
 * The window: a header with the tabs, the connection state and the emergency stop (always visible,
 * bound to F9 everywhere, including inside the editors; latched until an acknowledged reset, and the
 * latch shown on every tab), the panels, and a status bar with job progress and notices.
 */
import type { ApiEvent, ConsoleEscalation, JobEvent } from '../../main/contract/api.js';
import { type App, type LocalMessage, type Panel, type TabId, el } from './app.js';
import { errorText } from './api.js';
import { estopControls } from './estop.js';
import { escalationDialog } from './console/escalation.js';

export interface ShellOptions {
  panels: Panel[];
}

export function mountShell(root: HTMLElement, app: Omit<App, 'post' | 'onMessage' | 'notify'>, o: ShellOptions): App {
  const hub = new Set<(m: LocalMessage) => void>();
  const status = el('div', { class: 'status', id: 'status', role: 'status' });
  const jobs = el('div', { class: 'jobs', id: 'jobs' });
  // The status line is per tab: each panel's notices stay with it and show when it does; the
  // window's own (the E-STOP, jobs) show on every tab until something newer replaces them. A panel
  // clears its line (an empty notice) when what it said no longer applies.
  const lines = new Map<TabId | '*', { text: string; kind: 'info' | 'error'; n: number }>();
  let lineN = 0;
  let showing: TabId | null = null;
  const renderStatus = (): void => {
    const mine = showing !== null ? lines.get(showing) : undefined,
      all = lines.get('*');
    const line = mine === undefined ? all : all === undefined || mine.n > all.n ? mine : all;
    status.textContent = line?.text ?? '';
    status.dataset.kind = line?.kind ?? 'info';
  };
  const notifyAt = (tab: TabId | '*', text: string, kind: 'info' | 'error' = 'info'): void => {
    if (text === '') lines.delete(tab);
    else lines.set(tab, { text, kind, n: ++lineN });
    renderStatus();
  };
  const notify = (text: string, kind: 'info' | 'error' = 'info'): void => notifyAt('*', text, kind);
  const full: App = {
    ...app,
    post: (m) => {
      for (const l of [...hub]) l(m);
    },
    onMessage: (l) => {
      hub.add(l);
      return () => hub.delete(l);
    },
    notify,
  };

  // One escalation dialog for every run (missions and tool loops): whatever tab is showing.
  const escalation = escalationDialog(full);
  let escalated: string | null = null;
  const estop = estopControls(full, {
    fire: async () => {
      // A reason the operator was typing in the escalation dialog is kept in the record.
      const note = escalation.pendingReason();
      const { stopped } = await app.api.emergencyStop(note !== null ? { note } : {});
      return { stopped: stopped.length, note };
    },
  });

  const tabs = el('nav', { class: 'tabs', role: 'tablist' });
  const body = el('main', { class: 'panels' });
  const views = new Map<TabId, { panel: Panel; root: HTMLElement; button: HTMLButtonElement }>();
  const show = (id: TabId): void => {
    for (const [tid, v] of views) {
      const on = tid === id;
      v.root.hidden = !on;
      v.button.setAttribute('aria-selected', String(on));
    }
    showing = id;
    renderStatus();
    views.get(id)?.panel.shown?.();
  };
  for (const panel of o.panels) {
    const button = el('button', { role: 'tab', id: `tab-${panel.id}`, 'data-tab': panel.id }, panel.title);
    const proot = el('section', { class: `panel panel-${panel.id}`, id: `panel-${panel.id}`, role: 'tabpanel' });
    button.addEventListener('click', () => show(panel.id));
    tabs.append(button);
    body.append(proot);
    views.set(panel.id, { panel, root: proot, button });
  }
  const conn = el('span', { class: 'conn', id: 'conn' }, app.info.transport === 'web' ? 'web mode' : 'desktop');
  const ros2 = ros2Badge(app, notify);
  const header = el(
    'header',
    { class: 'top' },
    el('span', { class: 'brand' }, 'Witness'),
    tabs,
    el('span', { class: 'spacer' }),
    ros2,
    conn,
    estop.header,
  );
  root.append(header, body, el('footer', { class: 'bottom' }, jobs, status), estop.dialog, escalation.element);

  const onJob = jobProgress(app, jobs, notify);
  const escalate = (run: string, e: ConsoleEscalation): void => {
    escalated = run;
    escalation.open(run, e);
  };
  app.onEvent((e: ApiEvent) => {
    if (e.topic === 'job') onJob(e);
    if (e.topic === 'mission.escalation') escalate(e.run, e.escalation);
    if (e.topic === 'mission.state' && e.run === escalated && e.state !== 'escalated') {
      escalated = null;
      escalation.close();
    }
  });
  full.onMessage((m) => {
    if (m.kind === 'show-tab') show(m.tab);
    if (m.kind === 'estop') estop.fire();
    if (m.kind === 'escalation') escalate(m.run, m.escalation);
  });
  window.addEventListener('beforeunload', (e) => {
    if (o.panels.some((p) => p.dirty?.() === true)) e.preventDefault();
  });

  for (const v of views.values())
    v.panel.mount(v.root, { ...full, notify: (text, kind) => notifyAt(v.panel.id, text, kind) });
  show(o.panels[0]!.id);
  return full;
}

/** The ROS 2 backend is optional: the header says whether it can be used here and, if not, exactly what to do. */
function ros2Badge(app: Omit<App, 'post' | 'onMessage' | 'notify'>, notify: App['notify']): HTMLElement {
  const ros2 = el('span', { class: 'ros2', id: 'ros2' }, 'ROS 2: …');
  app.api.ros2Status().then(
    (s) => {
      ros2.textContent = s.available ? `ROS 2 ${s.distro}` : 'ROS 2: not available';
      ros2.title = s.available
        ? `rclnodejs ${s.version ?? '(version unknown)'}`
        : `${s.message}. Fix: ${s.fix}. The embedded MuJoCo worlds work without it.`;
      ros2.dataset.available = String(s.available);
      ros2.addEventListener('click', () => notify(ros2.title, s.available ? 'info' : 'error'));
    },
    (e: unknown) => {
      ros2.textContent = `ROS 2: ${errorText(e)}`;
    },
  );
  return ros2;
}

/** Job progress: one line per running job, with its cancel button; returns the handler of job events. */
function jobProgress(
  app: Omit<App, 'post' | 'onMessage' | 'notify'>,
  jobs: HTMLElement,
  notify: App['notify'],
): (e: JobEvent) => void {
  const jobRows = new Map<string, HTMLElement>();
  const onJob = (e: JobEvent): void => {
    let row = jobRows.get(e.job);
    if (row === undefined) {
      const cancel = el('button', { class: 'cancel', 'data-job': e.job }, 'Cancel');
      cancel.addEventListener('click', () => void app.api.cancelJob({ job: e.job }));
      row = el(
        'div',
        { class: 'job', 'data-job': e.job },
        el('span', { class: 'job-title' }),
        el('progress', { max: '1', value: '0' }),
        cancel,
      );
      jobRows.set(e.job, row);
      jobs.append(row);
    }
    row.querySelector('.job-title')!.textContent = `${e.title}: ${e.phase}`;
    const bar = row.querySelector('progress')!;
    bar.max = Math.max(1, e.total);
    bar.value = e.done;
    if (e.state !== 'running') {
      jobRows.delete(e.job);
      row.remove();
      if (e.state !== 'done')
        notify(`${e.title}: ${e.state}${e.message ? ` — ${e.message}` : ''}`, e.state === 'failed' ? 'error' : 'info');
    }
  };
  return onJob;
}

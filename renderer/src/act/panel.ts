/**
 * The tool loop tab: run the careful control loop (`witness act`) from the console on the tabletop
 * or a ROS 2 robot — a tool folder, a scripted plan, a goal verifier — and watch it in the step view;
 * escalations open the shared dialog, Stop and the E-STOP cancel the running skill, and the audit
 * link opens the run in the audit browser.
 */
import './act.css';
import type { ActEvent, ActOptions, ApiEvent, RunState } from '../../../main/contract/api.js';
import { type Panel, el } from '../app.js';
import { errorText } from '../api.js';
import { stepTree } from './steps.js';
import { foxgloveSwitch } from '../console/foxglove.js';

const field = (label: string, input: HTMLElement): HTMLElement =>
  el('label', { class: 'field' }, el('span', {}, label), input);

export function actPanel(): Panel {
  let reload: () => void = () => {};
  return {
    id: 'act',
    title: 'Tool loop',
    shown() {
      reload();
    },
    mount(root, a) {
      const world = el('select', { id: 'act-world' });
      const tools = el('select', { id: 'act-tools' });
      const plan = el('select', { id: 'act-plan' });
      const planner = el(
        'select',
        { id: 'act-planner' },
        el('option', { value: 'recovery' }, 'recovery (the plan, and ways past known failures)'),
        el('option', { value: 'scripted' }, 'scripted (the plan as written)'),
      );
      const goal = el('textarea', {
        id: 'act-goal',
        rows: '2',
        spellcheck: 'false',
        placeholder: 'the goal verifier: a CEL condition on the observed state',
      });
      const task = el('input', { id: 'act-task', placeholder: 'the task in words (recorded)' });
      const replans = el('input', { id: 'act-replans', type: 'number', min: '0', max: '100', value: '2' });
      const seed = el('input', { id: 'act-seed', type: 'number', min: '0', value: '0' });
      const runBtn = el('button', { id: 'act-run', class: 'primary' }, 'Run');
      const stopBtn = el('button', { id: 'act-stop', disabled: '' }, 'Stop');
      const state = el('div', { id: 'act-state', class: 'run-state' }, 'idle');
      const errors = el('div', { id: 'act-error', class: 'error', role: 'alert' });
      const summary = el('div', { id: 'act-summary', class: 'summary' });
      const auditLink = el('button', { id: 'act-audit', hidden: '' }, 'Open the run in the audit browser');
      const toolList = el('ul', { id: 'act-tool-list', class: 'act-tool-list' });
      const tree = stepTree();
      root.append(
        el(
          'div',
          { class: 'act' },
          el(
            'aside',
            { class: 'controls' },
            field('World', world),
            field('Tools (folder of tool files)', tools),
            field('Scripted plan', plan),
            field('Planner', planner),
            field('Goal verifier (CEL)', goal),
            field('Task', task),
            el('div', { class: 'row' }, field('Replans R', replans), field('Seed', seed)),
            el('div', { class: 'buttons' }, runBtn, stopBtn),
            errors,
            summary,
            auditLink,
            foxgloveSwitch(a, 'act-').element,
            el('h4', {}, 'Registered tools'),
            toolList,
          ),
          el(
            'section',
            { class: 'act-view' },
            el(
              'div',
              { class: 'view-bar' },
              state,
              el(
                'span',
                { class: 'muted' },
                'Each call: arguments → preconditions → execution → postconditions on sensor evidence → failure record → replan. Click a call to open it.',
              ),
            ),
            tree.element,
          ),
        ),
      );

      let options: ActOptions | null = null;
      let run: string | null = null;
      let auditRun: string | null = null;
      let latched = false;
      let runState: RunState | null = null;
      const fill = (select: HTMLSelectElement, items: readonly { id: string; title: string }[]): void => {
        const keep = select.value;
        select.replaceChildren(...items.map((i) => el('option', { value: i.id }, i.title)));
        if (keep !== '' && items.some((i) => i.id === keep)) select.value = keep;
      };
      reload = () => {
        a.api.actOptions().then(
          (o) => {
            const first = options === null;
            options = o;
            fill(world, o.worlds);
            fill(tools, o.tools);
            fill(plan, o.plans);
            if (first) {
              world.value = o.example.world;
              tools.value = o.example.tools;
              plan.value = o.example.plan;
              goal.value = o.example.goal;
              task.value = o.example.task;
            }
          },
          (e: unknown) => {
            errors.textContent = errorText(e);
          },
        );
      };
      reload();
      const setState = (s: RunState | null): void => {
        runState = s;
        state.textContent = s ?? 'idle';
        state.dataset.state = s ?? 'idle';
        const active = s === 'running' || s === 'paused' || s === 'escalated';
        runBtn.disabled = active || latched;
        runBtn.title = latched ? 'The E-STOP is latched: reset it (header) before anything runs' : '';
        stopBtn.disabled = !active;
      };
      a.api.estopState().then(
        (st) => {
          latched = st.latched;
          setState(runState);
        },
        () => {
          /* the header reports it */
        },
      );

      runBtn.addEventListener('click', () => {
        errors.textContent = '';
        const w = options?.worlds.find((x) => x.id === world.value);
        if (w?.problem !== undefined) {
          errors.textContent = w.problem;
          return;
        }
        runBtn.disabled = true;
        tree.reset(goal.value.trim(), task.value.trim() || goal.value.trim());
        summary.textContent = '';
        auditLink.hidden = true;
        a.api
          .actRun({
            world: world.value,
            tools: tools.value,
            ...(plan.value !== '' ? { plan: plan.value } : {}),
            planner: planner.value as 'recovery' | 'scripted',
            goal: goal.value,
            task: task.value,
            replans: Number(replans.value),
            seed: Number(seed.value),
          })
          .then(
            (r) => {
              run = r.run;
              auditRun = r.auditRun;
              // The events that came before this answer, in order.
              const mine = early.filter((m) => m.run === r.run);
              early.length = 0;
              for (const m of mine) handle(m);
              toolList.replaceChildren(
                ...r.tools.map((t) =>
                  el(
                    'li',
                    {},
                    el('strong', {}, t.name),
                    ` → ${t.skill}; pre: ${t.preconditions.join(', ') || '–'}; post: ${t.postconditions.join(', ') || '–'}`,
                  ),
                ),
              );
              if (runState === null || runState === 'finished' || runState === 'stopped' || runState === 'estopped')
                setState('running');
            },
            (e: unknown) => {
              errors.textContent = errorText(e);
              setState(runState);
            },
          );
      });
      stopBtn.addEventListener('click', () => {
        if (run === null) return;
        void a.api.actStop({ run }).catch((e: unknown) => {
          errors.textContent = errorText(e);
        });
      });
      auditLink.addEventListener('click', () => {
        if (auditRun === null) return;
        a.post({ kind: 'audit-run', run: auditRun });
        a.post({ kind: 'show-tab', tab: 'audit' });
      });

      // Events can arrive before actRun's answer: keep those of runs not yet known, and replay them.
      const early: ActEvent[] = [];
      a.onEvent((e: ApiEvent) => {
        if (e.topic === 'estop') {
          latched = e.state.latched;
          setState(runState);
          return;
        }
        if (e.topic === 'mission.state' && e.run === run) {
          setState(e.state);
          return;
        }
        if (!e.topic.startsWith('act.')) return;
        const m = e as ActEvent;
        if (run === null || m.run !== run) {
          early.push(m);
          if (early.length > 1000) early.shift();
          return;
        }
        handle(m);
      });
      const handle = (m: ActEvent): void => {
        tree.add(m);
        if (m.topic === 'act.end') {
          const c = tree.counts();
          summary.replaceChildren(
            el(
              'div',
              { class: `act-outcome-line ${m.outcome}`, id: 'act-outcome' },
              `${m.outcome === 'success' ? 'SUCCESS' : m.outcome.toUpperCase()}: ${m.reason}`,
            ),
            el(
              'div',
              { class: 'muted' },
              `${m.toolCalls} tool call(s) (${c.ok} passed, ${c.failed} failed), ${m.replans} replan(s)`,
            ),
          );
          auditLink.hidden = m.auditRun === null;
          if (runState === 'running' || runState === 'escalated') setState('finished');
          a.notify(`Tool loop: ${m.outcome}`, m.outcome === 'success' || m.outcome === 'stopped' ? 'info' : 'error');
        }
      };
    },
  };
}

/**
 * The mission console: choose a world, load a specification and regions, plan and inspect the
 * plan on the graph view, run it, pause, stop; an escalation opens a blocking dialog whose decision
 * and reason go to the audit log.
 */
import './console.css';
import type { MissionEvent, MissionPlanResult, RunState, WorldInfo } from '../../../main/contract/api.js';
import { MISSION_DEFAULTS, PLAN_METHODS, type PlanMethod } from '../../../main/contract/defaults.js';
import { type App, type Panel, el } from '../app.js';
import { errorText } from '../api.js';
import { createAutomatonView, createGraphView, type AutomatonViewHandle, type GraphViewHandle } from '../graph/view.js';
import { escalationDialog } from './escalation.js';
import { trainDialog } from './train.js';
import { createLivePlots } from './plots.js';
import { createLogPanel } from './log.js';

export interface MissionPanel extends Panel {
  emergencyStop(): Promise<string>;
}

const field = (label: string, input: HTMLElement): HTMLElement => el('label', { class: 'field' }, el('span', {}, label), input);

export function missionPanel(): MissionPanel {
  let app: App | null = null;
  let graph: GraphViewHandle | null = null;
  let automaton: AutomatonViewHandle | null = null;
  let planned: MissionPlanResult | null = null;
  let run: string | null = null;
  let runState: RunState | null = null;
  const trail: [number, number][] = [];
  let refreshFiles: () => void = () => {};
  let plots: ReturnType<typeof createLivePlots> | null = null;

  return {
    id: 'mission',
    title: 'Mission',
    shown() {
      refreshFiles();
      graph?.resize();
      automaton?.resize();
      plots?.resize();
    },
    async emergencyStop() {
      if (app === null) return 'E-STOP: nothing to stop';
      const { stopped } = await app.api.emergencyStop();
      return stopped.length > 0 ? `E-STOP: stopped ${stopped.length} mission(s)` : 'E-STOP: no mission was running';
    },
    mount(root, a) {
      app = a;
      const world = el('select', { id: 'world' });
      const models = el('select', { id: 'models' });
      const trainBtn = el('button', { id: 'train-open', title: 'Train a model bundle for this world' }, 'Train models…');
      const spec = el('textarea', { id: 'spec', rows: '3', spellcheck: 'false' });
      const regions = el('textarea', { id: 'regions', rows: '6', spellcheck: 'false' });
      const start = el('input', { id: 'start', placeholder: 'x,y (m) — default: a free cell from the seed', value: '' });
      const steps = el('input', { id: 'dataset-steps', type: 'number', min: '1000', step: '1000', value: String(MISSION_DEFAULTS.consoleDatasetSteps) });
      const seed = el('input', { id: 'seed', type: 'number', min: '0', value: String(MISSION_DEFAULTS.seed) });
      const method = el('select', { id: 'method' }, ...PLAN_METHODS.map((m) => el('option', { value: m }, m)));
      const replans = el('input', { id: 'replans', type: 'number', min: '0', max: '100', value: String(MISSION_DEFAULTS.replans) });
      const speed = el('input', { id: 'speed', type: 'number', min: '0', value: String(MISSION_DEFAULTS.consoleSpeed), title: 'simulated steps per second; 0 = as fast as possible' });
      const planBtn = el('button', { id: 'plan', class: 'primary' }, 'Plan');
      const runBtn = el('button', { id: 'run', disabled: '' }, 'Run');
      const pauseBtn = el('button', { id: 'pause', disabled: '' }, 'Pause');
      const stopBtn = el('button', { id: 'stop', disabled: '' }, 'Stop');
      const summary = el('div', { id: 'plan-summary', class: 'summary' }, 'No plan yet.');
      const errors = el('div', { id: 'mission-error', class: 'error', role: 'alert' });
      const state = el('div', { id: 'run-state', class: 'run-state' }, 'idle');
      const live = el('div', { id: 'run-live', class: 'live' });
      const logPanel = createLogPanel();
      plots = createLivePlots();
      const graphRoot = el('div', { id: 'mission-graph', class: 'graph' });
      const autoRoot = el('div', { id: 'mission-automaton', class: 'automaton' });
      const heat = el('select', { id: 'mission-heat' }, el('option', { value: '' }, 'no heat map'));
      const specFile = el('select', { id: 'spec-file', title: 'load a specification from the workspace' });
      const regionsFile = el('select', { id: 'regions-file', title: 'load regions from the workspace' });
      // Specifications and regions can come from the workspace folder (the editors save there).
      const fillFiles = (select: HTMLSelectElement, what: string, ext: RegExp, files: readonly string[]): void => {
        select.replaceChildren(el('option', { value: '' }, `load ${what} from the workspace…`), ...files.filter((f) => ext.test(f)).map((f) => el('option', { value: f }, f)));
      };
      refreshFiles = () => {
        a.api.workspaceList().then((w) => {
          const files = w.files.map((f) => f.path);
          fillFiles(specFile, 'a specification', /\.ltl$/, files);
          fillFiles(regionsFile, 'regions', /\.json$/, files);
        }, () => { /* no workspace: the selects stay empty */ });
      };
      const loadInto = (select: HTMLSelectElement, target: HTMLTextAreaElement): void => {
        select.addEventListener('change', () => {
          if (select.value === '') return;
          a.api.workspaceRead({ path: select.value }).then((r) => {
            target.value = r.text;
            errors.textContent = '';
          }, (e: unknown) => { errors.textContent = `${select.value}: ${errorText(e)}`; }).finally(() => { select.value = ''; });
        });
      };
      loadInto(specFile, spec);
      loadInto(regionsFile, regions);
      refreshFiles();
      const dialog = escalationDialog(a);
      const training = trainDialog(a, (w, m) => {
        void loadWorlds(false).then(() => {
          if (world.value === w) models.value = m;
        });
      });
      trainBtn.addEventListener('click', () => training.open(world.value));

      root.append(el('div', { class: 'console' },
        el('aside', { class: 'controls' },
          el('div', { class: 'row' }, field('World', world), field('Models (ψ, π_low)', models)), el('div', { class: 'buttons' }, trainBtn), field('Specification (LTL)', spec), specFile, field('Regions (JSON)', regions), regionsFile,
          el('div', { class: 'row' }, field('Start', start), field('Seed', seed)),
          el('div', { class: 'row' }, field('Dataset steps', steps), field('Method', method)),
          el('div', { class: 'row' }, field('Replans R', replans), field('Speed (steps/s)', speed)),
          el('div', { class: 'buttons' }, planBtn, runBtn, pauseBtn, stopBtn),
          errors, summary),
        el('section', { class: 'view' }, el('div', { class: 'view-bar' }, state, live, el('span', { class: 'spacer' }), heat), graphRoot, plots.element),
        el('aside', { class: 'side' }, el('h3', {}, 'Büchi automaton — monitor state'), autoRoot, el('h3', {}, 'Events'), logPanel.element),
      ), dialog.element, training.element);

      graph = createGraphView(graphRoot);
      automaton = createAutomatonView(autoRoot);
      heat.addEventListener('change', () => graph?.setHeat(heat.value === '' ? null : heat.value));

      const worlds = new Map<string, WorldInfo>();
      /** `fill`: also load the world's regions and example spec (not when only the models list changed). */
      const chooseWorld = (id: string, fill = true): void => {
        const w = worlds.get(id);
        if (w === undefined) return;
        models.replaceChildren(...w.models.map((m) => el('option', { value: m }, m)));
        if (!fill) return;
        if (w.regionsText !== null) regions.value = w.regionsText;
        if (w.exampleSpec !== null && spec.value.trim() === '') spec.value = w.exampleSpec;
      };
      world.addEventListener('change', () => chooseWorld(world.value));
      const loadWorlds = (fill: boolean): Promise<void> => a.api.listWorlds().then((ws) => {
        const chosen = world.value;
        world.replaceChildren();
        for (const w of ws) {
          worlds.set(w.id, w);
          world.append(el('option', { value: w.id }, `${w.title}${w.models.length === 0 ? ' (no models: train some)' : ''}`));
        }
        if (chosen !== '') world.value = chosen;
        const keep = models.value;
        chooseWorld(world.value, fill);
        if (keep !== '' && [...models.options].some((o) => o.value === keep)) models.value = keep;
      }, (e: unknown) => { errors.textContent = errorText(e); });
      void loadWorlds(true);

      a.onMessage((m) => {
        if (m.kind === 'use-spec') {
          spec.value = m.text;
          a.post({ kind: 'show-tab', tab: 'mission' });
        }
      });

      const addLog = (t: number, text: string, kind = ''): void => logPanel.add(t, text, kind);
      const setRunState = (s: RunState | null): void => {
        runState = s;
        state.textContent = s ?? 'idle';
        state.dataset.state = s ?? 'idle';
        const active = s === 'running' || s === 'paused' || s === 'escalated';
        runBtn.disabled = active || planned === null || planned.plan.status !== 'ok';
        planBtn.disabled = active;
        pauseBtn.disabled = !(s === 'running' || s === 'paused');
        pauseBtn.textContent = s === 'paused' ? 'Resume' : 'Pause';
        stopBtn.disabled = !active;
      };

      const parseStart = (): [number, number] | undefined | null => {
        const t = start.value.trim();
        if (t === '') return undefined;
        const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(t);
        return m === null ? null : [Number(m[1]), Number(m[2])];
      };

      planBtn.addEventListener('click', () => {
        errors.textContent = '';
        const s = parseStart();
        if (s === null) {
          errors.textContent = 'Start: expected "x,y" in metres, e.g. 4,20';
          start.focus();
          return;
        }
        const job = `plan-${Date.now()}`;
        planBtn.disabled = true;
        summary.textContent = 'Planning…';
        a.api.missionPlan({
          job, world: world.value, ...(models.value !== '' ? { models: models.value } : {}), spec: spec.value, regions: regions.value,
          ...(s !== undefined ? { start: s } : {}),
          method: method.value as PlanMethod, datasetSteps: Number(steps.value), seed: Number(seed.value),
        }).then((r) => {
          planned = r;
          trail.length = 0;
          graph?.setScene(r.scene);
          graph?.setPlan(r.plan);
          graph?.setTrail([]);
          graph?.setRobot(null);
          automaton?.setAutomaton(r.automaton);
          automaton?.setActive(r.automaton.states.filter((q) => q.initial).map((q) => q.id));
          heat.replaceChildren(el('option', { value: '' }, 'no heat map'), ...r.scene.propositions.map((p) => el('option', { value: p }, `heat: ${p}`)));
          const p = r.plan;
          summary.replaceChildren(
            el('div', { class: `plan-status ${p.status}` }, p.status === 'ok' ? 'Plan found' : `Infeasible: ${p.reason?.kind ?? ''}`),
            el('div', {}, p.status === 'ok'
              ? `prefix ${p.prefix.length - 1} waypoints, suffix ${p.suffix.length}; objective ${p.cost?.objective.toFixed(1) ?? '–'}; ${r.planning_ms.toFixed(1)} ms`
              : p.reason?.message ?? ''),
            el('div', { class: 'muted' }, `${r.report.nodes} nodes, ${r.report.anchors} anchors${r.report.unavailable.length > 0 ? `; unavailable: ${r.report.unavailable.join(', ')}` : ''}`),
          );
          setRunState(null);
        }, (e: unknown) => {
          summary.textContent = 'No plan.';
          errors.textContent = errorText(e);
          setRunState(runState);
        });
      });

      runBtn.addEventListener('click', () => {
        if (planned === null) return;
        errors.textContent = '';
        logPanel.clear();
        plots?.reset();
        trail.length = 0;
        a.api.missionRun({ session: planned.session, replans: Number(replans.value), speed: Number(speed.value) }).then((r) => {
          run = r.run;
          setRunState('running');
          addLog(0, `run started${r.auditRun !== null ? ` (audit run ${r.auditRun})` : ''}`);
        }, (e: unknown) => { errors.textContent = errorText(e); });
      });
      pauseBtn.addEventListener('click', () => {
        if (run === null) return;
        void a.api.missionControl({ run, action: runState === 'paused' ? 'resume' : 'pause' }).catch((e: unknown) => { errors.textContent = errorText(e); });
      });
      stopBtn.addEventListener('click', () => {
        if (run === null) return;
        void a.api.missionControl({ run, action: 'stop' }).catch((e: unknown) => { errors.textContent = errorText(e); });
      });

      a.onEvent((e) => {
        if (!e.topic.startsWith('mission.')) return;
        const m = e as MissionEvent;
        if (m.run !== run) return;
        switch (m.topic) {
          case 'mission.tick':
            trail.push([m.x, m.y]);
            graph?.setRobot({ x: m.x, y: m.y });
            if (trail.length % 10 === 0) graph?.setTrail(trail);
            automaton?.setActive(m.states);
            live.textContent = `t=${m.t}  (${m.x.toFixed(2)}, ${m.y.toFixed(2)})  {${m.labels.join(', ')}}  → ${m.target ?? '–'}`;
            a.post({ kind: 'robot', x: m.x, y: m.y, states: m.states });
            plots?.tick(m);
            break;
          case 'mission.state':
            setRunState(m.state);
            if (m.state !== 'escalated') dialog.close();
            break;
          case 'mission.event':
            addLog(m.t, m.detail, m.kind);
            break;
          case 'mission.replan':
            graph?.setScene(m.scene);
            graph?.setPlan(m.plan);
            graph?.setTrail(trail);
            addLog(m.t, `new plan: ${m.plan.prefix.length - 1} prefix, ${m.plan.suffix.length} suffix waypoints`, 'replan');
            break;
          case 'mission.escalation':
            dialog.open(m.run, m.escalation);
            break;
          case 'mission.end': {
            // The whole driven path replaces the sampled ticks; the marker goes where the robot ended.
            const tr = m.trajectory;
            if (tr.length >= 2) {
              trail.length = 0;
              for (let i = 0; i + 1 < tr.length; i += 2) trail.push([tr[i]!, tr[i + 1]!]);
              const [x, y] = trail[trail.length - 1]!;
              graph?.setRobot({ x, y });
              live.textContent = `t=${m.steps}  (${x.toFixed(2)}, ${y.toFixed(2)})  ended`;
            }
            graph?.setTrail(trail);
            addLog(m.steps, `${m.success ? 'SUCCESS' : `FAILED (${m.failureMode ?? ''})`}: ${m.message}`, m.success ? 'ok' : 'failed');
            plots?.end(m.steps, m.success ? 'succeeded' : `failed (${m.failureMode ?? ''})`);
            a.notify(`Mission ${m.success ? 'succeeded' : 'failed'}: ${m.message}`, m.success ? 'info' : 'error');
            if (runState === 'running' || runState === 'paused' || runState === 'escalated') setRunState('finished');
            break;
          }
        }
      });
    },
  };
}

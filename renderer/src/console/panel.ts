/**
 * The mission console: choose a world, load a specification and regions, plan and inspect the
 * plan on the graph view, run it, pause, stop; an escalation opens a blocking dialog whose decision
 * and reason go to the audit log. Every window is an operator station: a mission run, whichever
 * window started it, is joined from its snapshot (missionLive: state, plan, trail, plots, events)
 * and followed by its numbered events, so any window shows it and can pause, stop and E-STOP it.
 */
import './console.css';
import type {
  MissionEvent,
  MissionLive,
  MissionLiveTick,
  MissionPlanResult,
  RunState,
  WorldInfo,
} from '../../../main/contract/api.js';
import { MISSION_DEFAULTS, PLAN_METHODS, type PlanMethod } from '../../../main/contract/defaults.js';
import { type Panel, el } from '../app.js';
import { errorText } from '../api.js';
import { createAutomatonView, createGraphView, type AutomatonViewHandle, type GraphViewHandle } from '../graph/view.js';
import { drawMission } from '../graph/draw.js';
import { linkNodes } from '../graph/node-links.js';
import { trainDialog } from './train.js';
import { createLivePlots } from './plots.js';
import { modelsLabel } from './models-label.js';
import { createLogPanel } from './log.js';
import { foxgloveSwitch } from './foxglove.js';

/** Whether a run in this state is still going (running, paused, or waiting for a decision). */
const active = (st: RunState | null): boolean => st === 'running' || st === 'paused' || st === 'escalated';

const field = (label: string, input: HTMLElement): HTMLElement =>
  el('label', { class: 'field' }, el('span', {}, label), input);

/**
 * A plan's sha256 as the console shows it: short, the full value in the title (and in data-sha, for tests and tools).
 */
const shortSha = (sha: string): string => `${sha.slice(0, 12)}…`;
const shaLine = (id: string, what: string, sha: string): HTMLElement =>
  el(
    'div',
    {
      class: 'muted plan-sha',
      id,
      'data-sha': sha,
      title: `sha256 ${sha}: the plan document as served; the audit log's plan event records the same`,
    },
    `${what}, sha256 ${shortSha(sha)}`,
  );

export function missionPanel(): Panel {
  let graph: GraphViewHandle | null = null;
  let automaton: AutomatonViewHandle | null = null;
  let planned: MissionPlanResult | null = null;
  /** The mission run this window shows (joined from its snapshot, whichever window started it). */
  let run: string | null = null;
  /** The last of its events applied (MissionEvent.seq). */
  let runSeq = 0;
  let runState: RunState | null = null;
  const trail: [number, number][] = [];
  let planSeq = 0;
  /** The planned session whose plan the graph view draws (this window's, or a run's it joined). */
  let drawnSession: string | null = null;
  let restore: () => void = () => {};
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
    mount(root, a) {
      const world = el('select', { id: 'world' });
      const models = el('select', { id: 'models' });
      const mapGraph = el('select', {
        id: 'map-graph',
        title: "the robot's map graph (workspace graphs/, from `witness graph from-map`)",
      });
      const trainBtn = el(
        'button',
        { id: 'train-open', title: 'Train a model bundle for this world' },
        'Train models…',
      );
      const spec = el('textarea', { id: 'spec', rows: '3', spellcheck: 'false' });
      const regions = el('textarea', { id: 'regions', rows: '6', spellcheck: 'false' });
      const start = el('input', {
        id: 'start',
        placeholder: 'x,y (m) — default: a free cell from the seed',
        value: '',
      });
      const steps = el('input', {
        id: 'dataset-steps',
        type: 'number',
        min: '1000',
        step: '1000',
        value: String(MISSION_DEFAULTS.consoleDatasetSteps),
      });
      const seed = el('input', { id: 'seed', type: 'number', min: '0', value: String(MISSION_DEFAULTS.seed) });
      const method = el('select', { id: 'method' }, ...PLAN_METHODS.map((m) => el('option', { value: m }, m)));
      const replans = el('input', {
        id: 'replans',
        type: 'number',
        min: '0',
        max: '100',
        value: String(MISSION_DEFAULTS.replans),
      });
      const speed = el('input', {
        id: 'speed',
        type: 'number',
        min: '0',
        value: String(MISSION_DEFAULTS.consoleSpeed),
        title: 'simulated steps per second; 0 = as fast as possible',
      });
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
        select.replaceChildren(
          el('option', { value: '' }, `load ${what} from the workspace…`),
          ...files.filter((f) => ext.test(f)).map((f) => el('option', { value: f }, f)),
        );
      };
      refreshFiles = () => {
        a.api.workspaceList().then(
          (w) => {
            const files = w.files.map((f) => f.path);
            fillFiles(specFile, 'a specification', /\.ltl$/, files);
            fillFiles(regionsFile, 'regions', /\.json$/, files);
          },
          () => {
            /* no workspace: the selects stay empty */
          },
        );
      };
      const loadInto = (select: HTMLSelectElement, target: HTMLTextAreaElement): void => {
        select.addEventListener('change', () => {
          if (select.value === '') return;
          a.api
            .workspaceRead({ path: select.value })
            .then(
              (r) => {
                target.value = r.text;
                errors.textContent = '';
                checkStale();
              },
              (e: unknown) => {
                errors.textContent = `${select.value}: ${errorText(e)}`;
              },
            )
            .finally(() => {
              select.value = '';
            });
        });
      };
      loadInto(specFile, spec);
      loadInto(regionsFile, regions);
      refreshFiles();
      const modelsField = field('Models (ψ, π_low)', models);
      const graphField = field('Map graph', mapGraph);
      graphField.hidden = true;
      const training = trainDialog(a, (w, m) => {
        void loadWorlds(false).then(() => {
          if (world.value === w) models.value = m;
        });
      });
      trainBtn.addEventListener('click', () => training.open(world.value));

      root.append(
        el(
          'div',
          { class: 'console' },
          el(
            'aside',
            { class: 'controls' },
            el('div', { class: 'row' }, field('World', world), modelsField, graphField),
            el('div', { class: 'buttons' }, trainBtn),
            field('Specification (LTL)', spec),
            specFile,
            field('Regions (JSON)', regions),
            regionsFile,
            el('div', { class: 'row' }, field('Start', start), field('Seed', seed)),
            el('div', { class: 'row' }, field('Dataset steps', steps), field('Method', method)),
            el('div', { class: 'row' }, field('Replans R', replans), field('Speed (steps/s)', speed)),
            el('div', { class: 'buttons' }, planBtn, runBtn, pauseBtn, stopBtn),
            errors,
            foxgloveSwitch(a).element,
            summary,
          ),
          el(
            'section',
            { class: 'view' },
            el('div', { class: 'view-bar' }, state, live, el('span', { class: 'spacer' }), heat),
            graphRoot,
            plots.element,
          ),
          el(
            'aside',
            { class: 'side' },
            el('h3', {}, 'Büchi automaton — monitor state'),
            autoRoot,
            el('h3', {}, 'Events'),
            logPanel.element,
          ),
        ),
        training.element,
      );

      graph = createGraphView(graphRoot);
      automaton = createAutomatonView(autoRoot);
      // The maze and the automaton refit when their boxes change size (the window, the layout).
      new ResizeObserver(() => graph?.resize()).observe(graphRoot);
      new ResizeObserver(() => automaton?.resize()).observe(autoRoot);
      (window as unknown as { __witnessTest?: Record<string, unknown> }).__witnessTest ??= {};
      (window as unknown as { __witnessTest: Record<string, unknown> }).__witnessTest.mission = { graph, automaton };
      heat.addEventListener('change', () => graph?.setHeat(heat.value === '' ? null : heat.value));

      // A plan is bound to the inputs it was made from: when any of them changes, it is stale and
      // Run is disabled until a new plan is made (Run executes exactly the plan on the screen).
      const inputs = {
        world,
        models,
        'map graph': mapGraph,
        spec,
        regions,
        start,
        'dataset steps': steps,
        seed,
        method,
      } as const;
      const snapshot = (): Record<string, string> =>
        Object.fromEntries(Object.entries(inputs).map(([k, e]) => [k, e.value]));
      let planInputs: Record<string, string> | null = null;
      let latched = false;
      const stale = el('div', { id: 'plan-stale', class: 'stale', role: 'status', hidden: '' });
      const changedSincePlan = (): string[] => {
        if (planInputs === null) return [];
        const now = snapshot();
        return Object.keys(inputs).filter((k) => now[k] !== planInputs![k]);
      };
      const checkStale = (): void => {
        const changed = changedSincePlan();
        stale.hidden = changed.length === 0;
        stale.textContent =
          changed.length === 0
            ? ''
            : `Plan is stale: ${changed.join(', ')} changed since it was made. Plan again to run.`;
        setRunState(runState);
      };
      for (const e of Object.values(inputs)) {
        e.addEventListener('input', checkStale);
        e.addEventListener('change', checkStale);
      }

      const worlds = new Map<string, WorldInfo>();
      /** `fill`: also load the world's regions and example spec (not when only the models list changed). */
      const chooseWorld = (id: string, fill = true): void => {
        const w = worlds.get(id);
        if (w === undefined) return;
        models.replaceChildren(...w.models.map((m) => el('option', { value: m, title: m }, modelsLabel(w.id, m))));
        // A robot plans on a map graph from where it is: no models, no start, no dataset.
        const robot = w.kind === 'robot';
        const keepGraph = mapGraph.value;
        mapGraph.replaceChildren(...(w.graphs ?? []).map((g) => el('option', { value: g }, g)));
        if (keepGraph !== '' && (w.graphs ?? []).includes(keepGraph)) mapGraph.value = keepGraph;
        modelsField.hidden = robot;
        graphField.hidden = !robot;
        trainBtn.hidden = robot;
        start.disabled = robot;
        steps.disabled = robot;
        seed.disabled = robot;
        speed.disabled = robot; // a robot drives at its own pace
        start.placeholder = robot ? "the robot's pose when you plan" : 'x,y (m) — default: a free cell from the seed';
        if (robot && w.problem !== undefined) errors.textContent = w.problem;
        else if (robot && (w.graphs ?? []).length === 0)
          errors.textContent =
            'No map graph in the workspace: make one with `witness graph from-map MAP.yaml --regions R.json --out <workspace>/graphs/NAME.json`';
        if (!fill) return;
        if (w.regionsText !== null) regions.value = w.regionsText;
        if (w.exampleSpec !== null && spec.value.trim() === '') spec.value = w.exampleSpec;
        checkStale();
      };
      world.addEventListener('change', () => chooseWorld(world.value));
      const loadWorlds = (fill: boolean): Promise<void> =>
        a.api.listWorlds().then(
          (ws) => {
            const chosen = world.value;
            world.replaceChildren();
            for (const w of ws) {
              worlds.set(w.id, w);
              world.append(
                el('option', { value: w.id }, `${w.title}${w.models.length === 0 ? ' (no models: train some)' : ''}`),
              );
            }
            if (chosen !== '') world.value = chosen;
            const keep = models.value;
            chooseWorld(world.value, fill);
            if (keep !== '' && [...models.options].some((o) => o.value === keep)) models.value = keep;
          },
          (e: unknown) => {
            errors.textContent = errorText(e);
          },
        );
      void loadWorlds(true).then(() => restore());

      a.onMessage((m) => {
        if (m.kind === 'use-spec') {
          spec.value = m.text;
          checkStale();
          a.notify(
            `${m.path ?? 'a specification'} sent to the mission console${m.unsaved === true ? ' (with unsaved edits)' : ''}${planned !== null && changedSincePlan().length > 0 ? ': the plan on the screen is stale' : ''}`,
          );
          a.post({ kind: 'show-tab', tab: 'mission' });
        }
      });

      const addLog = (t: number, text: string, kind = ''): void => {
        linkNodes(logPanel.add(t, text, kind), (id) => a.post({ kind: 'focus-node', id }));
      };
      const setRunState = (s: RunState | null): void => {
        runState = s;
        state.textContent = s ?? 'idle';
        state.dataset.state = s ?? 'idle';
        const going = active(s);
        const stalePlan = changedSincePlan().length > 0;
        runBtn.disabled = going || planned === null || planned.plan.status !== 'ok' || stalePlan || latched;
        runBtn.title = latched
          ? 'The E-STOP is latched: reset it (header) before anything runs'
          : stalePlan
            ? 'The plan is stale: plan again'
            : '';
        planBtn.disabled = going;
        pauseBtn.disabled = !(s === 'running' || s === 'paused');
        pauseBtn.textContent = s === 'paused' ? 'Resume' : 'Pause';
        stopBtn.disabled = !going;
      };

      /** The plan on the screen can no longer run (a robot's plan that ran, or whose robot moved). */
      const spend = (why: string): void => {
        planned = null;
        summary.append(el('div', { class: 'stale', id: 'plan-spent' }, why));
        setRunState(runState);
      };

      const parseStart = (): [number, number] | undefined | null => {
        const t = start.value.trim();
        if (t === '') return undefined;
        const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(t);
        return m === null ? null : [Number(m[1]), Number(m[2])];
      };

      planBtn.addEventListener('click', () => {
        errors.textContent = '';
        a.notify(''); // what the line said was about the last plan or run
        const s = parseStart();
        if (s === null) {
          errors.textContent = 'Start: expected "x,y" in metres, e.g. 4,20';
          start.focus();
          return;
        }
        const job = `plan-${Date.now()}`;
        const seq = ++planSeq;
        const asked = snapshot();
        // The plan on the screen goes: nothing runs until the new one is drawn.
        planned = null;
        planInputs = null;
        stale.hidden = true;
        planBtn.disabled = true;
        setRunState(runState);
        summary.textContent = 'Planning…';
        const robot = worlds.get(world.value)?.kind === 'robot';
        a.api
          .missionPlan(
            robot
              ? {
                  job,
                  world: world.value,
                  ...(mapGraph.value !== '' ? { graph: mapGraph.value } : {}),
                  spec: spec.value,
                  regions: regions.value,
                  method: method.value as PlanMethod,
                }
              : {
                  job,
                  world: world.value,
                  ...(models.value !== '' ? { models: models.value } : {}),
                  spec: spec.value,
                  regions: regions.value,
                  ...(s !== undefined ? { start: s } : {}),
                  method: method.value as PlanMethod,
                  datasetSteps: Number(steps.value),
                  seed: Number(seed.value),
                },
          )
          .then(
            (r) => {
              if (seq !== planSeq) return; // a newer plan was asked for
              if (showPlan(r, asked)) remember({ session: r.session, inputs: asked });
            },
            (e: unknown) => {
              if (seq !== planSeq) return;
              summary.textContent = 'No plan.';
              errors.textContent = errorText(e);
              setRunState(runState);
            },
          );
      });

      /**
       * Draws a plan and binds it to the inputs it was made from; false when it could not be drawn (then it is not
       * kept).
       */
      const showPlan = (r: MissionPlanResult, asked: Record<string, string>): boolean => {
        trail.length = 0;
        planned = null;
        try {
          // Kept (and Run-able) only once drawn: a plan that could not be drawn is not shown, so it cannot run.
          drawMission(graph, automaton, r.scene, r.plan, r.automaton);
        } catch (e) {
          summary.textContent = 'No plan.';
          errors.textContent = errorText(e);
          setRunState(runState);
          return false;
        }
        planned = r;
        drawnSession = r.session;
        planInputs = asked;
        a.post({ kind: 'scene', scene: r.scene, plan: r.plan, automaton: r.automaton, session: r.session });
        heat.replaceChildren(
          el('option', { value: '' }, 'no heat map'),
          ...r.scene.propositions.map((p) => el('option', { value: p }, `heat: ${p}`)),
        );
        const p = r.plan;
        summary.replaceChildren(
          el(
            'div',
            { class: `plan-status ${p.status}` },
            p.status === 'ok' ? 'Plan found' : `Infeasible: ${p.reason?.kind ?? ''}`,
          ),
          el(
            'div',
            {},
            p.status === 'ok'
              ? `prefix ${p.prefix.length - 1} waypoints, suffix ${p.suffix.length}; objective ${p.cost?.objective.toFixed(1) ?? '–'}; ${r.planning_ms.toFixed(1)} ms`
              : (p.reason?.message ?? ''),
          ),
          shaLine('plan-sha', `${r.method} plan (Run executes it)`, r.plan_sha),
          r.robot !== undefined
            ? el(
                'div',
                { class: 'muted', id: 'plan-robot' },
                `${r.report.nodes} nodes; from the robot at (${r.robot.x.toFixed(2)}, ${r.robot.y.toFixed(2)}): Run refuses this plan if the robot moves more than ${r.robot.tolerance_m} m before it starts`,
              )
            : el(
                'div',
                { class: 'muted', id: 'plan-report' },
                `${r.report.nodes} nodes${r.report.dataset !== undefined ? ` over ${r.report.dataset.transitions.toLocaleString('en')} ${r.report.dataset.regime} transitions` : ''}, ${r.report.anchors} anchors${r.report.unavailable.length > 0 ? `; unavailable: ${r.report.unavailable.join(', ')}` : ''}`,
              ),
        );
        summary.append(stale);
        checkStale();
        // A run another window started meanwhile goes on: its state stays.
        setRunState(active(runState) ? runState : null);
        return true;
      };

      // The fields and the last plan survive a reload: the fields from this browser's storage, the
      // plan from the workbench (which still holds it, unless it restarted).
      const STORE = 'witness.mission';
      const remember = (last: { session: string; inputs: Record<string, string> } | null): void => {
        try {
          const saved = JSON.parse(localStorage.getItem(STORE) ?? '{}') as Record<string, unknown>;
          localStorage.setItem(
            STORE,
            JSON.stringify({
              ...saved,
              fields: { ...snapshot(), replans: replans.value, speed: speed.value },
              ...(last !== null ? { last } : {}),
            }),
          );
        } catch {
          /* storage unavailable: nothing survives a reload */
        }
      };
      for (const e of [...Object.values(inputs), replans, speed]) e.addEventListener('change', () => remember(null));
      restore = (): void => {
        let saved: { fields?: Record<string, string>; last?: { session: string; inputs: Record<string, string> } };
        try {
          saved = JSON.parse(localStorage.getItem(STORE) ?? '{}') as typeof saved;
        } catch {
          return;
        }
        const f = saved.fields;
        if (f !== undefined) {
          if (f['world'] !== undefined && worlds.has(f['world'])) {
            world.value = f['world'];
            chooseWorld(world.value, false);
          }
          for (const [k, e] of Object.entries(inputs)) {
            if (k === 'world' || f[k] === undefined) continue;
            if (e instanceof HTMLSelectElement && ![...e.options].some((o) => o.value === f[k])) continue;
            e.value = f[k]!;
          }
          if (f['replans'] !== undefined) replans.value = f['replans'];
          if (f['speed'] !== undefined) speed.value = f['speed'];
        }
        const last = saved.last;
        if (last === undefined) return;
        a.api.missionSession({ session: last.session }).then(
          (r) => {
            if (run !== null && runSession === r.session) {
              // The run this window joined executes this very plan: it is this window's again, drawn as it runs.
              planned = r;
              planInputs = last.inputs;
              summary.replaceChildren(
                el(
                  'div',
                  { class: 'muted', id: 'plan-restored' },
                  'The last plan, kept by the workbench across the reload; it is running.',
                ),
              );
              checkStale();
              return;
            }
            if (planned === null && !active(runState) && showPlan(r, last.inputs))
              summary.prepend(
                el(
                  'div',
                  { class: 'muted', id: 'plan-restored' },
                  'The last plan, kept by the workbench across the reload.',
                ),
              );
          },
          () => {
            if (planned === null && run === null)
              summary.replaceChildren(
                el(
                  'div',
                  { class: 'muted', id: 'plan-restored' },
                  "The last plan is gone (the workbench restarted, or a robot's plan ran): plan again.",
                ),
              );
          },
        );
      };

      runBtn.addEventListener('click', () => {
        if (planned === null || changedSincePlan().length > 0 || latched) return;
        errors.textContent = '';
        a.notify('');
        // The run's events bring it to this window as to every other (join, below).
        a.api.missionRun({ session: planned.session, replans: Number(replans.value), speed: Number(speed.value) }).then(
          (r) => {
            if (run !== r.run) join(r.run);
            // A robot's plan runs once: the robot moves, so the next run needs a plan from where it is then.
            if (planned?.robot !== undefined) spend('This plan has run: plan again from where the robot is now.');
          },
          (e: unknown) => {
            errors.textContent = errorText(e);
            if ((e as { code?: string }).code === 'conflict' && planned?.robot !== undefined)
              spend('The robot has moved since this plan: plan again.');
          },
        );
      });
      pauseBtn.addEventListener('click', () => {
        if (run === null) return;
        void a.api.missionControl({ run, action: runState === 'paused' ? 'resume' : 'pause' }).catch((e: unknown) => {
          errors.textContent = errorText(e);
        });
      });
      stopBtn.addEventListener('click', () => {
        if (run === null) return;
        void a.api.missionControl({ run, action: 'stop' }).catch((e: unknown) => {
          errors.textContent = errorText(e);
        });
      });

      /** The sha of the plan in force after a replan, under the summary (one line: the latest). */
      const showReplanSha = (t: number, sha: string): void => {
        summary.querySelector('#plan-replan-sha')?.remove();
        summary.append(shaLine('plan-replan-sha', `replanned at t=${t}`, sha));
      };

      /**
       * A tick: the robot, the monitor, the plots; `post`: the Graph tab too (a joined run's past ticks go to it as one
       * trail).
       */
      const showTick = (m: MissionLiveTick, post = true): void => {
        trail.push([m.x, m.y]);
        plots?.tick(m);
        if (!post) return;
        graph?.setRobot({ x: m.x, y: m.y });
        automaton?.setActive(m.states);
        live.textContent = `t=${m.t}  (${m.x.toFixed(2)}, ${m.y.toFixed(2)})  {${m.labels.join(', ')}}  → ${m.target ?? '–'}`;
        a.post({ kind: 'robot', x: m.x, y: m.y, states: m.states, t: m.t, labels: m.labels });
      };
      const showEnd = (m: NonNullable<MissionLive['end']>, notify: boolean): void => {
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
        a.post({ kind: 'trail', points: [...trail], ended: true, auditRun: m.auditRun });
        addLog(
          m.steps,
          `${m.outcome === 'success' ? 'SUCCESS' : m.outcome === 'stopped' ? 'STOPPED' : m.outcome === 'safety' ? 'SAFETY STOP' : `FAILED (${m.failureMode ?? ''})`}: ${m.message}`,
          m.outcome === 'success' ? 'ok' : m.outcome === 'safety' ? 'failed' : m.outcome,
        );
        plots?.end(
          m.steps,
          m.outcome === 'success'
            ? 'succeeded'
            : m.outcome === 'stopped'
              ? 'stopped'
              : m.outcome === 'safety'
                ? 'safety stop'
                : `failed (${m.failureMode ?? ''})`,
        );
        if (notify && m.outcome !== 'stopped')
          a.notify(
            m.outcome === 'safety'
              ? `Safety stop: ${m.message}`
              : `Mission ${m.success ? 'succeeded' : 'failed'}: ${m.message}`,
            m.success ? 'info' : 'error',
          );
        if (runState === 'running' || runState === 'paused' || runState === 'escalated') setRunState('finished');
      };

      /** One event of the run this window shows, once (a snapshot may already hold it). */
      const apply = (m: MissionEvent): void => {
        if (m.run !== run || m.seq <= runSeq) return;
        runSeq = m.seq;
        switch (m.topic) {
          case 'mission.tick':
            showTick(m);
            if (trail.length % 10 === 0) graph?.setTrail(trail);
            break;
          case 'mission.state':
            setRunState(m.state);
            break;
          case 'mission.event':
            addLog(m.t, m.detail, m.kind);
            break;
          case 'mission.replan':
            try {
              drawMission(graph, null, m.scene, m.plan, null);
            } catch (err) {
              errors.textContent = `replan at t=${m.t}: ${errorText(err)}`;
            }
            graph?.setTrail(trail);
            a.post({
              kind: 'scene',
              scene: m.scene,
              plan: m.plan,
              automaton: shownAutomaton,
              session: runSession,
              replan: m.t,
            });
            addLog(
              m.t,
              `new plan: ${m.plan.prefix.length - 1} prefix, ${m.plan.suffix.length} suffix waypoints, sha256 ${shortSha(m.plan_sha)}`,
              'replan',
            );
            showReplanSha(m.t, m.plan_sha);
            break;
          case 'mission.end':
            showEnd(m, true);
            break;
          case 'mission.escalation':
            break; // the shell's dialog answers it, in every window
        }
      };

      /** The automaton and the planned session of the run shown (a replan keeps them). */
      let shownAutomaton: MissionPlanResult['automaton'] | null = null;
      let runSession: string | null = null;

      /** Shows a run from its snapshot: what it runs, where it stands, what happened so far. */
      const adopt = (l: MissionLive): void => {
        run = l.run;
        runSeq = l.seq;
        runSession = l.session;
        shownAutomaton = l.automaton;
        // The plan on the screen is the run's (a robot's plan is spent once it runs, but stays drawn).
        const own = drawnSession === l.session;
        drawnSession = l.session;
        logPanel.clear();
        plots?.reset();
        trail.length = 0;
        // An earlier run's replan on the screen: the plan this run executes is drawn again.
        const earlierReplan = summary.querySelector('#plan-replan-sha') !== null;
        summary.querySelector('#plan-replan-sha')?.remove();
        if (!own || l.replannedAt !== null || earlierReplan) {
          try {
            drawMission(graph, own ? null : automaton, l.scene, l.plan, own ? null : l.automaton);
          } catch (err) {
            errors.textContent = `the running mission's plan: ${errorText(err)}`;
          }
        }
        if (!own) {
          // The plan on the screen is the run's, not one this window made: Run waits for a plan of its own.
          planned = null;
          planInputs = null;
          stale.hidden = true;
          heat.replaceChildren(
            el('option', { value: '' }, 'no heat map'),
            ...l.scene.propositions.map((p) => el('option', { value: p }, `heat: ${p}`)),
          );
          summary.replaceChildren(
            el('div', { class: `plan-status ${l.plan.status}`, id: 'plan-joined' }, 'The mission running now'),
            el(
              'div',
              {},
              l.plan.status === 'ok'
                ? `prefix ${l.plan.prefix.length - 1} waypoints, suffix ${l.plan.suffix.length}; objective ${l.plan.cost?.objective.toFixed(1) ?? '–'}`
                : (l.plan.reason?.message ?? ''),
            ),
            el(
              'div',
              { class: 'muted' },
              `${l.scene.world}: planned in another window (or before this one reloaded). This window shows it and can pause, stop and E-STOP it; plan here to run a mission of your own.`,
            ),
            shaLine('plan-sha', 'the plan it started with', l.shown_sha),
          );
        }
        if (l.replannedAt !== null) showReplanSha(l.replannedAt, l.plan_sha);
        a.post({
          kind: 'scene',
          scene: l.scene,
          plan: l.plan,
          automaton: l.automaton,
          session: l.session,
          ...(l.replannedAt !== null ? { replan: l.replannedAt } : {}),
        });
        addLog(
          0,
          `run started${l.auditRun !== null ? ` (audit run ${l.auditRun})` : ''}: executing the plan shown, sha256 ${shortSha(l.shown_sha)}`,
        );
        for (const e of l.events) addLog(e.t, e.detail, e.kind);
        const last = l.ticks[l.ticks.length - 1];
        for (const t of l.ticks) showTick(t, false);
        a.post({ kind: 'trail', points: [...trail], ended: false, auditRun: l.auditRun });
        if (last !== undefined) {
          trail.pop();
          showTick(last);
        } else live.textContent = '';
        graph?.setTrail(trail);
        setRunState(l.state);
        if (l.end !== null) showEnd(l.end, false);
        if (l.escalation !== null) a.post({ kind: 'escalation', run: l.run, escalation: l.escalation });
      };

      // Joining: the snapshot, then the events that came after it (held while the snapshot is on its way).
      let joining: MissionEvent[] | null = null;
      /** Runs that are not missions (the tool loop's runs send mission.state and escalations too). */
      const notMissions = new Set<string>();
      const join = (hint: string | null, first?: MissionEvent): void => {
        if (joining !== null) return;
        joining = first !== undefined ? [first] : [];
        a.api.missionLive().then(
          ({ mission: l }) => {
            const held = joining ?? [];
            joining = null;
            if (hint !== null && l?.run !== hint) notMissions.add(hint);
            // The run asked about, or one running now; a window opened after a run ended keeps its own screen.
            if (l !== null && l.run !== run && (l.run === hint || active(l.state))) adopt(l);
            for (const m of held) apply(m);
          },
          (err: unknown) => {
            joining = null;
            errors.textContent = `the running mission: ${errorText(err)}`;
          },
        );
      };

      a.api.estopState().then(
        (st) => {
          latched = st.latched;
          setRunState(runState);
        },
        () => {
          /* the header reports it */
        },
      );
      join(null);
      a.onEvent((e) => {
        if (e.topic === 'estop') {
          latched = e.state.latched;
          setRunState(runState);
          return;
        }
        if (!e.topic.startsWith('mission.')) return;
        const m = e as MissionEvent;
        if (m.run === run) apply(m);
        else if (joining !== null) joining.push(m);
        else if (!notMissions.has(m.run)) join(m.run, m);
      });
    },
  };
}

/**
 * The tool loop in the operator console: the same `runAct` workflow as `witness act` (every tool
 * file registered against the world's vocabulary, the goal verifier and the plan checked before
 * anything moves), with the console's hooks — live steps for the step view, escalations through
 * the same dialog as missions, the operator's stop and the latching E-STOP, the session's audit log.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { reasonProblem } from '../contract/reason.js';
import { WitnessError } from '../contract/errors.js';
import type { ActEvent, ActOptions, ActRule, ActRunRequest, ActTool, Diagnostic } from '../contract/api.js';
import type { DecisionKind } from '../contract/defaults.js';
import { worldEntry } from '../backends/catalogue.js';
import { Workspace } from '../services/editor/workspace.js';
import { checkToolText } from '../services/editor/tool-check.js';
import { INPUT, readInputTextSync } from '../platform/input-files.js';
import type { AuditLog } from '../services/audit/store.js';
import { auditSink } from '../services/audit/mission-recorder.js';
import { assetPath, operatorName } from '../platform/paths.js';
import { type RegisteredTool, type RulesFileRequest, WAREHOUSE, runAct } from './act.js';
import type { RuleSet } from '../core/loop/rules.js';
import { RunControl } from './run-control.js';
import { Turns } from '../platform/event-loop.js';
import type { EmergencyStop } from './estop.js';
import type { RulesFileCheck } from './editor.js';
import { type Session, sessionOpen } from './session.js';
import { ros2Configs, workspacePaths } from './worlds.js';

/** Where the console finds tool folders and scripted plans in the workspace. */
const TOOLS_DIR = 'tools';
const PLANS_DIR = 'plans';

const SHIPPED_TOOLS = ['tools', 'ros2/tools'];
const SHIPPED_PLANS = ['plans/warehouse.json', 'plans/warehouse-rules.json', 'ros2/plans/lab-shelf-then-bench.json'];
const SHIPPED_RULES = ['rules/warehouse.rules.json'];
/** Rules files are known by their name anywhere in the workspace (docs/FORMATS.md, "Rules files"). */
const RULES_SUFFIX = '.rules.json';

/**
 * What the tool loop's console hands to the planning worker (app/plan-threads.ts), off the event loop that answers the
 * E-STOP: the Editors tab's rules check (editor.ts rulesFileCheck) and a run's rules registered (act.ts
 * registerRulesFile); translating rules can take seconds.
 */
export interface ActPlanning {
  rulesCheck(r: RulesFileCheck): Promise<{ diagnostics: Diagnostic[]; tools: string }>;
  rules(r: RulesFileRequest): Promise<RuleSet>;
}

interface ActRun {
  readonly control: RunControl;
  readonly done: Promise<void>;
}

export class ActConsole {
  private readonly runs = new Map<string, ActRun>();
  /** Each run's audit run, where the operator's stop is recorded. */
  private readonly auditRuns = new Map<string, string>();

  constructor(
    private readonly session: Session,
    private readonly estop: EmergencyStop,
    private readonly auditLog: () => Promise<AuditLog>,
    private readonly planning: ActPlanning,
  ) {}

  has(run: string): boolean {
    return this.runs.has(run);
  }

  /**
   * Tool worlds, tool folders, plans and rules files: workspace ones by their workspace path, shipped ones as
   * `shipped:<asset path>`.
   */
  async options(): Promise<ActOptions> {
    const paths = await workspacePaths(this.session.workspace);
    const worlds: ActOptions['worlds'] = [{ id: 'tabletop', title: worldEntry('tabletop').title }];
    for (const { id, shown, config, problem } of ros2Configs(this.session.workspace, paths)) {
      if (config === null) worlds.push({ id, title: `ROS 2: ${shown} (does not check)`, problem: problem! });
      else if (Object.keys(config.tools).length + Object.keys(config.services).length > 0)
        worlds.push({ id, title: `ROS 2: ${config.id} (${shown})` });
    }
    const folders = [
      ...new Set(
        paths
          .filter((p) => (p.startsWith(`${TOOLS_DIR}/`) || p.endsWith('.tool.json')) && p.endsWith('.json'))
          .map((p) => path.posix.dirname(p)),
      ),
    ].sort();
    const tools: ActOptions['tools'] = [
      ...folders.map((f) => ({ id: f, title: `${f}/` })),
      ...SHIPPED_TOOLS.map((t) => ({ id: `shipped:${t}`, title: `shipped: ${t}/` })),
    ];
    const plans: ActOptions['plans'] = [
      ...paths.filter((p) => p.startsWith(`${PLANS_DIR}/`) && p.endsWith('.json')).map((p) => ({ id: p, title: p })),
      ...SHIPPED_PLANS.map((p) => ({ id: `shipped:${p}`, title: `shipped: ${p}` })),
    ];
    const rules: ActOptions['rules'] = [
      ...paths.filter((p) => p.endsWith(RULES_SUFFIX)).map((p) => ({ id: p, title: p })),
      ...SHIPPED_RULES.map((p) => ({ id: `shipped:${p}`, title: `shipped: ${p}` })),
    ];
    return {
      worlds,
      tools,
      plans,
      rules,
      example: {
        world: WAREHOUSE.world,
        tools: `shipped:${WAREHOUSE.tools}`,
        plan: `shipped:${WAREHOUSE.plan}`,
        goal: WAREHOUSE.verify,
        task: WAREHOUSE.goal,
      },
    };
  }

  /** A folder or file that options() offers, as a path on disk; anything else is refused. */
  private async resolve(
    id: string,
    kind: 'tools' | 'plan' | 'rules',
    offered: readonly { id: string }[],
  ): Promise<string> {
    const where = { path: `$.${kind}` };
    const what = { tools: 'no tool folder', plan: 'no plan', rules: 'no rules file' }[kind];
    if (!offered.some((o) => o.id === id))
      throw new WitnessError(
        'not-found',
        `${what} "${id}" (the console offers: ${offered.map((o) => o.id).join(', ')})`,
        where,
      );
    if (id.startsWith('shipped:')) return assetPath(id.slice('shipped:'.length));
    const ws = new Workspace(this.session.workspace);
    if (kind !== 'tools') return (await ws.file(id)).file;
    const dir = path.join(this.session.workspace, id);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new WitnessError('not-found', `no folder "${id}" in the workspace`, where);
    return dir;
  }

  /**
   * A rules file's text checked as a run would register it (the Editors tab): on a tool world, against a tool folder
   * the console offers (default: the workspace's `tools/` when offered, else the example's), each problem at its
   * range.
   */
  async rulesCheck(text: string, world: string, tools?: string): Promise<{ diagnostics: Diagnostic[]; tools: string }> {
    const offered = await this.options();
    const w = offered.worlds.find((x) => x.id === world);
    if (w === undefined)
      throw new WitnessError(
        'invalid-params',
        `rules run in the tool loop: "${world}" is no tool world (known: ${offered.worlds.map((x) => x.id).join(', ')})`,
        { path: '$.world' },
      );
    if (w.problem !== undefined) throw new WitnessError('invalid-input', w.problem, { path: '$.world' });
    const id = tools ?? (offered.tools.some((t) => t.id === TOOLS_DIR) ? TOOLS_DIR : offered.example.tools);
    const dir = await this.resolve(id, 'tools', offered.tools);
    // Registering the rules translates their formulas, which can take seconds: in the planning worker.
    return this.planning.rulesCheck({ text, world, dir, tools: id });
  }

  /** The request's world checked, its tool folder (every file's problems), plan and rules file on disk. */
  private async inputs(req: ActRunRequest): Promise<{ tools: string; plan?: string; rules?: string }> {
    const offered = await this.options();
    const world = offered.worlds.find((w) => w.id === req.world);
    if (world === undefined)
      throw new WitnessError(
        'invalid-params',
        `unknown tool world "${req.world}" (known: ${offered.worlds.map((w) => w.id).join(', ')})`,
        { path: '$.world' },
      );
    if (world.problem !== undefined) throw new WitnessError('invalid-input', world.problem, { path: '$.world' });
    const tools = await this.resolve(req.tools, 'tools', offered.tools);
    const problems = await toolFolderProblems(tools, req.world);
    if (problems !== null) throw new WitnessError('invalid-input', `${req.tools}: ${problems}`, { path: '$.tools' });
    return {
      tools,
      ...(req.plan !== undefined ? { plan: await this.resolve(req.plan, 'plan', offered.plans) } : {}),
      ...(req.rules !== undefined ? { rules: await this.resolve(req.rules, 'rules', offered.rules) } : {}),
    };
  }

  /** Starts the loop; resolves once the run is recorded (nothing has moved yet), with its tools and rules. */
  async run(req: ActRunRequest): Promise<{ run: string; auditRun: string | null; tools: ActTool[]; rules: ActRule[] }> {
    this.estop.assertClear('start a tool loop');
    if ([...this.runs.values()].some((r) => r.control.active))
      throw new WitnessError('busy', 'a tool loop is already running: stop it first');
    const { tools, plan, rules } = await this.inputs(req);
    const log = await this.auditLog();
    const bus = this.session.bus;
    const emit = (e: ActEvent): void => bus.emit(e);
    const run = randomUUID();
    const control = new RunControl(run, (e) => bus.emit(e), 0);
    let n = 0;
    let auditRun: string | null = null;
    let registered: ActTool[] = [];
    let enforced: ActRule[] = [];
    let started!: () => void;
    const ready = new Promise<void>((resolve) => {
      started = resolve;
    });
    let failedEarly: unknown = null;
    const done = (async () => {
      try {
        const r = await runAct({
          world: req.world,
          open: sessionOpen(this.session),
          tools,
          ...(plan !== undefined ? { plan } : {}),
          ...(rules !== undefined ? { rules, registerRules: (r: RulesFileRequest) => this.planning.rules(r) } : {}),
          goal: req.goal,
          ...(req.task !== undefined && req.task.trim() !== '' ? { task: req.task } : {}),
          planner: req.planner ?? 'recovery',
          replans: req.replans ?? 2,
          seed: req.seed ?? 0,
          audit: log,
          operator: operatorName(),
          via: `console (${this.session.transport})`,
          meta: {
            planner: req.planner ?? 'recovery',
            goal: req.goal,
            tools: req.tools,
            plan: req.plan ?? null,
            ...(req.rules !== undefined ? { rules: req.rules } : {}),
          },
          decide: control.decide,
          signal: control.signal,
          onEvent: (kind, body) => emit({ topic: 'act.step', run, n: n++, kind, body }),
          onCall: (c) =>
            emit({
              topic: 'act.call',
              run,
              n: n++,
              tool: c.tool,
              args: c.args,
              subtask: c.subtask,
              timeout_s: c.timeout_s,
              preconditions: c.preconditions.map((p) => ({ ...p })),
            }),
          started: (id, ts, rs) => {
            auditRun = id;
            if (id !== null) this.auditRuns.set(run, id);
            registered = [...ts.values()].map(toolView);
            enforced = (rs?.rules ?? []).map(ruleView);
            started();
          },
        });
        control.finished();
        emit({
          topic: 'act.end',
          run,
          outcome: r.result.outcome,
          reason: r.result.reason,
          toolCalls: r.result.toolCalls,
          replans: r.result.replans,
          auditRun,
        });
      } catch (e) {
        failedEarly = e;
        started();
        control.stop(`the tool loop failed: ${e instanceof Error ? e.message : String(e)}`, false);
        emit({
          topic: 'act.end',
          run,
          outcome: 'error',
          reason: e instanceof Error ? e.message : String(e),
          toolCalls: 0,
          replans: 0,
          auditRun,
        });
      }
    })();
    this.runs.set(run, { control, done });
    this.estop.register(run, {
      get active() {
        return control.active;
      },
      estop: (reason) => this.stopRun(run, true, reason),
      auditRun: ready.then(() => auditRun),
    });
    await ready;
    if (failedEarly !== null && auditRun === null) {
      this.runs.delete(run);
      throw failedEarly instanceof Error ? failedEarly : new Error('the tool loop failed to start');
    }
    return { run, auditRun, tools: registered, rules: enforced };
  }

  private stopRun(run: string, emergency: boolean, why?: string): boolean {
    const r = this.runs.get(run);
    if (r === undefined || !r.control.active) return false;
    const reason = why ?? (emergency ? 'emergency stop by the operator' : 'stopped by the operator');
    void this.auditLog().then((log) => {
      const id = this.auditRuns.get(run) ?? null;
      if (id !== null)
        auditSink(log, id).event('operator_decision', {
          decision: emergency ? 'estop' : 'stop',
          reason,
          operator: operatorName(),
        });
    });
    r.control.stop(reason, emergency);
    return true;
  }

  stop(run: string): { stopped: boolean } {
    if (!this.runs.has(run)) throw new WitnessError('not-found', `no tool loop run ${run}`, { path: '$.run' });
    return { stopped: this.stopRun(run, false) };
  }

  decide(run: string, escalation: string, decision: DecisionKind, reason: string): { accepted: boolean } {
    const r = this.runs.get(run);
    if (r === undefined) throw new WitnessError('not-found', `no tool loop run ${run}`, { path: '$.run' });
    const problem = reasonProblem(reason.trim());
    if (problem !== null)
      throw new WitnessError('invalid-params', `a decision needs a reason: this one ${problem}`, { path: '$.reason' });
    if (decision !== 'abort') this.estop.assertClear(`${decision} in a tool loop`);
    return { accepted: r.control.answer(escalation, decision, reason.trim(), operatorName()) };
  }

  /**
   * Stops every running loop (`why`: recorded with each; default: the operator stopped it) and waits for them to end.
   */
  async close(why?: string): Promise<void> {
    for (const id of this.runs.keys()) this.stopRun(id, false, why);
    await Promise.all([...this.runs.values()].map((r) => r.done));
  }
}

const toolView = (t: RegisteredTool): ActTool => ({
  name: t.name,
  skill: t.skill,
  preconditions: t.preconditions.map((c) => c.name),
  postconditions: t.postconditions.map((c) => c.name),
});

const ruleView = (r: RuleSet['rules'][number]): ActRule => ({
  name: r.name,
  ltl: r.ltl,
  ...(r.description !== undefined ? { description: r.description } : {}),
});

/**
 * Every problem of every tool file in a folder, each at its file, line and column, as the editor finds them (null: none
 * found; registration then refuses what is left, such as two tools of one name). The operator fixes them all at once.
 * A folder of many tools is checked with a turn of the event loop between files once a few milliseconds have passed.
 */
async function toolFolderProblems(dir: string, world: string): Promise<string | null> {
  let v: ReturnType<typeof worldEntry>['vocabulary'];
  try {
    v = worldEntry(world).vocabulary;
  } catch {
    return null; // the run says what is wrong with the world
  }
  if (v === undefined) return null;
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return null; // registration says what is wrong with the folder
  }
  const lines: string[] = [];
  const turns = new Turns();
  for (const n of names) {
    if (turns.due()) await turns.take();
    let text: string;
    try {
      text = readInputTextSync(path.join(dir, n), INPUT.tools);
    } catch {
      continue; // registration says why it cannot be read
    }
    for (const d of checkToolText(text, v, world))
      if (d.severity === 'error') lines.push(`${n}:${d.startLine}:${d.startColumn}: ${d.message}`);
  }
  if (lines.length === 0) return null;
  return `${lines.length} problem${lines.length === 1 ? '' : 's'} in the tool files:\n${lines.join('\n')}`;
}

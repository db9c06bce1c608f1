/**
 * What every panel gets: the typed API, main's pushed events, the session info, and a small local
 * message hub so panels can hand each other work (the console's plan to the graph view, the audit
 * browser's replay to it, the editor's spec to the console).
 */
import type {
  ApiEvent,
  AppInfo,
  AutomatonView,
  ConsoleEscalation,
  GraphScene,
  PlanView,
  WitnessApi,
} from '../../main/contract/api.js';

export type LocalMessage =
  /** A mission's scene and plan (the console posts one when it plans and when a run replans, `replan` its step). */
  | {
      kind: 'scene';
      scene: GraphScene;
      plan: PlanView | null;
      automaton: AutomatonView | null;
      session?: string | null;
      replan?: number;
    }
  /** The robot of the running mission: its position, the monitor's states, the step and the labels there. */
  | { kind: 'robot'; x: number; y: number; states: number[]; t?: number; labels?: string[] }
  /**
   * The running mission's driven path: empty when a run starts (or the path so far when a window joins
   * a run), the whole path when it ends; `auditRun` the run's audit run, when known.
   */
  | { kind: 'trail'; points: [number, number][]; ended: boolean; auditRun?: string | null }
  /**
   * Show a node on the Graph tab (a node id clicked in a failure record). Without `scene`, a node of
   * the live mission; with it, a node of that scene — an audit run's (`auditRun`), shown as its own.
   */
  | {
      kind: 'focus-node';
      id: string;
      scene?: { scene: GraphScene; plan: PlanView | null; automaton: AutomatonView | null };
      auditRun?: string;
      back?: { label: string; action: () => void };
    }
  /** A mission run that a window joined is waiting for a decision: the escalation dialog opens. */
  | { kind: 'escalation'; run: string; escalation: ConsoleEscalation }
  | { kind: 'use-spec'; text: string; path: string | null; unsaved?: boolean }
  | { kind: 'show-tab'; tab: TabId }
  /** Fire the emergency stop (from a control inside a modal dialog, where the header cannot be reached). */
  | { kind: 'estop' }
  /** Open an audit run in the audit browser (the session's database). */
  | { kind: 'audit-run'; run: string };

export type TabId = 'mission' | 'act' | 'editors' | 'graph' | 'audit';

export interface App {
  readonly api: WitnessApi;
  readonly info: AppInfo;
  /** Main's events (job progress, mission ticks); returns the unsubscribe function. */
  onEvent(listener: (e: ApiEvent) => void): () => void;
  post(message: LocalMessage): void;
  onMessage(listener: (m: LocalMessage) => void): () => void;
  /** Shows a transient notice in the status bar. */
  notify(text: string, kind?: 'info' | 'error'): void;
}

export interface Panel {
  readonly id: TabId;
  readonly title: string;
  /** Builds the panel's DOM inside `root` once. */
  mount(root: HTMLElement, app: App): void;
  /** Called when the panel becomes visible (views that measure their size redraw here). */
  shown?(): void;
  /** Whether leaving the app would lose work (unsaved edits). */
  dirty?(): boolean;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

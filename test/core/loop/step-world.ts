/** Shared by the loop's tests: the tabletop's vocabulary in small, the shipped tools, the step-through's world. */
import { readFileSync } from 'node:fs';
import { parseTool, registerTools, type RegisteredTool } from '../../../main/core/loop/tools.js';
import type { Vocabulary } from '../../../main/core/loop/vocabulary.js';
import type { ToolWorld } from '../../../main/core/loop/loop.js';

export const VOCAB: Vocabulary = {
  fields: {
    'gripper.width_cm': 'number',
    'gripper.holding': 'string',
    'gripper.load_N': 'number',
    'gripper.payload_limit_N': 'number',
  },
  objects: ['red_mug', 'tray', 'red_bin', 'shelf_c4'],
  objectFields: { on: 'string', mass_kg: 'number', in_workspace: 'bool' },
  propositions: ['mug_on_tray'],
  skills: ['pick', 'place', 'move'],
};

export const asset = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../../../assets/tools/${name}`, import.meta.url), 'utf8'));
export const tools = (): Map<string, RegisteredTool> =>
  registerTools(
    ['pick.json', 'place.json'].map((f) => ({ def: parseTool(asset(f), f), file: f })),
    VOCAB,
  );

type Objects = Record<
  'red_mug' | 'tray' | 'red_bin' | 'shelf_c4',
  { on: string; mass_kg: number; in_workspace: boolean }
>;

/**
 * A deterministic stand-in for the tabletop of the seed's step-through: the first grasp at the
 * nominal approach height misses (the gripper closes on nothing, 0.0 cm); 2 cm lower it closes on
 * the mug (4.1 cm). The skill always *returns* "ok" — only the sensors tell the truth. `slip` makes
 * place drop the object on the table instead of the target (the gripper still opens).
 */
export class StepThroughWorld implements ToolWorld {
  state = {
    gripper: { width_cm: 8.0, holding: '', load_N: 0, payload_limit_N: 20 },
    objects: {
      red_mug: { on: 'table', mass_kg: 0.3, in_workspace: true },
      tray: { on: 'table', mass_kg: 0.5, in_workspace: true },
      red_bin: { on: 'floor', mass_kg: 30, in_workspace: true },
      shelf_c4: { on: 'wall', mass_kg: 0, in_workspace: true },
    },
  };
  calls: unknown[] = [];
  observations = 0;
  slip = false;
  observe(): Promise<typeof this.state> {
    this.observations++;
    return Promise.resolve(structuredClone(this.state));
  }
  execute(skill: string, args: unknown): Promise<unknown> {
    this.calls.push({ skill, args });
    const a = args as { target: string; approach_dz?: number };
    const g = this.state.gripper;
    if (skill === 'pick') {
      const obj = this.state.objects[a.target as keyof Objects];
      if (obj.mass_kg * 9.81 > g.payload_limit_N) {
        g.width_cm = 6;
        g.load_N = obj.mass_kg * 9.81;
      } else if ((a.approach_dz ?? 0) <= -0.02) {
        g.width_cm = 4.1;
        g.load_N = Math.round(obj.mass_kg * 981) / 100;
        g.holding = a.target;
        obj.on = 'gripper';
      } else {
        g.width_cm = 0.0;
        g.load_N = 0;
      }
    }
    if (skill === 'place' && g.holding !== '') {
      this.state.objects[g.holding as keyof Objects].on = this.slip ? 'table' : a.target;
      g.holding = '';
      g.width_cm = 8.0;
      g.load_N = 0;
    }
    return Promise.resolve({ status: 'ok' });
  }
}

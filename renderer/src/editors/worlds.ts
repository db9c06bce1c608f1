/**
 * The worlds files are checked against: one for specifications (a maze world, whose regions are
 * the propositions) and one for tool files (the tabletop, whose fields, objects and skills tools
 * use), each chosen in the toolbar's selector, with their vocabularies loaded once.
 */
import type { Vocabulary, WitnessApi } from '../../../main/contract/api.js';
import { MAZE_WORLDS, TABLETOP_WORLD } from '../../../main/contract/defaults.js';
import { el } from '../app.js';
import { errorText } from '../api.js';

export type Slot = 'spec' | 'tool';

export class Worlds {
  readonly select = el('select', { id: 'editors-world', 'aria-label': 'World the file is checked against' });
  private readonly chosen: Record<Slot, string> = { spec: MAZE_WORLDS[0], tool: TABLETOP_WORLD };
  private readonly pending = new Map<string, Promise<Vocabulary | null>>();
  private readonly loaded = new Map<string, Vocabulary>();

  constructor(
    private readonly api: WitnessApi,
    private readonly notify: (text: string, kind?: 'info' | 'error') => void,
    /** A vocabulary arrived (status lines). */
    private readonly arrived: () => void,
  ) {}

  /** Fills the selector: listWorlds gives the maze worlds; tool files are checked against the tabletop. */
  async list(): Promise<void> {
    let ids: string[] = [];
    try {
      ids = (await this.api.listWorlds()).map((w) => w.id);
    } catch (e) {
      this.notify(`Cannot list worlds: ${errorText(e)}`, 'error');
    }
    const all = [...new Set([...ids, TABLETOP_WORLD])];
    this.select.replaceChildren(...all.map((id) => el('option', { value: id }, id)));
    if (!all.includes(this.chosen.spec)) this.chosen.spec = all[0]!;
    void this.load(this.chosen.spec);
    void this.load(this.chosen.tool);
  }

  get(slot: Slot): string {
    return this.chosen[slot];
  }

  set(slot: Slot, world: string): void {
    this.chosen[slot] = world;
    void this.load(world);
  }

  /** The slot's vocabulary once loaded. */
  vocabulary(slot: Slot): Vocabulary | null {
    return this.loaded.get(this.chosen[slot]) ?? null;
  }

  /** Shows the slot's world in the selector, or disables it for files that are not checked. */
  show(slot: Slot | null): void {
    this.select.disabled = slot === null;
    if (slot !== null) this.select.value = this.chosen[slot];
  }

  private load(world: string): Promise<Vocabulary | null> {
    let p = this.pending.get(world);
    if (p === undefined) {
      p = this.api.worldVocabulary({ world }).then(
        (v) => {
          this.loaded.set(world, v);
          this.arrived();
          return v;
        },
        (e: unknown) => {
          this.pending.delete(world);
          this.notify(`Cannot load the vocabulary of ${world}: ${errorText(e)}`, 'error');
          return null;
        },
      );
      this.pending.set(world, p);
    }
    return p;
  }
}

/** Graph-view handlers: scenes of labelled graph files and automaton views. */
import type { SceneApi } from '../contract.js';
import type { ApiContext } from '../context.js';
import { fail } from '../failure.js';

export function sceneHandlers(_ctx: ApiContext): SceneApi {
  const todo = (): Promise<never> => Promise.reject(fail('not-implemented', 'not implemented yet'));
  return { sceneFromGraph: todo, automatonView: todo };
}

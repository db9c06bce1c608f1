/** Editor handlers: LTL and tool checking, world vocabularies, the workspace folder. */
import type { EditorApi } from '../contract.js';
import type { ApiContext } from '../context.js';
import { fail } from '../failure.js';

export function editorHandlers(_ctx: ApiContext): EditorApi {
  const todo = (): Promise<never> => Promise.reject(fail('not-implemented', 'not implemented yet'));
  return { ltlCheck: todo, toolCheck: todo, worldVocabulary: todo, workspaceList: todo, workspaceRead: todo, workspaceWrite: todo };
}

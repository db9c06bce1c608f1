/** Editor handlers: LTL and tool checking, world vocabularies, the workspace folder. */
import type { EditorApi } from '../contract.js';
import type { ApiContext } from '../context.js';
import { fail } from '../failure.js';
import { InputError } from '../../core/input/json.js';
import { TOOL_SCHEMA } from '../../core/loop/tools.js';
import { checkLtl } from '../../services/editor/ltl-check.js';
import { checkToolText } from '../../services/editor/tool-check.js';
import { EDITOR_WORLDS, type WorldVocabulary, worldVocabulary } from '../../services/editor/vocabulary.js';
import { Workspace, WorkspaceError } from '../../services/editor/workspace.js';

export function editorHandlers(ctx: ApiContext): EditorApi {
  const workspace = new Workspace(ctx.workspace);

  const vocabulary = (world: string): WorldVocabulary => {
    let v: WorldVocabulary | null;
    try {
      v = worldVocabulary(ctx.assets, world);
    } catch (e) {
      if (e instanceof InputError) throw fail('invalid-input', `the world's ${e.message}`, { path: e.path });
      throw e;
    }
    if (v === null) throw fail('not-found', `no world "${world}"; the editors know ${EDITOR_WORLDS.join(', ')}`, { path: '$.world' });
    return v;
  };

  /** Workspace failures keep their code and name the path they are about. */
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (e) {
      if (e instanceof WorkspaceError) throw fail(e.code, e.message, { path: e.path });
      throw e;
    }
  };

  /** The checks are synchronous; a failure still arrives as a rejected promise. */
  const attempt = <T>(work: () => T): Promise<T> => new Promise<T>((resolve) => resolve(work()));

  return {
    ltlCheck: ({ text, world }) => attempt(() => {
      const v = world === undefined ? null : vocabulary(world);
      return checkLtl(text, v === null ? null : { world: v.view.world, propositions: v.core.propositions });
    }),
    toolCheck: ({ text, world }) => attempt(() => ({ diagnostics: checkToolText(text, vocabulary(world).core, world) })),
    worldVocabulary: ({ world }) => attempt(() => vocabulary(world).view),
    toolSchema: () => Promise.resolve(structuredClone(TOOL_SCHEMA) as unknown as Record<string, unknown>),
    workspaceList: () => guard(() => workspace.list()),
    workspaceRead: ({ path }) => guard(() => workspace.read(path)),
    workspaceWrite: ({ path, text, baseVersion }) => guard(() => workspace.write(path, text, baseVersion)),
  };
}

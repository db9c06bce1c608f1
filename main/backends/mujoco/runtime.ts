/**
 * The MuJoCo WebAssembly runtime (mujoco-js), loaded once per process. MuJoCo reports load errors
 * by printing and returning null, so its output is captured to turn them into WorldErrors.
 */
import type { MainModule, MjData, MjModel } from 'mujoco-js';
import { WorldError } from '../../core/world/world.js';

let runtime: Promise<MainModule> | undefined;
let lastMessages: string[] = [];

/** The WebAssembly module, loaded on first use only (commands that never simulate never load it). */
function mujocoRuntime(): Promise<MainModule> {
  runtime ??= import('mujoco-js')
    .then(({ default: loadMujoco }) =>
      loadMujoco({
        print: (s: string) => {
          lastMessages.push(s);
        },
        printErr: (s: string) => {
          lastMessages.push(s);
        },
      }),
    )
    .then((mj) => {
      mj.FS.mkdir('/scenes');
      return mj;
    });
  return runtime;
}

let counter = 0;

/** Compiles MJCF text; `source` (a file name) appears in errors. */
export async function loadModel(
  xml: string,
  source: string,
  world: string,
): Promise<{ mj: MainModule; model: MjModel; data: MjData }> {
  const mj = await mujocoRuntime();
  const path = `/scenes/model-${++counter}.xml`;
  mj.FS.writeFile(path, xml);
  lastMessages = [];
  let model: MjModel | null = null;
  try {
    // Typed as always returning a model, but it returns null (after printing) on failure.
    const loaded: MjModel | null = mj.MjModel.loadFromXML(path);
    model = loaded;
  } catch (e) {
    lastMessages.push(e instanceof Error ? e.message : String(e));
  } finally {
    mj.FS.unlink(path);
  }
  if (!model) {
    const detail = lastMessages.join(' ').replace(/\s+/g, ' ').trim() || 'MuJoCo could not compile the model';
    throw new WorldError('invalid-input', world, `${source}: ${detail}`);
  }
  return { mj, model, data: new mj.MjData(model) };
}

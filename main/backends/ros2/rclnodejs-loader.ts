/**
 * Loading rclnodejs on demand. It is an optional dependency that builds and loads only where ROS 2
 * is installed and sourced, so nothing imports it statically: the app, the CLI and every other
 * backend start without it, and this module turns each way it can be missing into one precise
 * diagnosis — what is wrong and the command that fixes it.
 */
import { WitnessError } from '../../contract/errors.js';
import { createRequire } from 'node:module';
import { RCLNODEJS_RANGE, REQUIRED_MEMBERS, type RclModule } from './rclnodejs-api.js';

type Ros2Problem = 'not-sourced' | 'not-installed' | 'abi-mismatch' | 'load-failed' | 'incompatible' | 'init-failed';

export interface Ros2Diagnosis {
  readonly problem: Ros2Problem;
  /** What is missing, one line. */
  readonly message: string;
  /** The command(s) that fix it. */
  readonly fix: string;
  readonly distro: string | null;
}

export type Ros2Availability =
  | {
      readonly ok: true;
      readonly rcl: RclModule;
      readonly distro: string;
      readonly version: string | null;
      readonly notes: readonly string[];
    }
  | ({ readonly ok: false } & Ros2Diagnosis);

/** ROS 2 cannot be used here; `message` is the diagnosis followed by the fix. */
export class Ros2Unavailable extends WitnessError {
  override readonly name = 'Ros2Unavailable';
  constructor(readonly diagnosis: Ros2Diagnosis) {
    super('unavailable', `${diagnosis.message}: ${diagnosis.fix}`);
  }
}

/** The distributions this backend is built and documented for. */
const SUPPORTED_DISTROS = ['humble', 'jazzy'] as const;

const PACKAGE = 'rclnodejs';
const SOURCE = 'source /opt/ros/<distro>/setup.bash';
const INSTALL = '`npm install rclnodejs` after sourcing ROS 2, then `node native/rebuild.js` for Electron';
const REBUILD =
  'rebuild it with ROS 2 sourced: `npm rebuild rclnodejs` for Node (CLI, tests, web mode), `node native/rebuild.js` for the desktop app (Electron)';

export interface LoaderDeps {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Dynamic import (replaced in tests). */
  readonly importer?: (name: string) => Promise<unknown>;
  /** Module resolution without loading (replaced in tests); throws when the package is absent. */
  readonly resolver?: (name: string) => string;
}

const require = createRequire(import.meta.url);

function installedVersion(resolver: (name: string) => string): string | null {
  try {
    const manifest = resolver(`${PACKAGE}/package.json`);
    const v = (require(manifest) as { version?: unknown }).version;
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

function isInstalled(resolver: (name: string) => string): boolean {
  try {
    resolver(PACKAGE);
    return true;
  } catch {
    return false;
  }
}

/** Classifies an error thrown while importing rclnodejs. */
function diagnoseLoadError(e: unknown, distro: string): Ros2Diagnosis {
  const text = e instanceof Error ? e.message.split('\n')[0]!.trim() : String(e);
  const code = (e as { code?: unknown } | null)?.code;
  if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && new RegExp(`['"]${PACKAGE}['"]`).test(text)) {
    return { problem: 'not-installed', message: 'rclnodejs is not installed', fix: INSTALL, distro };
  }
  if (/NODE_MODULE_VERSION|compiled against a different Node\.js version|Module did not self-register/.test(text)) {
    return {
      problem: 'abi-mismatch',
      message: `rclnodejs was built for another Node.js ABI (${text})`,
      fix: REBUILD,
      distro,
    };
  }
  if (/cannot open shared object file|\.so[.:\s]|ERR_DLOPEN_FAILED|dlopen/.test(text) || code === 'ERR_DLOPEN_FAILED') {
    return {
      problem: 'load-failed',
      message: `rclnodejs did not load (${text})`,
      distro,
      fix: `the ROS 2 libraries it links were not found: run \`source /opt/ros/${distro}/setup.bash\` in this shell (ROS_DISTRO=${distro} is set, but the libraries are not on the library path), or ${REBUILD}`,
    };
  }
  return { problem: 'load-failed', message: `rclnodejs did not load (${text})`, fix: REBUILD, distro };
}

/**
 * Imports rclnodejs if ROS 2 is sourced and the package loads, and removes the signal handler it
 * installs; otherwise says exactly why not. Without ROS_DISTRO it does not even try to load the native module (that
 * would only fail with a less helpful dlopen error), but it still says whether the package is installed.
 */
export async function loadRclnodejs(deps: LoaderDeps = {}): Promise<Ros2Availability> {
  const env = deps.env ?? process.env;
  const resolver = deps.resolver ?? ((name: string) => require.resolve(name));
  const importer = deps.importer ?? ((name: string) => import(name) as Promise<unknown>);
  const distro = env['ROS_DISTRO']?.trim() || null;
  if (distro === null) {
    const fix = `run \`${SOURCE}\` (<distro>: ${SUPPORTED_DISTROS.join(' or ')}) before starting Witness`;
    return {
      ok: false,
      problem: 'not-sourced',
      message: 'ROS 2 is not sourced (ROS_DISTRO is not set)',
      distro: null,
      fix: isInstalled(resolver) ? fix : `${fix}; rclnodejs is not installed either: ${INSTALL}`,
    };
  }
  let loaded: unknown;
  try {
    loaded = await importer(PACKAGE);
  } catch (e) {
    return { ok: false, ...diagnoseLoadError(e, distro) };
  }
  // A CommonJS package imported from ESM: the module object is the default export.
  const mod = (loaded as { default?: unknown } | null)?.default ?? loaded;
  const missing = REQUIRED_MEMBERS.filter((m) => typeof (mod as Record<string, unknown> | null)?.[m] !== 'function');
  if (missing.length > 0) {
    return {
      ok: false,
      problem: 'incompatible',
      distro,
      message: `the installed rclnodejs ${installedVersion(resolver) ?? '(version unknown)'} lacks ${missing.join(', ')}`,
      fix: `install a supported version after sourcing ROS 2: \`npm install rclnodejs@${RCLNODEJS_RANGE}\``,
    };
  }
  // Loading it registered a SIGINT handler that shuts every context down at once (its nodes and
  // action clients destroyed): Ctrl-C could then no longer cancel a running goal. Witness owns
  // SIGINT and SIGTERM (main/witness.ts): the goal is cancelled and the robot stopped first.
  (mod as RclModule).removeSignalHandlers();
  const notes = (SUPPORTED_DISTROS as readonly string[]).includes(distro)
    ? []
    : [`ROS_DISTRO=${distro}: this backend is built and documented for ${SUPPORTED_DISTROS.join(' and ')}`];
  return { ok: true, rcl: mod as RclModule, distro, version: installedVersion(resolver), notes };
}

/** The one-line status an app or a command shows. */
export function describeAvailability(a: Ros2Availability): string {
  if (a.ok)
    return `ROS 2 ${a.distro} with rclnodejs ${a.version ?? '(version unknown)'}${a.notes.length > 0 ? ` (${a.notes.join('; ')})` : ''}`;
  return `${a.message}: ${a.fix}`;
}

/**
 * Where things live, decided in one place: the app's shipped assets and built UI, the operator's
 * workspace and audit database, the cache of generated backbones, and whose name goes into the
 * audit log. Environment variables override the defaults (WITNESS_WORKSPACE, WITNESS_AUDIT,
 * WITNESS_CACHE), then the XDG base directories, then the home folder.
 */
import { homedir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository (or installed package) root: this file is dist/main/platform/paths.js. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The app's shipped assets: scenes, models, regions, tools, example specs and graphs. */
export const ASSETS_DIR = path.join(ROOT, 'assets');

/** A path inside the shipped assets. */
export const assetPath = (rel: string): string => path.join(ASSETS_DIR, ...rel.split('/'));

/** The built UI that web mode serves and the desktop window loads. */
export const RENDERER_DIST = path.join(ROOT, 'renderer', 'dist');

/** The shipped model bundle (ψ and π_low) of an embedded world. */
export const shippedModelsDir = (world: string): string => path.join(ASSETS_DIR, 'models', world);

const env = (name: string): string | undefined => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
};

/** The folder the editors open and save in: $WITNESS_WORKSPACE, else ~/witness-workspace. */
export function defaultWorkspace(): string {
  return path.resolve(env('WITNESS_WORKSPACE') ?? path.join(homedir(), 'witness-workspace'));
}

/** The audit database when none is named: $WITNESS_AUDIT, else $XDG_DATA_HOME/witness/audit.sqlite. */
export function defaultAuditFile(): string {
  return (
    env('WITNESS_AUDIT') ??
    path.join(env('XDG_DATA_HOME') ?? path.join(homedir(), '.local', 'share'), 'witness', 'audit.sqlite')
  );
}

/** The fleet store the workbench's Audit tab reads when none is named: $WITNESS_FLEET (a PostgreSQL URL), else none. */
export function defaultFleetUrl(): string | undefined {
  return env('WITNESS_FLEET');
}

/** Generated data that can be rebuilt at any time: $WITNESS_CACHE, else $XDG_CACHE_HOME/witness. */
export function cacheDir(): string {
  return path.resolve(
    env('WITNESS_CACHE') ?? path.join(env('XDG_CACHE_HOME') ?? path.join(homedir(), '.cache'), 'witness'),
  );
}

/** `~` and `~/…` as the home folder; other paths resolved against `base`. */
export function resolveUserPath(p: string, base: string): string {
  const expanded = p === '~' || p.startsWith('~/') ? path.join(homedir(), p.slice(1)) : p;
  return path.resolve(base, expanded);
}

/** Who runs the command: recorded as the operator of a run. */
export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

import path from 'node:path';

/**
 * The desktop window's security policy as data, so it is tested without Electron: the
 * webPreferences of the Electron security checklist, and which URLs the window may show.
 */
export const APP_SCHEME = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://witness`;

export const WEB_PREFERENCES = Object.freeze({
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  spellcheck: false,
} as const);

/** The app's own pages (the only ones the window may navigate to or receive IPC from). */
export function isAppUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return u.protocol === `${APP_SCHEME}:` && u.host === 'witness' && u.username === '' && u.password === '';
}

/** A path under the renderer's folder for an app:// request, or null when it would leave it. */
export function appFile(url: string, root: string): string | null {
  if (!isAppUrl(url)) return null;
  const u = new URL(url);
  let rel: string;
  try {
    rel = decodeURIComponent(u.pathname === '/' ? '/index.html' : u.pathname);
  } catch {
    return null;
  }
  const file = path.resolve(root, '.' + rel);
  return file.startsWith(root + path.sep) ? file : null;
}

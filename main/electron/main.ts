// Electron entry: one sandboxed window, its security settings and the IPC wiring — nothing else.
// Everything that computes lives behind the API contract so it also runs without Electron.
//
// The Electron security checklist, point by point: context isolation, a sandboxed renderer without
// Node, a strict CSP sent as a response header, the page served from a privileged custom scheme
// (app://) instead of file://, navigation, redirects, new windows and <webview> refused, permission
// requests denied, and every IPC call checked for its sender and validated against the contract.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, net, protocol, session } from 'electron';
import { createDirectApi } from '../api/direct.js';
import { createDispatcher } from '../api/dispatch.js';
import { forwardEvents, registerIpc } from '../api/ipc.js';
import { CONTENT_SECURITY_POLICY } from '../api/web/csp.js';
import { APP_ORIGIN, APP_SCHEME, WEB_PREFERENCES, appFile, isAppUrl } from '../api/window-policy.js';
const appRoot = app.getAppPath();
const preloadPath = path.join(appRoot, 'dist', 'preload', 'index.js');
const rendererRoot = path.join(appRoot, 'renderer', 'dist');

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

function serveApp(): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = appFile(request.url, rendererRoot);
    if (file === null) return new Response('forbidden', { status: 403 });
    const res = await net.fetch(pathToFileURL(file).href);
    const headers = new Headers(res.headers);
    headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    headers.set('X-Content-Type-Options', 'nosniff');
    return new Response(res.body, { status: res.status, headers });
  });
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    title: 'Witness',
    show: false,
    webPreferences: { preload: preloadPath, ...WEB_PREFERENCES },
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}

// Applies to every web contents, including ones created later.
app.on('web-contents-created', (_event, contents) => {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

app.enableSandbox();

void app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  serveApp();
  const api = createDirectApi({ transport: 'electron' });
  registerIpc(
    ipcMain,
    createDispatcher(api, (m, e) => console.error(`witness: ${m}:`, e)),
    isAppUrl,
  );
  const open = (): void => {
    const win = createWindow();
    const off = forwardEvents(api.context.bus, win.webContents);
    win.on('closed', off);
  };
  open();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) open();
  });
  // Quitting, Ctrl-C and SIGTERM (rclnodejs's own SIGINT handler is removed when it loads: the workbench owns them)
  // first stop the running missions and tool loops — a robot's goal cancelled, a zero command sent — and only then
  // let the process end; a second signal ends it at once.
  let closed = false;
  let closing: Promise<void> | null = null;
  const close = (reason: string): Promise<void> =>
    (closing ??= api
      .close(reason)
      .catch((e: unknown) => console.error('witness: closing:', e))
      .finally(() => void (closed = true)));
  app.on('before-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    void close('the workbench was closed').then(() => app.quit());
  });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    process.on(signal, () => {
      if (closing !== null) app.exit(code);
      else void close(`interrupted (${signal})`).then(() => app.exit(code));
    });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

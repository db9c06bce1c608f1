// Electron entry: one sandboxed window and its security settings, nothing else.
// Everything that computes lives behind the API contract so it also runs without Electron.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain } from 'electron';
import { createDirectApi } from '../api/direct.js';
import { registerIpc } from '../api/ipc.js';

// app.getAppPath() is the folder holding package.json (or the asar archive when packaged).
const appRoot = app.getAppPath();
const preloadPath = path.join(appRoot, 'dist', 'preload', 'index.js');
const indexPath = path.join(appRoot, 'renderer', 'index.html');
const indexUrl = pathToFileURL(indexPath).href;

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    title: 'Witness',
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  void win.loadFile(indexPath);
  return win;
}

// Applies to every web contents, including ones created later: no new windows, no navigation
// away from the app page, no <webview>.
app.on('web-contents-created', (_event, contents) => {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event, url) => {
    if (url !== indexUrl) event.preventDefault();
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

app.enableSandbox();

void app.whenReady().then(() => {
  registerIpc(ipcMain, createDirectApi());
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

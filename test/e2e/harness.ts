/**
 * End-to-end harness: the web-mode server in this process over a fresh workspace and audit file,
 * and Debian's Chromium driven by playwright-core with a fresh profile. Each test saves a
 * screenshot of its screen under test-results/screenshots/ for a person to look at.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createDirectApi, type DirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { startWebServer, type WebServer } from '../../main/api/web/server.js';
import type { WorldFault } from '../../main/core/world/faults.js';
import type { LoaderDeps } from '../../main/backends/ros2/rclnodejs-loader.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RENDERER = path.join(ROOT, 'renderer', 'dist');
export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');
const CHROMIUM = process.env.WITNESS_CHROMIUM ?? '/usr/bin/chromium';

export interface AppUnderTest {
  page: Page;
  api: DirectApi;
  server: WebServer;
  workspace: string;
  /** Server-side errors of handlers (a test fails on any). */
  internalErrors: string[];
  /** Errors the page printed to its console or threw. */
  pageErrors: string[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface OpenOptions {
  workspace?: string;
  auditFile?: string;
  /** The fleet store the Audit tab browses (a PostgreSQL URL), as `witness web --fleet` names it. */
  fleet?: string;
  /** Window size (default 1440×900). */
  viewport?: { width: number; height: number };
  /** How the workbench finds rclnodejs (a simulated ROS 2 graph's double). */
  ros2?: LoaderDeps;
  /** Faults every world the workbench opens injects on cue (core/world/faults.ts). */
  faults?: readonly WorldFault[];
}

/**
 * The robot stops moving at its 150th step, for good: a mission's tracking budget runs out there, so
 * with R = 0 it escalates because the test made it fail (one tracking-timeout failure record).
 */
export const STUCK_AT = 150;
export const STUCK: WorldFault = { at: 'step', n: STUCK_AT, kind: 'stuck' };

export async function openApp(o: OpenOptions = {}): Promise<AppUnderTest> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install chromium (scripts/setup.sh does)`);
  if (!existsSync(path.join(RENDERER, 'index.html'))) throw new Error('the renderer is not built: npm run build');
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-e2e-'));
  const workspace = o.workspace ?? path.join(dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const api = createDirectApi({
    transport: 'web',
    workspace,
    auditFile: o.auditFile ?? path.join(dir, 'audit.sqlite'),
    ...(o.fleet !== undefined ? { fleet: o.fleet } : {}),
    ...(o.ros2 !== undefined ? { ros2: o.ros2 } : {}),
    ...(o.faults !== undefined ? { faults: o.faults } : {}),
  });
  const internalErrors: string[] = [];
  const server = await startWebServer({
    dispatch: createDispatcher(api, (m, e) =>
      internalErrors.push(`${m}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
    ),
    bus: api.context.bus,
    root: RENDERER,
  });
  const context: BrowserContext = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: o.viewport ?? { width: 1440, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  return {
    page,
    api,
    server,
    workspace,
    internalErrors,
    pageErrors,
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const file = path.join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    async close() {
      await context.close();
      await server.close();
      await api.close();
    },
  };
}

/**
 * Leaves only `kind` ticked in the Audit tab's kind filter. Each box is found anew by its value: the
 * filter is rebuilt (ticks kept) whenever the selected run gains events, which a handle taken
 * before would not survive.
 */
export async function onlyAuditKind(page: Page, kind: string): Promise<void> {
  const values = await page.evaluate<string[]>(
    `[...document.querySelectorAll('#audit-f-kinds input[type=checkbox]')].map((b) => b.value)`,
  );
  for (const v of values) if (v !== kind) await page.uncheck(`#audit-f-kinds input[type=checkbox][value="${v}"]`);
}

/**
 * Waits until the console's live line shows a running mission `n` steps past step `after` (its `t=…`, not a line
 * that says the run ended) and returns that step: the run has gone on. A check that something did NOT happen
 * waits for this positive event rather than for a fixed time.
 */
export async function stepsPast(page: Page, after: number, n = 2): Promise<number> {
  // Polled from here: a predicate evaluated in the page is refused by the renderer's CSP.
  for (const started = Date.now(); Date.now() - started < 30_000;) {
    const text = (await page.textContent('#run-live')) ?? '';
    const m = /^t=(\d+)\s/.exec(text);
    if (m !== null && !/ended$/.test(text) && Number(m[1]) >= after + n) return Number(m[1]);
    await page.waitForTimeout(20);
  }
  throw new Error(`the run did not go ${n} steps past step ${after} within 30 s`);
}

/** The step the console's live line shows (its `t=…`); -1 before the first tick. */
export async function liveStep(page: Page): Promise<number> {
  const m = /^t=(\d+)\s/.exec((await page.textContent('#run-live')) ?? '');
  return m !== null ? Number(m[1]) : -1;
}

/**
 * The console's Foxglove switch: the live server of app/foxglove.ts over the session's audit log,
 * so every mission and tool loop the console runs while it is on is served to Foxglove or
 * Lichtblick. It binds 127.0.0.1 only (the console never offers a remote bind); it stays on between
 * runs until the operator turns it off, which disconnects its clients. Starts and stops are taken
 * one at a time; a port in use leaves everything as it was.
 */
import { WitnessError } from '../contract/errors.js';
import type { FoxgloveState } from '../contract/api.js';
import type { FoxgloveLive } from '../services/audit/foxglove-live.js';
import type { Session } from './session.js';

export class FoxgloveConsole {
  private live: FoxgloveLive | null = null;
  /** The start or stop under way: the next one waits for it. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly session: Session) {}

  state(): FoxgloveState {
    const l = this.live;
    if (l === null) return { on: false };
    return { on: true, url: l.url, port: l.port, clients: l.clients(), sent: { ...l.sent } };
  }

  private publish(): void {
    this.session.bus.emit({ topic: 'foxglove', state: this.state() });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Starts the server on 127.0.0.1:port (moves it there when it is on elsewhere). */
  start(port: number): Promise<FoxgloveState> {
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      return Promise.reject(
        new WitnessError('invalid-params', `port must be an integer from 0 to 65535, got ${port}`, { path: '$.port' }),
      );
    return this.serial(async () => {
      if (this.live !== null && (this.live.port === port || port === 0)) return this.state();
      const { serveFoxgloveLive } = await import('./foxglove.js');
      let live: FoxgloveLive | undefined;
      try {
        // A client of the first instant is counted by the publish below.
        live = await serveFoxgloveLive({
          port,
          host: '127.0.0.1',
          auditFile: this.session.auditFile,
          onClients: () => {
            if (live !== undefined && this.live === live) this.publish();
          },
        });
      } catch (e) {
        if (e instanceof WitnessError) {
          const now = this.live !== null ? `the server stays on ${this.live.url}` : 'Foxglove stays off';
          const why =
            e.code === 'conflict'
              ? `port ${port} is in use on 127.0.0.1: choose another port`
              : `cannot serve on 127.0.0.1:${port}: ${e.message}`;
          throw new WitnessError(e.code, `${why} (${now})`, { path: '$.port' }, { cause: e });
        }
        throw e;
      }
      const old = this.live;
      this.live = live;
      await old?.close();
      this.publish();
      return this.state();
    });
  }

  /** Stops the server and disconnects its clients. */
  stop(): Promise<FoxgloveState> {
    return this.serial(async () => {
      const l = this.live;
      if (l === null) return this.state();
      this.live = null;
      await l.close();
      this.publish();
      return this.state();
    });
  }

  /** Stops the server when the session ends. */
  async close(): Promise<void> {
    await this.stop();
  }
}

// Contract, the console's live Foxglove server: a switch that serves the console's runs (missions and
// the tool loop) over the Foxglove WebSocket protocol on 127.0.0.1, for Foxglove or Lichtblick.
import { type Static, Type } from '@sinclair/typebox';
import { NoParams } from './core.js';

/** Whether the console's Foxglove server is on, where to connect, and who is connected. */
export type FoxgloveState =
  | { on: false }
  | {
      on: true;
      /** What to paste into Foxglove or Lichtblick (Open connection → Foxglove WebSocket): ws://127.0.0.1:PORT. */
      url: string;
      port: number;
      /** Foxglove or Lichtblick windows connected now. */
      clients: number;
      /** Messages sent so far, per channel. */
      sent: { pose: number; scene: number; log: number; map: number };
    };

/** Pushed when the server starts or stops and when a client connects or leaves. */
export type FoxgloveEvent = { topic: 'foxglove'; state: FoxgloveState };

const FoxgloveStartRequest = Type.Object(
  {
    port: Type.Integer({
      minimum: 0,
      maximum: 65535,
      description: 'the TCP port on 127.0.0.1 (0: any free one); the console never binds another address',
    }),
  },
  { additionalProperties: false },
);

export interface FoxgloveApi {
  /**
   * Serves what the session's audit log records from now on (every mission and tool loop the
   * console runs, while it stays on) over the Foxglove WebSocket protocol on 127.0.0.1:port. When
   * it is on already on another port, it moves there; a port in use is a `conflict` and nothing changes.
   */
  foxgloveStart(params: Static<typeof FoxgloveStartRequest>): Promise<FoxgloveState>;
  /** Stops the server: its clients are disconnected. */
  foxgloveStop(params?: NoParams): Promise<FoxgloveState>;
  foxgloveState(params?: NoParams): Promise<FoxgloveState>;
}

export const FOXGLOVE_PARAMS = {
  foxgloveStart: FoxgloveStartRequest,
  foxgloveStop: NoParams,
  foxgloveState: NoParams,
} as const satisfies Record<keyof FoxgloveApi, object>;

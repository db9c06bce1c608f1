// The one API contract shared by every transport (Electron IPC, WebSocket, direct calls).
// Pure types plus the channel table: no runtime imports, so the renderer may `import type`
// from here and the sandboxed preload may mirror the channel table without bundling.

export type LtlOutputFormat = 'hoa' | 'json' | 'dot';

export interface LtlTranslateRequest {
  formula: string;
  format?: LtlOutputFormat;
}

/** A failure the caller can show: `line` and `column` are 1-based positions in the input. */
export interface ApiError {
  message: string;
  line?: number;
  column?: number;
}

export type LtlTranslateResponse =
  | { ok: true; output: string }
  | { ok: false; error: ApiError };

export interface WitnessApi {
  /** Translates an LTL formula to a Büchi automaton, printed in `format` (default 'hoa'). */
  ltlTranslate(request: LtlTranslateRequest): Promise<LtlTranslateResponse>;
  /** The application version (package.json "version"). */
  version(): Promise<string>;
}

export type ApiMethod = keyof WitnessApi;

/** IPC / WebSocket channel name for each API method. */
export const API_CHANNELS = Object.freeze({
  ltlTranslate: 'witness:ltl-translate',
  version: 'witness:version',
} as const satisfies Record<ApiMethod, `witness:${string}`>);

export type ApiChannels = typeof API_CHANNELS;
export type ApiChannel = ApiChannels[ApiMethod];

/**
 * The API served by direct calls: the implementation every transport (IPC, WebSocket, CLI) wraps.
 * Inputs cross a process boundary on the other transports, so each request is checked here.
 */
import type { ApiError, LtlTranslateRequest, LtlTranslateResponse, WitnessApi } from './contract.js';
import { parseLtl } from '../core/ltl/parser.js';
import { translateFormula } from '../core/ltl/translate.js';
import { formatAutomaton } from '../core/ltl/formats.js';
import { LtlBudgetError, LtlSyntaxError } from '../core/ltl/errors.js';
import { VERSION } from '../version.js';

const FORMATS = new Set(['hoa', 'json', 'dot']);

function invalid(message: string): LtlTranslateResponse {
  return { ok: false, error: { message } };
}

function toApiError(e: unknown): ApiError {
  if (e instanceof LtlSyntaxError) return { message: e.detail, line: e.line, column: e.column };
  if (e instanceof LtlBudgetError) return { message: `budget: ${e.message}` };
  throw e;
}

export function createDirectApi(): WitnessApi {
  return {
    ltlTranslate(request: LtlTranslateRequest): Promise<LtlTranslateResponse> {
      const r: unknown = request;
      if (typeof r !== 'object' || r === null) return Promise.resolve(invalid('request: expected an object { formula, format? }'));
      const { formula, format } = r as { formula?: unknown; format?: unknown };
      if (typeof formula !== 'string') return Promise.resolve(invalid('request.formula: expected a string'));
      if (format !== undefined && (typeof format !== 'string' || !FORMATS.has(format))) {
        return Promise.resolve(invalid(`request.format: expected one of hoa, json, dot, got ${JSON.stringify(format)}`));
      }
      try {
        const automaton = translateFormula(parseLtl(formula)).automaton;
        return Promise.resolve({ ok: true, output: formatAutomaton(automaton, (format ?? 'hoa') as 'hoa' | 'json' | 'dot') });
      } catch (e) {
        return Promise.resolve({ ok: false, error: toApiError(e) });
      }
    },
    version: () => Promise.resolve(VERSION),
  };
}

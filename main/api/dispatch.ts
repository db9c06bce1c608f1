/**
 * The transport-independent boundary: every call from IPC or the WebSocket comes through here. The
 * method must be in the contract and its parameters nested no deeper than MAX_JSON_DEPTH and match
 * the method's JSON Schema before any handler runs; failures come back as an ApiError that names
 * the method and the parameter.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { API_PARAMS, type ApiEnvelope, type ApiMethod, type WitnessApi } from '../contract/api.js';
import { WitnessError, errorReport, pathError } from '../contract/errors.js';
import { TOO_DEEP, valueTooDeep } from '../app/call-params.js';

const ajv = new Ajv2020({ allErrors: false, strict: false });
const validators = new Map<string, ValidateFunction>(
  Object.entries(API_PARAMS).map(([m, schema]) => [m, ajv.compile(schema)]),
);

/**
 * A method name for a message: quoted and cut short (any value may arrive, a megabyte of text or an array nested deep).
 */
function methodName(method: unknown): string {
  if (typeof method !== 'string')
    return `(${method === null ? 'null' : Array.isArray(method) ? 'an array' : typeof method}, not a name)`;
  return JSON.stringify(method.length > 100 ? `${method.slice(0, 100)}…` : method);
}

/** Why a call is refused before it reaches a handler, or null when it may go ahead. */
function checkCall(method: unknown, params: unknown): ApiEnvelope | null {
  if (typeof method !== 'string' || !validators.has(method)) {
    return { ok: false, error: { code: 'unknown-method', message: `unknown API method ${methodName(method)}` } };
  }
  // Before anything walks them (validation, the copy to a worker thread, a handler): a value nested this deep would
  // overflow the stack of whichever did.
  if (valueTooDeep(params))
    return {
      ok: false,
      error: { code: 'invalid-params', message: `${method}: its parameters are ${TOO_DEEP}`, path: '$' },
    };
  const validate = validators.get(method)!;
  if (!validate(params ?? {})) {
    const e = validate.errors?.[0];
    const where = `$${(e?.instancePath ?? '').replace(/\//g, '.')}`;
    const detail =
      e?.keyword === 'additionalProperties'
        ? `unknown parameter "${String((e.params as { additionalProperty?: string }).additionalProperty)}"`
        : (e?.message ?? 'invalid');
    return { ok: false, error: { code: 'invalid-params', message: `${method}: ${where}: ${detail}`, path: where } };
  }
  return null;
}

export type Dispatch = (method: unknown, params: unknown) => Promise<ApiEnvelope>;

export function createDispatcher(
  api: WitnessApi,
  onInternalError: (method: string, e: unknown) => void = () => {},
): Dispatch {
  return async (method, params) => {
    const refused = checkCall(method, params);
    if (refused !== null) return refused;
    const m = method as ApiMethod;
    try {
      const handlers = api as unknown as Record<ApiMethod, (p: unknown) => Promise<unknown>>;
      return { ok: true, result: await handlers[m](params ?? {}) };
    } catch (thrown) {
      // A file-system error about a path (a name too long, a loop of links) is the path's problem, not a bug.
      const e = pathError(thrown) ?? thrown;
      if (e instanceof WitnessError && e.code !== 'internal') return { ok: false, error: errorReport(e) };
      onInternalError(m, e);
      return {
        ok: false,
        error: { code: 'internal', message: `${m}: internal error: ${e instanceof Error ? e.message : String(e)}` },
      };
    }
  };
}

/** The typed API over a bridge: each method resolves to its result or throws an ApiCallError. */
import type { ApiError, ApiMethod, ApiParams, ApiResult, WitnessApi, WitnessBridge } from '../../main/contract/api.js';

export class ApiCallError extends Error {
  constructor(
    readonly method: string,
    readonly error: ApiError,
  ) {
    super(error.message);
    this.name = 'ApiCallError';
  }
  get code(): string | undefined {
    return this.error.code;
  }
}

export function createClient(bridge: WitnessBridge): WitnessApi {
  const call = async <M extends ApiMethod>(method: M, params: ApiParams<M>): Promise<ApiResult<M>> => {
    const reply = await bridge.invoke(method, params ?? {});
    if (!reply.ok) throw new ApiCallError(method, reply.error);
    return reply.result as ApiResult<M>;
  };
  return new Proxy({} as WitnessApi, {
    get: (_t, method: string) => (params: unknown) => call(method as ApiMethod, params as never),
  });
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

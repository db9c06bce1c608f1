/** A failure a handler reports to the caller as an ApiError (anything else thrown is an internal error). */
import type { ApiError } from './contract.js';

export class ApiFailure extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
    this.name = 'ApiFailure';
  }
}

export const fail = (code: string, message: string, extra: Omit<ApiError, 'message' | 'code'> = {}): ApiFailure =>
  new ApiFailure({ code, message, ...extra });

import { ClientExit, exitCodeForStatus } from './exit-codes.ts';
import { printable } from './printable.ts';

/**
 * The fields of the API's error envelope, also carried by an SSE `error` event. Read loosely (any
 * code string, request id possibly missing): a proxy in front of the API may answer in its stead.
 */
export interface ApiErrorDetails {
  status: number;
  code: string;
  message: string;
  request_id?: string;
  param?: string;
  retry_after?: number;
}

/** One line: `401 invalid_api_key: Malformed API key. (request_id req_…)`, with param and retry when given. */
export function describeApiError(error: ApiErrorDetails): string {
  const details = [
    error.param !== undefined ? `param ${printable(error.param)}` : undefined,
    error.retry_after !== undefined ? `retry after ${error.retry_after}s` : undefined,
    `request_id ${error.request_id !== undefined ? printable(error.request_id) : 'unknown'}`,
  ].filter((detail) => detail !== undefined);
  return `${error.status} ${printable(error.code)}: ${printable(error.message)} (${details.join('; ')})`;
}

/** The API answered with an error: the exit code follows its status. */
export class ApiFailure extends ClientExit {
  override name = 'ApiFailure';

  constructor(readonly details: ApiErrorDetails) {
    super(describeApiError(details), exitCodeForStatus(details.status));
  }
}

/** The error fields of a parsed body, or undefined when it is no error envelope. */
export function asApiError(body: unknown): ApiErrorDetails | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { status, code, message, request_id, param, retry_after } = body as Record<string, unknown>;
  if (typeof status !== 'number' || typeof code !== 'string' || typeof message !== 'string') return undefined;
  return {
    status,
    code,
    message,
    ...(typeof request_id === 'string' ? { request_id } : {}),
    ...(typeof param === 'string' ? { param } : {}),
    ...(typeof retry_after === 'number' ? { retry_after } : {}),
  };
}

import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './schema-helpers.ts';

/**
 * The one error registry: every error code the API can answer with, the HTTP statuses the
 * spec allows for it (the first is the default) and a default client-facing message.
 * No other status map exists anywhere in the code base.
 */
export const ERROR_REGISTRY = {
  invalid_request: { statuses: [400, 403, 404], message: 'The request is invalid.' },
  invalid_api_key: { statuses: [401], message: 'Invalid API key.' },
  unauthorized: { statuses: [403, 401], message: 'This API key is not allowed to make this request.' },
  funding_payment_failed: { statuses: [402], message: 'The last payment for this organization failed.' },
  funding_payment_method_required: {
    statuses: [402],
    message: 'This organization needs a payment method before it can be billed.',
  },
  funding_payment_action_required: {
    statuses: [402],
    message: 'A payment for this organization needs an action before it can complete.',
  },
  funding_pending: { statuses: [402], message: 'Funding for this organization is still pending.' },
  insufficient_credits: {
    statuses: [402],
    message: 'The organization does not have enough credits for this request.',
  },
  account_frozen: { statuses: [403], message: 'This organization is frozen.' },
  content_policy_violation: { statuses: [403], message: 'The request was rejected by the content policy.' },
  model_not_found: { statuses: [404], message: 'The model does not exist or is not available to this organization.' },
  payload_too_large: { statuses: [413], message: 'The request is too large.' },
  request_timeout: { statuses: [504, 408], message: 'The request took too long.' },
  rate_limit_exceeded: { statuses: [429], message: 'Rate limit exceeded.' },
  operation_rate_limit_exceeded: { statuses: [429], message: 'Operation rate limit exceeded.' },
  weekly_limit_exceeded: { statuses: [429], message: 'Weekly limit exceeded.' },
  server_error: { statuses: [500], message: 'The server had an error while processing the request.' },
  model_error: { statuses: [502], message: 'The model returned an invalid or failed response.' },
  model_unavailable: { statuses: [503], message: 'The model is temporarily unavailable.' },
} as const satisfies Record<string, { statuses: readonly number[]; message: string }>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;
export const ERROR_CODES = Object.keys(ERROR_REGISTRY) as ErrorCode[];

/** `param` is limited to 128 characters by the spec; longer paths are not reported. */
export const PARAM_MAX_LENGTH = 128;
export const RETRY_AFTER_MAX_SECONDS = 86_400;

export interface ApiErrorOptions {
  status?: number;
  message?: string;
  param?: string;
  retryAfter?: number;
  /** Extra response headers (rate-limit headers, Retry-After). */
  headers?: Record<string, string>;
  /** Log-only cause; never shown to the client. */
  cause?: unknown;
}

/** An error meant for the client. Anything else that escapes a handler becomes `server_error`. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly retryAfter: number | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    const entry = ERROR_REGISTRY[code];
    super(options.message ?? entry.message, { cause: options.cause });
    const status = options.status ?? entry.statuses[0];
    if (!(entry.statuses as readonly number[]).includes(status)) {
      throw new TypeError(`status ${status} is not registered for error code ${code}`);
    }
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.param =
      options.param !== undefined && options.param.length >= 1 && options.param.length <= PARAM_MAX_LENGTH
        ? options.param
        : undefined;
    this.retryAfter =
      options.retryAfter === undefined
        ? undefined
        : Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(0, Math.ceil(options.retryAfter)));
    this.headers = options.headers ?? {};
  }
}

/** Anything thrown, as the ApiError the client sees: itself, or a server_error that reveals nothing. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError('server_error', { cause: error });
}

/** The ApiError an error envelope (or an `error` event's fields) describes, its status and code intact. */
export function errorOfEnvelope(envelope: { code: string; status: number; message: string; param?: string | null; retry_after?: number }): ApiError {
  return new ApiError(envelope.code as ErrorCode, {
    status: envelope.status,
    message: envelope.message,
    param: envelope.param ?? undefined,
    retryAfter: envelope.retry_after,
  });
}

export const ErrorEnvelope = Type.Object(
  {
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    code: StringEnum(ERROR_CODES),
    message: Type.String({ minLength: 1 }),
    request_id: Type.String({ minLength: 1 }),
    param: Type.Optional(Type.String({ minLength: 1, maxLength: PARAM_MAX_LENGTH })),
    retry_after: Type.Optional(Type.Integer({ minimum: 0, maximum: RETRY_AFTER_MAX_SECONDS })),
  },
  {
    $id: 'ErrorEnvelope',
    additionalProperties: false,
    description: 'Every failure answers with this envelope. `request_id` equals the X-Request-ID header.',
  },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

export function toEnvelope(error: ApiError, requestId: string): ErrorEnvelope {
  const envelope: ErrorEnvelope = {
    status: error.status,
    code: error.code,
    message: error.message,
    request_id: requestId,
  };
  if (error.param !== undefined) envelope.param = error.param;
  if (error.retryAfter !== undefined) envelope.retry_after = error.retryAfter;
  return envelope;
}

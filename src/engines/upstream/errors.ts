import { ApiError } from '../../contract/errors.ts';
import { UpstreamError, type UpstreamFailure } from './exchange.ts';

/** Retry-After honoured before the one retry; a longer wait is left to the client. */
export const MAX_RETRY_WAIT_SECONDS = 2;

export interface MappedFailure {
  error: ApiError;
  /** Worth one more attempt if nothing reached the client yet. */
  retryable: boolean;
  /** Seconds to wait before that attempt. */
  waitSeconds: number;
  /** The operator's mistake (a wrong upstream key, a model the server does not know): logged as a configuration error. */
  misconfigured: boolean;
  /** For a misconfiguration: what the operator should check (the log line's message). */
  configurationHint?: string;
}

/**
 * What the client is told when the upstream fails. Connect failures, 429 and 503 are the model being
 * unavailable (503, with the upstream's Retry-After); a rejected upstream key or an unknown model
 * is too (the operator's fault, never the caller's); 5xx, error frames, cut streams, garbage and
 * answers over the byte limit are the model failing (502); the deadlines are 504. Only what may
 * go better at once is retried: a refused connect (instant), a short 429, a 5xx, an error frame,
 * a cut stream, a 503 asking for a short wait — not a connect that timed out (a retry would double the wait the operator set),
 * a 200 that is no completion, or an answer over its limit (the same request gets the same).
 * Messages name no address and echo no upstream body.
 */
/**
 * Said when the model's server does not answer: retrying helps only once it is back, and whoever
 * runs the service is told where to look (the log names the address; the client never sees it).
 */
const UNREACHABLE = "The model's server is not reachable. Whoever runs this service: see docs/models.md, Failures (the log names the address tried).";
const UNREACHABLE_IN_TIME = "The model's server is not reachable in time (no connection within its connect timeout). Whoever runs this service: see docs/models.md, Failures.";

export function mapUpstreamFailure(error: UpstreamError): MappedFailure {
  const failure: UpstreamFailure = error.failure;
  const base = { retryable: false, waitSeconds: 0, misconfigured: false };
  switch (failure.kind) {
    case 'connect':
      return { ...base, retryable: true, error: new ApiError('model_unavailable', { message: UNREACHABLE, retryAfter: 5, cause: error }) };
    case 'connect-timeout':
      return { ...base, error: new ApiError('model_unavailable', { message: UNREACHABLE_IN_TIME, retryAfter: 5, cause: error }) };
    case 'status': {
      const { status, retryAfterSeconds } = failure;
      if (status === 429 || status === 503) {
        // Busy (429), or unavailable for now (503: overloaded, loading the model, draining): so is the model.
        const busy = status === 429;
        return {
          ...base,
          retryable: (retryAfterSeconds ?? 0) <= MAX_RETRY_WAIT_SECONDS,
          waitSeconds: retryAfterSeconds ?? (busy ? 1 : 0),
          error: new ApiError('model_unavailable', {
            message: busy ? 'The model server is busy; retry after the indicated time.' : 'The model server is unavailable for now (HTTP 503); retry after the indicated time.',
            retryAfter: retryAfterSeconds ?? 5,
            cause: error,
          }),
        };
      }
      if (status === 401 || status === 403) {
        return {
          ...base,
          misconfigured: true,
          configurationHint: "the upstream refused our credentials: check the model entry's api_key_env",
          error: new ApiError('model_unavailable', { message: 'The model server refused this service\'s credentials; the operator has been told.', cause: error }),
        };
      }
      if (status === 404) {
        return {
          ...base,
          misconfigured: true,
          configurationHint: "the upstream does not know the model (HTTP 404): check the model entry's options.model and base_url",
          error: new ApiError('model_unavailable', { message: 'The model server does not serve this model; the operator has been told.', cause: error }),
        };
      }
      if (status >= 500) {
        return { ...base, retryable: true, waitSeconds: retryAfterSeconds ?? 0, error: new ApiError('model_error', { message: `The model server failed (HTTP ${status}).`, cause: error }) };
      }
      return { ...base, error: new ApiError('model_error', { message: `The model server refused the request (HTTP ${status}).`, cause: error }) };
    }
    case 'frame':
      return { ...base, retryable: true, error: new ApiError('model_error', { message: 'The model failed while it was answering.', cause: error }) };
    case 'dropped':
      return { ...base, retryable: true, error: new ApiError('model_error', { message: 'The model server closed the connection before the answer was complete.', cause: error }) };
    case 'malformed':
      return { ...base, error: new ApiError('model_error', { message: 'The model server sent a response that is not an OpenAI-compatible completion.', cause: error }) };
    case 'oversize':
      return { ...base, error: new ApiError('model_error', { message: `The model's answer exceeded the limit of ${sizeOf(failure.limitBytes)}.`, cause: error }) };
    case 'first-token-timeout':
      return { ...base, error: new ApiError('request_timeout', { message: 'The model did not start answering in time.', cause: error }) };
    case 'idle-timeout':
      return { ...base, error: new ApiError('request_timeout', { message: 'The model stopped sending its answer before it was complete.', cause: error }) };
    case 'deadline':
      return { ...base, error: new ApiError('request_timeout', { message: 'The model did not finish in time.', cause: error }) };
  }
}

/** A limit as the operator wrote it: whole MiB or KiB, else exact bytes (never a rounded figure that reads as another limit). */
function sizeOf(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** A provider that refused a parameter it does not know (some refuse `stream_options`). */
export function refusedParameter(error: UpstreamError, parameter: string): boolean {
  return error.failure.kind === 'status' && error.failure.status === 400 && error.failure.detail.includes(parameter);
}

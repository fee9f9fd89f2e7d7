import { ApiError, ERROR_REGISTRY, type ErrorCode } from '../../contract/errors.ts';

/**
 * Test-mode directives, the sandbox's equivalent of a payment API's test card numbers. They are
 * written as `[mock:…]` in a prompt or instructions, or comma-separated in the Inkwell-Mock
 * header (for requests without a prompt):
 *
 *   slow-stream          stream events slowly (several seconds in all)
 *   error=CODE           fail the request with that error code, as the live service would
 *   error=CODE:STATUS    the same, choosing the status for codes that have two (408 or 504)
 *   partial              fail part of the batch: with n > 1 the later half of the outputs
 *                        fail with model_error; with n = 1 the only output fails after a draft
 */
export interface Directives {
  slowStream: boolean;
  partial: boolean;
  error?: { code: ErrorCode; status?: number };
}

const OPEN = '[mock:';

/**
 * The `[mock:…]` tokens of a prompt, left to right; an `[mock:` with no `]` after it is plain
 * text. A forward indexOf scan, not a regex: `/\[mock:([^\]]*)\]/g` rescans to the end from
 * every unterminated `[mock:`, which is quadratic in a 100 000-character prompt.
 */
export function directiveTokens(text: string | undefined): string[] {
  const tokens: string[] = [];
  if (!text) return tokens;
  let from = 0;
  for (;;) {
    const start = text.indexOf(OPEN, from);
    if (start === -1) return tokens;
    const end = text.indexOf(']', start + OPEN.length);
    // No `]` after this `[mock:` means none after any later one either.
    if (end === -1) return tokens;
    tokens.push(text.slice(start + OPEN.length, end).trim());
    from = end + 1;
  }
}

function invalid(message: string, param: string | undefined): ApiError {
  return new ApiError('invalid_request', { message, param });
}

export function parseDirectives(sources: { tokens: string[]; param?: string }[]): Directives {
  const directives: Directives = { slowStream: false, partial: false };
  for (const { tokens, param } of sources) {
    for (const token of tokens) {
      if (token === 'slow-stream') directives.slowStream = true;
      else if (token === 'partial') directives.partial = true;
      else if (token.startsWith('error=')) {
        const [code, status] = token.slice('error='.length).split(':');
        if (!code || !Object.hasOwn(ERROR_REGISTRY, code)) {
          throw invalid(`Unknown sandbox error code in [mock:${token.slice(0, 60)}].`, param);
        }
        const statuses = ERROR_REGISTRY[code as ErrorCode].statuses as readonly number[];
        const parsedStatus = status === undefined ? undefined : Number(status);
        if (parsedStatus !== undefined && !statuses.includes(parsedStatus)) {
          throw invalid(`Error code ${code} is answered with status ${statuses.join(' or ')}.`, param);
        }
        directives.error = { code: code as ErrorCode, status: parsedStatus };
      } else {
        throw invalid(
          `Unknown sandbox directive [mock:${token.slice(0, 60)}]; expected slow-stream, partial or error=CODE.`,
          param,
        );
      }
    }
  }
  return directives;
}

/** Where an error naturally points, so the mocked envelope looks like the real one. */
const MOCK_PARAM: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'prompt',
  model_not_found: 'model',
  payload_too_large: 'prompt',
};

/** Retry timing a live rejection of this kind would carry. */
const MOCK_RETRY_AFTER: Partial<Record<ErrorCode, number>> = {
  rate_limit_exceeded: 20,
  operation_rate_limit_exceeded: 5,
  weekly_limit_exceeded: 86_400,
  model_unavailable: 30,
};

export function mockedError(error: NonNullable<Directives['error']>): ApiError {
  const retryAfter = MOCK_RETRY_AFTER[error.code];
  return new ApiError(error.code, {
    status: error.status,
    param: MOCK_PARAM[error.code],
    retryAfter,
    headers: retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
    message: `${ERROR_REGISTRY[error.code].message} (sandbox: requested with [mock:error=${error.code}])`,
  });
}

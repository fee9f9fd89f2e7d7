import { ApiError } from '../../contract/errors.ts';
import { UpstreamError, type EncodedBody } from '../upstream/exchange.ts';
import { mapUpstreamFailure, type MappedFailure } from '../upstream/errors.ts';
import type { Reader } from '../upstream/reception.ts';

// The OpenAI Images API as servers speak it: `POST /images/generations` (JSON) and
// `POST /images/edits` (a multipart form with the input pictures), answered as one JSON body
// (`data: [{ b64_json | url }]`, `usage`) or, with `stream: true`, as SSE events
// (`image_generation.partial_image`, `image_generation.completed`, and `image_edit.*` alike).

/** One finished picture as the server gave it. */
export type Picture = { b64: string; url?: never } | { url: string; b64?: never };

/** Tokens a call used, as the server reports them (`usage.input_tokens`, text and pictures, and `output_tokens`). */
export interface ImagesUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What one answer (or one event of a streamed one) says, normalized. */
export interface ImagesDelta {
  /** First of every call: the server answered 200 and is drawing. */
  accepted?: true;
  /** A partial picture of a streamed call, base64. */
  partial?: string;
  /** Finished pictures, in order. */
  pictures?: Picture[];
  usage?: ImagesUsage;
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

function usageOf(raw: unknown): ImagesUsage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const usage = raw as { input_tokens?: unknown; output_tokens?: unknown };
  const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);
  if (typeof usage.input_tokens !== 'number' && typeof usage.output_tokens !== 'number') return undefined;
  return { inputTokens: count(usage.input_tokens), outputTokens: count(usage.output_tokens) };
}

function errorFrame(frame: { error?: unknown; message?: unknown }): UpstreamError {
  const error = frame.error as { message?: unknown; code?: unknown } | string | undefined;
  const message = typeof error === 'object' && error !== null ? error.message : (error ?? frame.message);
  const code = typeof error === 'object' && error !== null && nonEmpty(error.code) ? ` (${error.code.slice(0, 100)})` : '';
  return new UpstreamError({ kind: 'frame', detail: `${String(message ?? 'error').slice(0, 500)}${code}` });
}

function pictureOf(item: unknown): Picture {
  const entry = (item ?? {}) as { b64_json?: unknown; url?: unknown };
  if (nonEmpty(entry.b64_json)) return { b64: entry.b64_json };
  if (nonEmpty(entry.url)) return { url: entry.url };
  throw new UpstreamError({ kind: 'malformed', detail: 'a picture has neither b64_json nor url' });
}

/** A whole answer: `{ data: [...], usage }`, or an error object sent with a 200. */
function answerOf(body: unknown): ImagesDelta {
  if (!body || typeof body !== 'object') throw new UpstreamError({ kind: 'malformed', detail: 'the answer is not an object' });
  const answer = body as { data?: unknown; usage?: unknown; error?: unknown };
  if (answer.error !== undefined && answer.error !== null) throw errorFrame(answer);
  if (!Array.isArray(answer.data) || answer.data.length === 0) throw new UpstreamError({ kind: 'malformed', detail: 'the answer has no data' });
  const delta: ImagesDelta = { pictures: answer.data.map(pictureOf) };
  const usage = usageOf(answer.usage);
  if (usage) delta.usage = usage;
  return delta;
}

/** One event of a streamed answer; events of other types (none are known) are skipped. */
function eventOf(chunk: unknown): ImagesDelta {
  if (!chunk || typeof chunk !== 'object') throw new UpstreamError({ kind: 'malformed', detail: 'a stream event is not an object' });
  const event = chunk as { type?: unknown; b64_json?: unknown; url?: unknown; usage?: unknown; error?: unknown };
  const type = typeof event.type === 'string' ? event.type : '';
  if (type === 'error' || (event.error !== undefined && event.error !== null)) throw errorFrame(event as { error?: unknown });
  if (type.endsWith('.partial_image')) return nonEmpty(event.b64_json) ? { partial: event.b64_json } : {};
  if (type.endsWith('.completed')) {
    const delta: ImagesDelta = { pictures: [pictureOf(event)] };
    const usage = usageOf(event.usage);
    if (usage) delta.usage = usage;
    return delta;
  }
  return {};
}

/** Finished pictures' bytes on the wire (base64 or URL): what max_image_bytes bounds, per call. */
function pictureBytes(delta: ImagesDelta): number {
  let bytes = 0;
  for (const picture of delta.pictures ?? []) bytes += (picture.b64 ?? picture.url).length;
  return bytes;
}

export const IMAGES: Reader<ImagesDelta> = {
  json: answerOf,
  chunk: eventOf,
  isToken: (delta) => delta.partial !== undefined || delta.pictures !== undefined,
  meter: () => pictureBytes,
};

/** What a call asks for, beyond the prompt: the entry's settings and the request's shape. */
export interface PictureRequest {
  model: string;
  prompt: string;
  n: number;
  size: string;
  quality?: string;
  outputFormat?: string;
  responseFormat?: string;
  transparent: boolean;
  /** Partial pictures to stream (0: no stream). */
  partialImages: number;
  extraBody: Record<string, unknown>;
}

/** The fields both endpoints take, as the API names them; unset ones are left out. */
function fieldsOf(request: PictureRequest): Record<string, unknown> {
  return {
    ...request.extraBody,
    model: request.model,
    prompt: request.prompt,
    n: request.n,
    size: request.size,
    ...(request.quality === undefined ? {} : { quality: request.quality }),
    ...(request.outputFormat === undefined ? {} : { output_format: request.outputFormat }),
    ...(request.responseFormat === undefined ? {} : { response_format: request.responseFormat }),
    ...(request.transparent ? { background: 'transparent' } : {}),
    ...(request.partialImages > 0 ? { stream: true, partial_images: request.partialImages } : {}),
  };
}

/** The JSON body of `POST /images/generations`. */
export function generationBody(request: PictureRequest): Record<string, unknown> {
  return fieldsOf(request);
}

/** An input picture for `POST /images/edits`. */
export interface InputPicture {
  bytes: Uint8Array;
  mediaType: string;
}

/**
 * The multipart body of `POST /images/edits`: the fields as text (objects as JSON), and the
 * pictures as files — `image` for one, `image[]` for several, as the API reads them.
 */
export async function editBody(request: PictureRequest, pictures: InputPicture[]): Promise<EncodedBody> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fieldsOf(request))) {
    if (value === undefined || value === null) continue;
    form.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const field = pictures.length === 1 ? 'image' : 'image[]';
  pictures.forEach((picture, index) => {
    const extension = picture.mediaType.split('/')[1] ?? 'png';
    form.append(field, new Blob([picture.bytes], { type: picture.mediaType }), `reference-${index + 1}.${extension}`);
  });
  // The platform's own encoder writes the form and its boundary.
  const encoded = new Response(form);
  return { encoded: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

/** The provider's words for a picture its safety system refused. */
const REFUSED = /moderation_blocked|content_policy_violation|safety system|content policy|moderation/i;

/**
 * Failures as the client sees them: the chat engine's mapping (429/5xx, timeouts, cut answers),
 * except that a request the image model's safety system refused is 403 content_policy_violation,
 * and a 400 is the model refusing what we sent (502), never the caller's mistake.
 */
export function mapImagesFailure(error: UpstreamError): MappedFailure {
  const failure = error.failure;
  const refused =
    (failure.kind === 'status' && failure.status === 400 && REFUSED.test(`${failure.code ?? ''} ${failure.detail}`)) ||
    (failure.kind === 'frame' && REFUSED.test(failure.detail));
  if (refused) {
    return {
      retryable: false,
      waitSeconds: 0,
      misconfigured: false,
      error: new ApiError('content_policy_violation', { message: "The image model declined this prompt under its content policy.", cause: error }),
    };
  }
  return mapUpstreamFailure(error);
}

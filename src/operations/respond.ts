import type { CatalogModel } from '../config/catalog.ts';
import { ApiError, asApiError, errorOfEnvelope } from '../contract/errors.ts';
import {
  inputImages,
  type ResponseResource,
  type ResponsesRequest,
  type ResponsesStreamError,
  type ResponsesStreamEvent,
} from '../contract/responses.ts';
import type { TokenUsage } from '../contract/usage.ts';
import type { ResponsesJob } from '../engines/engine.ts';
import type { ImageRef } from '../media/inputs.ts';
import { decodeBase64Input } from '../media/base64.ts';
import { checkImageBytes } from '../media/image.ts';
import { admit } from './admission.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { engineFor } from './engine-for.ts';
import { servedInOrder, servingOrder, type AdmittedRun } from './fallbacks.ts';
import { assertTakesImages, resolveModel } from './resolve-model.ts';

const OUTPUT_OF: Record<string, string> = {
  function_call_output: 'function_call',
  custom_tool_call_output: 'custom_tool_call',
};

const shown = (text: string) => text.slice(0, 64);

/**
 * Checks what the schema cannot, in one pass over the history: replayed outputs pair with
 * earlier calls by `call_id` only — a call id used twice, an output answering no earlier call
 * (or a call of the other kind), a second output for the same call and a call left without
 * its output are refused, naming the item; replayed reasoning is a bare reference (no summary
 * text: the service never returned any). Tools are declared once per name (both kinds reach a
 * Chat Completions server as functions), a forced or allowed tool choice names declared tools,
 * and `required` needs a tool.
 */
export function checkResponsesRequest(body: ResponsesRequest): void {
  if (Array.isArray(body.input)) {
    const calls = new Map<string, { type: string; index: number; answered: boolean }>();
    body.input.forEach((item, index) => {
      const type = (item as { type: string }).type;
      if (type === 'reasoning' && ((item as { summary?: unknown[] }).summary?.length ?? 0) > 0) {
        throw new ApiError('invalid_request', {
          param: `input[${index}].summary`,
          message: 'Replay a reasoning item as {type: "reasoning", id} only: its summary, text and encrypted content are not accepted.',
        });
      }
      const callId = (item as { call_id?: string }).call_id;
      if (type === 'function_call' || type === 'custom_tool_call') {
        if (calls.has(callId!)) {
          throw new ApiError('invalid_request', {
            param: `input[${index}].call_id`,
            message: `The call_id '${shown(callId!)}' is used by an earlier call in input (input[${calls.get(callId!)!.index}]); each call has its own.`,
          });
        }
        calls.set(callId!, { type, index, answered: false });
        return;
      }
      const expected = OUTPUT_OF[type];
      if (!expected) return;
      const call = calls.get(callId!);
      if (!call || call.type !== expected) {
        throw new ApiError('invalid_request', {
          param: `input[${index}].call_id`,
          message: `No ${expected} item with call_id '${shown(callId!)}' precedes this ${type}.`,
        });
      }
      if (call.answered) {
        throw new ApiError('invalid_request', {
          param: `input[${index}].call_id`,
          message: `The ${expected} with call_id '${shown(callId!)}' already has its ${type}; send one output per call.`,
        });
      }
      call.answered = true;
    });
    for (const call of calls.values()) {
      if (!call.answered) {
        throw new ApiError('invalid_request', {
          param: `input[${call.index}].call_id`,
          message: `No ${call.type}_output answers this ${call.type}: replay each call together with its output.`,
        });
      }
    }
  }
  const declared = new Map<string, string>();
  (body.tools ?? []).forEach((tool, index) => {
    if (declared.has(tool.name)) {
      throw new ApiError('invalid_request', {
        param: `tools[${index}].name`,
        message: `The tool name '${tool.name}' is declared twice; tool names must be unique.`,
      });
    }
    declared.set(tool.name, tool.type);
  });
  const choice = body.tool_choice;
  if (choice === 'required' && declared.size === 0) {
    throw new ApiError('invalid_request', { param: 'tool_choice', message: "tool_choice 'required' needs at least one tool in tools." });
  }
  if (choice && typeof choice === 'object') {
    const named = choice.type === 'allowed_tools' ? choice.tools.map((tool, i) => ({ tool, param: `tool_choice.tools[${i}].name` })) : [{ tool: choice, param: 'tool_choice.name' }];
    for (const { tool, param } of named) {
      if (declared.get(tool.name) !== tool.type) {
        throw new ApiError('invalid_request', {
          param,
          message: `tool_choice names ${tool.type} tool '${shown(tool.name)}', which is not declared in tools.`,
        });
      }
    }
  }
}

/**
 * Every `input_image` of the input, checked when the request arrives (a data: URL is decoded
 * and its header checked now; an http(s) URL is fetched by the engine through the SSRF-guarded
 * fetcher, never by the model server). Only models that take images accept them.
 */
async function prepareImages(body: ResponsesRequest, model: CatalogModel): Promise<Map<object, ImageRef>> {
  const images = new Map<object, ImageRef>();
  const found = [...inputImages(body)];
  if (found.length === 0) return images;
  assertTakesImages(model, found.length, found[0]!.param);
  for (const { part, param } of found) {
    const url = part.image_url;
    if (/^data:/i.test(url)) {
      const { bytes } = decodeBase64Input(url, param);
      images.set(part, { image: await checkImageBytes(bytes, param), param });
    } else if (/^https?:\/\//i.test(url)) {
      images.set(part, { url, param });
    } else {
      throw new ApiError('invalid_request', { param, message: 'An image_url is an http(s) URL or a data: URL with base64 image data.' });
    }
  }
  return images;
}

/** Measured usage from the wire usage of a terminal event (cached tokens are part of input). */
function measuredUsage(response: ResponseResource): TokenUsage | undefined {
  const usage = response.usage;
  if (!usage) return undefined;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cachedInputTokens: usage.input_tokens_details.cached_tokens,
    cacheWriteTokens: 0,
  };
}

/** The `error` event of a failure after the stream began: the envelope's fields and the status. */
export function responsesErrorEvent(error: unknown, sequenceNumber: number, requestId: string): ResponsesStreamEvent {
  const apiError = asApiError(error);
  const payload: ResponsesStreamError = {
    type: apiError.code,
    code: apiError.code,
    message: apiError.message,
    param: apiError.param ?? null,
    status_code: apiError.status,
    request_id: requestId,
  };
  if (apiError.retryAfter !== undefined) payload.retry_after = apiError.retryAfter;
  return { type: 'error', sequence_number: sequenceNumber, error: payload };
}

/**
 * POST /v1/responses: stateless Open Responses on the model's engine. Validation, the model,
 * account standing, the operation limits and (token-priced, spec rule 6) a reservation of the
 * most the request can cost come before any model work. The returned events end with the
 * terminal `response.completed` / `response.incomplete`, whose usage is recorded as delivered
 * before it is yielded (persisted first when streaming), or with an `error` event when the run
 * fails after its first event; a failure before it is thrown. However it ends, the stream
 * settles what was delivered and releases the rest: a request that fails is not charged, nor is
 * a JSON one whose client left before its answer was written. A model that cannot serve (503
 * before any event) hands the request to its fallbacks (fallbacks.ts).
 */
export async function createResponse(
  deps: OperationDeps,
  ctx: OperationContext,
  body: ResponsesRequest,
): Promise<AsyncGenerator<ResponsesStreamEvent>> {
  const model = resolveModel(deps.catalog, ctx.principal, body.model, 'open_responses');
  ctx.notes?.ran(model.entry.id, 'open_responses');
  checkResponsesRequest(body);
  const imageCount = [...inputImages(body)].length;
  const images = await prepareImages(body, model);
  const order = servingOrder(deps, ctx, model, { operation: 'open_responses', images: imageCount });
  const start = (serving: CatalogModel) => admitResponse(deps, ctx, serving, body, imageCount, images);
  if (order.length === 1) {
    const { events } = await start(model);
    ctx.served?.(model.entry.id);
    return events;
  }
  const first = await start(model);
  return servedInOrder(ctx, order, (serving) => (serving === model ? Promise.resolve(first) : start(serving)), (event: ResponsesStreamEvent, events) =>
    (async function* () {
      yield event;
      yield* events;
    })(),
  );
}

/**
 * The request admitted on one entry and run on its engine: the entry's own engine says what it
 * may cost (and refuses a cap it cannot write), then standing, limits and the reservation.
 */
async function admitResponse(
  deps: OperationDeps,
  ctx: OperationContext,
  model: CatalogModel,
  body: ResponsesRequest,
  imageCount: number,
  images: Map<object, ImageRef>,
): Promise<AdmittedRun<AsyncGenerator<ResponsesStreamEvent>>> {
  const own = deps.engines.engineFor(model);
  const engine = engineFor(deps, ctx, model);
  if (!engine.respond || !own.responsesTokenBounds || model.entry.billing.kind !== 'token_usage') {
    // The catalog refuses such entries at start; this guards a test key or a future engine.
    throw new ApiError('model_unavailable', { message: `The model '${model.entry.id}' does not serve Responses here.` });
  }
  const tokens = own.responsesTokenBounds(body, imageCount);
  const streaming = body.stream ?? false;
  const admitted = await admit(deps, ctx, { model, operation: 'open_responses', outputs: 1, tokens, streaming });
  const job: ResponsesJob = { requestId: ctx.requestId, model, request: body, images, signal: ctx.signal };
  const events = (async function* billed(): AsyncGenerator<ResponsesStreamEvent> {
    let last = -1;
    try {
      for await (const event of engine.respond!(job)) {
        // The terminal event's usage is counted (and, streaming, recorded) before it goes out.
        if (event.type === 'response.completed' || event.type === 'response.incomplete') await admitted.deliver(measuredUsage(event.response));
        last = event.sequence_number;
        yield event;
      }
    } catch (error) {
      if (last < 0 || ctx.signal.aborted) throw error;
      ctx.notes?.failed(asApiError(error).code);
      yield responsesErrorEvent(error, last + 1, ctx.requestId);
    } finally {
      await admitted.close();
    }
  })();
  return { events, admitted };
}

/**
 * The JSON answer: the terminal event's response. A run that failed after it began (an `error`
 * event) answers with that error as an envelope, its status and code intact.
 */
export async function collectResponse(events: AsyncIterable<ResponsesStreamEvent>): Promise<ResponseResource> {
  let response: ResponseResource | undefined;
  for await (const event of events) {
    if (event.type === 'error') throw errorOfEnvelope({ ...event.error, code: event.error.code ?? 'server_error', status: event.error.status_code });
    if (event.type === 'response.completed' || event.type === 'response.incomplete') response = event.response;
  }
  if (!response) throw new ApiError('model_error', { message: 'The model produced no response.' });
  return response;
}

import type { CatalogEntry } from '../../../config/schema.ts';
import type { ResponsesStreamEvent, ResponsesUsage } from '../../../contract/responses.ts';
import type { ResponsesJob } from '../../engine.ts';
import type { OpenAiCompatibleOptions } from '../options.ts';
import { localUsage, responsesOutputBudget, type CountTokens } from '../budget.ts';
import type { UpstreamSet } from '../../upstream/routing/upstream-set.ts';
import { CallDeadline, jobSignal, upstreamCall } from '../../upstream/call.ts';
import type { UpstreamUsage } from '../../upstream/client.ts';
import { ResponseBuilder } from './builder.ts';
import { ChatAnswerReader, type ChatEnd } from './chat-answer.ts';
import { toChatRequest, type ChatRequest } from './chat-request.ts';
import { PassthroughReader, toResponsesBody, type PassthroughEnd } from './passthrough.ts';

export interface ResponsesRunContext {
  entry: CatalogEntry;
  options: OpenAiCompatibleOptions;
  upstreams: UpstreamSet;
  maxAttempts: number;
  /** Tokens in texts by a common encoding, counted off the event loop (for a server that reports no usage). */
  countTokens(texts: string[], signal: AbortSignal): Promise<number>;
  /** A checked image as a data: URL of at most `maxSide` pixels a side. */
  referenceImage(ref: import('../../../media/inputs.ts').ImageRef, maxSide: number, signal: AbortSignal): Promise<string>;
}

/**
 * Runs one POST /v1/responses on the entry's server: translated to Chat Completions, or passed
 * through when the server speaks Responses (`options.responses_api`). Events start once the
 * server accepted the call (an unreachable or busy server is still a plain JSON error). Failures
 * are mapped, retried and failed over as for SVG calls (upstreamCall) — only while no output
 * item reached the client. The service never runs
 * a tool: calls are returned for the caller to run.
 */
export async function* runResponses(ctx: ResponsesRunContext, job: ResponsesJob): AsyncGenerator<ResponsesStreamEvent> {
  const { entry, options } = ctx;
  const { signal, close } = jobSignal(job.signal);
  const count: CountTokens = (texts) => ctx.countTokens(texts, signal);
  try {
    // Inputs first: an image that cannot be fetched or decoded is a plain 400 before any model work.
    const imageUrls = new Map<object, string>();
    await Promise.all(
      [...job.images].map(async ([part, ref]) => imageUrls.set(part, await ctx.referenceImage(ref, options.reference_max_side, signal))),
    );
    const request = job.request;
    const maxOutputTokens = responsesOutputBudget(entry, options, request.max_output_tokens);
    const chat = options.responses_api ? undefined : toChatRequest(request, entry, options, imageUrls);
    const passthroughBody = options.responses_api ? toResponsesBody(request, entry, options, imageUrls, maxOutputTokens) : undefined;

    const builder = new ResponseBuilder(request, entry.id);
    const call = (body: Record<string, unknown>, deadlineAt: number) => ({ body, signal, firstTokenTimeoutMs: options.first_token_timeout_ms, deadlineAt });
    const policy = { signal, upstreams: ctx.upstreams, maxAttempts: ctx.maxAttempts, deadline: new CallDeadline(options.total_timeout_ms), streamOptions: chat !== undefined };
    yield* upstreamCall(
      policy,
      async function* (member, streamOptions, deadlineAt) {
        if (chat) {
          const reader = new ChatAnswerReader(builder, chat.customTools, request.parallel_tool_calls === false);
          const body = {
            ...options.extra_body,
            model: member.model,
            ...chat.body,
            max_tokens: maxOutputTokens,
            stream: true,
            ...(streamOptions ? { stream_options: { include_usage: true } } : {}),
          };
          for await (const deltas of member.client.complete(call(body, deadlineAt))) {
            for (const delta of deltas) {
              if (delta.accepted) yield* builder.start();
              else yield* reader.take(delta);
            }
          }
          const { events, end } = reader.end();
          yield* events;
          yield* builder.finish({ ...end, usage: await usageOfChat(end, chat, ctx, count) });
        } else {
          const reader = new PassthroughReader(builder);
          for await (const deltas of member.client.respond(call({ ...passthroughBody!, model: member.model }, deadlineAt))) {
            for (const delta of deltas) {
              if (delta.accepted) yield* builder.start();
              else if (delta.event) yield* reader.take(delta.event);
            }
          }
          const end = reader.end();
          yield* builder.finish({ ...end, usage: await usageOfPassthrough(end, passthroughBody!, job.images.size, ctx, count) });
        }
      },
      () => builder.forwarded,
    );
  } finally {
    close(); // the client left, or the response ended: no upstream call outlives the request
  }
}

/** Wire usage from what the server reported, or from a local count when it reported none. */
function wire(usage: UpstreamUsage, reasoningTokens: number): ResponsesUsage {
  return {
    input_tokens: usage.promptTokens,
    output_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    input_tokens_details: { cached_tokens: Math.min(usage.cachedTokens, usage.promptTokens) },
    output_tokens_details: { reasoning_tokens: Math.min(usage.reasoningTokens ?? reasoningTokens, usage.completionTokens) },
  };
}

async function reasoningTokensOf(usage: UpstreamUsage | undefined, reasoning: string, count: CountTokens): Promise<number> {
  if (usage?.reasoningTokens !== undefined || reasoning === '') return 0;
  return count([reasoning]);
}

/**
 * A chat call's usage. A server that reports none is counted with the o200k tokenizer, as SVG
 * calls are: the messages' text, the tool definitions and replayed calls, each image at the
 * entry's allowance in; the answer, its reasoning and its tool calls out.
 */
async function usageOfChat(end: ChatEnd, chat: ChatRequest, ctx: ResponsesRunContext, count: CountTokens): Promise<ResponsesUsage> {
  const reasoningTokens = await reasoningTokensOf(end.usage, end.reasoning, count);
  if (end.usage) return wire(end.usage, reasoningTokens);
  const texts: string[] = [];
  for (const message of chat.messages) {
    if (typeof message.content === 'string') texts.push(message.content);
    else for (const part of message.content) if (part.type === 'text') texts.push(part.text);
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) texts.push(call.function.name, call.function.arguments);
  }
  if (chat.body.tools) texts.push(JSON.stringify(chat.body.tools));
  const usage = await localUsage(count, ctx.options, { texts, images: chat.images }, end.written);
  return wire(usage, Math.min(reasoningTokens, usage.completionTokens));
}

async function usageOfPassthrough(end: PassthroughEnd, body: Record<string, unknown>, images: number, ctx: ResponsesRunContext, count: CountTokens): Promise<ResponsesUsage> {
  if (end.usage) return wire(end.usage, 0);
  const input = JSON.stringify({ instructions: body.instructions, input: body.input, tools: body.tools }, (key, value: unknown) => (key === 'image_url' ? '' : value));
  return wire(await localUsage(count, ctx.options, { texts: [input], images }, end.written), 0);
}

import type { SvgOperation } from '../../contract/models.ts';
import type { SvgStreamEvent } from '../../contract/svgs.ts';
import type { Usage } from '../../contract/usage.ts';
import { cliIo } from '../io.ts';
import { asApiError, type ApiErrorDetails } from './api-error.ts';
import { connectionFrom } from './connection.ts';
import { defaultModel } from './default-model.ts';
import { ClientExit } from './exit-codes.ts';
import { ensureDirectory, writeNewFile } from './files.ts';
import { ApiClient, type EventStream } from './http.ts';
import type { OperationOptions } from './options.ts';
import { outcomeOf, type StreamEnd } from './outcome.ts';
import { StreamBroken } from './sse.ts';
import { progressReporter, type ProgressReporter } from './status-line.ts';

/** One SVG operation as a command runs it. */
export interface OperationSpec {
  /** The command's name (generate, vectorize, edit, animate); it starts each file name. */
  name: string;
  path: string;
  /** The catalog operation, to pick a model when --model is not given. */
  operation: SvgOperation;
  /** The request fields other than `model` and `stream`. */
  body: Record<string, unknown>;
  /** Outputs asked for: n of a generation, 1 otherwise. */
  expected: number;
}

export interface WrittenFile {
  path: string;
  id: string;
  index: number;
  credits?: number;
  usage?: Usage;
  loop_period_ms?: number | null;
  opening_animation_ms?: number | null;
  svg_score?: number | null;
}

/** What --json prints: the files written, what they cost, and what ended the stream early, if anything. */
export interface OperationResult {
  operation: string;
  model: string;
  request_id: string | null;
  requested: number;
  files: WrittenFile[];
  credits?: number;
  /** `false` on a test key: `credits` is what the run would cost on a live key; nothing was charged. */
  charged?: false;
  usage?: Usage;
  error: ApiErrorDetails | { message: string } | null;
}

type ContentEvent = Extract<SvgStreamEvent, { type: 'content' }>;

/**
 * Streams the operation (always `stream: true`: only the stream says why part of a batch failed),
 * writes each output as it completes, prints its path (or, with --json, one document at the end)
 * and throws ClientExit unless every output arrived.
 */
export async function runOperation(spec: OperationSpec, options: OperationOptions): Promise<void> {
  const connection = connectionFrom(options);
  const api = new ApiClient(connection);
  const testKey = connection.key.startsWith('sk_test_');
  await ensureDirectory(options.output);
  const model = options.model ?? (await defaultModel(api, spec.operation));
  const stream = await api.postEventStream(spec.path, { model, ...spec.body, stream: true });

  const reporter = progressReporter(spec.name, spec.expected, testKey);
  let phase = 'failed';
  try {
    const { files, end } = await saveOutputs(stream, spec, options, reporter);
    const outcome = outcomeOf(end);
    phase = outcome.phase;
    if (options.json) {
      const error = end.failure ?? (outcome.problem !== undefined ? { message: outcome.problem } : null);
      const requestId = stream.requestId ?? end.failure?.request_id ?? null;
      cliIo().stdout.write(`${JSON.stringify(resultOf(spec, model, requestId, files, error, testKey), null, 2)}\n`);
    }
    if (outcome.problem !== undefined) throw new ClientExit(outcome.problem, outcome.exitCode);
  } finally {
    reporter.finish(phase);
  }
}

/** Reads the stream to its end, writing each completed output at once (so a later failure keeps it). */
async function saveOutputs(
  stream: EventStream,
  spec: OperationSpec,
  options: OperationOptions,
  reporter: ProgressReporter,
): Promise<{ files: WrittenFile[]; end: StreamEnd }> {
  const base = fileBase(spec.name, stream.requestId);
  const files: WrittenFile[] = [];
  const end: StreamEnd = { written: 0, expected: spec.expected, closed: false };
  try {
    for await (const message of stream.messages) {
      if (message.done) {
        end.closed = true;
        break;
      }
      const event = message.event;
      reporter.update(event);
      if (event.type === 'content') {
        const index = event.index ?? files.length;
        const path = await writeNewFile(options.output, `${base}-${index}.svg`, event.svg);
        files.push(writtenFile(path, event, index));
        if (!options.json) reporter.print(path);
      } else if (event.type === 'error') {
        end.failure = asApiError(event) ?? { status: 502, code: 'server_error', message: 'an error event without its fields' };
      }
    }
  } catch (error) {
    if (!(error instanceof StreamBroken)) throw error;
    end.broken = error.message;
  }
  end.written = files.length;
  return { files, end };
}

/** `generate-req_01…`: the request id ties the files to the server's logs; a UTC timestamp when there is none. */
function fileBase(name: string, requestId: string | undefined): string {
  const safe = requestId !== undefined && /^[A-Za-z0-9_-]{1,100}$/.test(requestId);
  return `${name}-${safe ? requestId : new Date().toISOString().replace(/[-:]|\.\d+/g, '')}`;
}

function writtenFile(path: string, event: ContentEvent, index: number): WrittenFile {
  const file: WrittenFile = { path, id: event.id, index };
  if (event.credits !== undefined) file.credits = event.credits;
  if (event.usage !== undefined) file.usage = event.usage;
  if (event.loop_period_ms !== undefined) file.loop_period_ms = event.loop_period_ms;
  if (event.opening_animation_ms !== undefined) file.opening_animation_ms = event.opening_animation_ms;
  if (event.svg_score !== undefined) file.svg_score = event.svg_score;
  return file;
}

function resultOf(
  spec: OperationSpec,
  model: string,
  requestId: string | null,
  files: WrittenFile[],
  error: OperationResult['error'],
  testKey: boolean,
): OperationResult {
  const credits = files.flatMap((f) => (f.credits === undefined ? [] : [f.credits]));
  const usages = files.flatMap((f) => (f.usage === undefined ? [] : [f.usage]));
  return {
    operation: spec.name,
    model,
    request_id: requestId,
    requested: spec.expected,
    files,
    ...(credits.length > 0 ? { credits: credits.reduce((sum, c) => sum + c, 0) } : {}),
    ...(testKey ? { charged: false as const } : {}),
    ...(usages.length > 0 ? { usage: usages.reduce(addUsage) } : {}),
    error,
  };
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}

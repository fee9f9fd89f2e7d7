import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Envelope, InkwellApi, StreamEvent } from './api.ts';
import type { McpTransport, ToolSpec } from './tools.ts';

/** What the tools run on: the API with the caller's key, a renderer for previews, and (stdio) files. */
export interface ToolHost {
  transport: McpTransport;
  api: InkwellApi;
  /** A PNG of the SVG, at most PREVIEW_SIDE pixels a side, for a multimodal agent to see. */
  preview(svg: string, maxSide: number, signal: AbortSignal): Promise<Uint8Array>;
  /** A call's own cancellation, where the transport cannot deliver it to the call (stateless HTTP). */
  cancellation?(requestId: string | number): AbortSignal | undefined;
  /** stdio only: the agent's own files. */
  files?: {
    read(path: string): Promise<Buffer>;
    /** Writes the text; returns the absolute path written. */
    write(path: string, text: string): Promise<string>;
  };
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const PREVIEW_SIDE = 512;

/** A tool error: the envelope's code, message and request id, for the agent to read and act on. */
function toolError(error: Envelope): CallToolResult {
  const where = [error.param ? `param: ${error.param}` : '', error.request_id ? `request_id: ${error.request_id}` : ''].filter(Boolean).join(', ');
  return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}${where ? ` (${where})` : ''}` }], structuredContent: { error } };
}

const invalid = (param: string, message: string): CallToolResult => toolError({ status: 400, code: 'invalid_request', message, param });

/**
 * Runs one tool call: a read (GET) or an operation, streamed so each of its events becomes a
 * progress notification (when the agent asked for progress). The caller's abort (a cancelled
 * call) closes the request, as any client that leaves.
 */
export async function callTool(host: ToolHost, specs: ToolSpec[], name: string, args: Record<string, unknown>, received: Extra): Promise<CallToolResult> {
  const cancelled = host.cancellation?.(received.requestId);
  const extra = cancelled ? { ...received, signal: AbortSignal.any([received.signal, cancelled]) } : received;
  const spec = specs.find((candidate) => candidate.name === name);
  if (!spec) return invalid('name', `There is no tool '${name}'; the tools are ${specs.map((s) => s.name).join(', ')}.`);
  if (spec.call.kind === 'read') {
    const answer = await host.api.getJson<unknown>(spec.call.path, extra.signal);
    if (!answer.ok) return toolError(answer.error);
    return {
      content: [{ type: 'text', text: JSON.stringify(answer.body, null, 2) }],
      structuredContent: { ...(answer.body as Record<string, unknown>), request_id: answer.requestId },
    };
  }
  const prepared = await prepare(host, spec, args);
  if (!prepared.ok) return prepared.refused;
  const answer = await host.api.stream(spec.call.path, prepared.body, extra.signal, progressOf(extra));
  if (!answer.ok) return toolError(answer.error);
  return delivered(host, answer.body, { requestId: answer.requestId, model: answer.model, outputPath: prepared.outputPath }, extra.signal);
}

/** The request body from the tool's arguments: `output_path` taken out, a local image file read (stdio). */
async function prepare(
  host: ToolHost,
  spec: ToolSpec,
  args: Record<string, unknown>,
): Promise<{ ok: true; body: Record<string, unknown>; outputPath?: string } | { ok: false; refused: CallToolResult }> {
  const refuse = (param: string, message: string) => ({ ok: false as const, refused: invalid(param, message) });
  const { output_path: outputPath, ...body } = args;
  if (outputPath !== undefined && (typeof outputPath !== 'string' || !host.files)) {
    return refuse('output_path', host.files ? "'output_path' must be a file path." : "'output_path' writes a file on the agent's machine: only the stdio server (inkwell mcp) takes it.");
  }
  const image = body.image as { path?: unknown } | undefined;
  if (spec.name === 'vectorize_image' && image && typeof image === 'object' && 'path' in image) {
    if (!host.files || typeof image.path !== 'string') return refuse('image.path', "A local file is read only by the stdio server (inkwell mcp); give 'image' as a URL or base64.");
    let bytes: Buffer;
    try {
      bytes = await host.files.read(image.path);
    } catch (error) {
      return refuse('image.path', `Could not read '${image.path}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
    }
    body.image = { base64: bytes.toString('base64') };
  }
  return { ok: true, body, ...(outputPath === undefined ? {} : { outputPath: outputPath as string }) };
}

/** Each event of the operation's stream as a progress notification, when the agent asked for them. */
function progressOf(extra: Extra): (event: StreamEvent) => void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let progress = 0;
  return (event) => {
    if (event.type === 'reasoning') return; // a token at a time: far too many to notify
    const index = typeof event.data.index === 'number' ? ` ${event.data.index + 1}` : '';
    const message = event.type === 'content' ? `output${index} done` : event.type === 'draft' ? (index ? `draft of output${index}` : 'draft') : event.type;
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } }).catch(() => undefined);
  };
}

/** The outputs of a finished stream: each SVG as text and a PNG preview, then what it cost and its request id. */
async function delivered(host: ToolHost, events: StreamEvent[], served: { requestId?: string; model?: string; outputPath?: string }, signal: AbortSignal): Promise<CallToolResult> {
  const outputs = events.filter((event) => event.type === 'content' && typeof event.data.svg === 'string');
  const svgs = outputs.map((event) => event.data.svg as string);
  const content: CallToolResult['content'] = [];
  for (const svg of svgs) {
    content.push({ type: 'text', text: svg });
    try {
      const png = await host.preview(svg, PREVIEW_SIDE, signal);
      content.push({ type: 'image', data: Buffer.from(png).toString('base64'), mimeType: 'image/png' });
    } catch {
      // a preview is a courtesy: the SVG is the result
    }
  }
  const credits = outputs.reduce((sum, event) => sum + (typeof event.data.credits === 'number' ? event.data.credits : 0), 0);
  const usage = sumUsage(outputs);
  const files: string[] = [];
  if (served.outputPath && host.files) {
    for (const [i, svg] of svgs.entries()) files.push(await host.files.write(numbered(served.outputPath, i), svg));
  }
  const summary = {
    request_id: served.requestId,
    model: served.model,
    outputs: svgs.length,
    ...(usage ? { usage } : { credits }),
    ...(files.length > 0 ? { files } : {}),
  };
  const cost = usage ? `${usage.input_tokens} input and ${usage.output_tokens} output tokens` : `${credits} credit${credits === 1 ? '' : 's'}`;
  content.push({
    type: 'text',
    text: `${svgs.length} SVG${svgs.length === 1 ? '' : 's'} from ${served.model ?? 'the model'}, charged ${cost}; request_id ${served.requestId ?? 'unknown'}${files.length > 0 ? `; written to ${files.join(', ')}` : ''}.`,
  });
  return { content, structuredContent: { ...summary, svgs } };
}

function sumUsage(outputs: StreamEvent[]): { input_tokens: number; output_tokens: number; total_tokens: number } | undefined {
  let usage: { input_tokens: number; output_tokens: number; total_tokens: number } | undefined;
  for (const { data } of outputs) {
    const u = data.usage as { input_tokens?: number; output_tokens?: number; total_tokens?: number } | undefined;
    if (!u) continue;
    usage ??= { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    usage.input_tokens += u.input_tokens ?? 0;
    usage.output_tokens += u.output_tokens ?? 0;
    usage.total_tokens += u.total_tokens ?? 0;
  }
  return usage;
}

/** The file of output `index`: the path itself for the first, NAME-2.svg and so on after it. */
function numbered(path: string, index: number): string {
  if (index === 0) return path;
  const dot = path.lastIndexOf('.');
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return dot > slash ? `${path.slice(0, dot)}-${index + 1}${path.slice(dot)}` : `${path}-${index + 1}`;
}

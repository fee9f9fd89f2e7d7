import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A scripted OpenAI-compatible Images API on 127.0.0.1, answering as the real ones do:
 * `POST /v1/images/generations` (JSON) and `POST /v1/images/edits` (multipart), with pictures as
 * `b64_json` or as URLs it serves itself (`GET /v1/files/<id>`), `usage`, SSE streams of partial
 * pictures (`image_generation.partial_image`, then `.completed`), errors, cut connections and
 * stalls. Each request is recorded, its JSON body or form fields and files read.
 */

export interface PicturesReply {
  kind: 'pictures';
  /** The pictures of the answer; a function receives the request's `n`. */
  pictures: Buffer[] | ((n: number) => Buffer[]);
  /** How they are given: base64 in the body (default), or URLs on this server. */
  as?: 'b64' | 'url';
  /** A URL answer pointing elsewhere (another host): the address to hand out instead. */
  urlBase?: string;
  usage?: { input_tokens: number; output_tokens: number } | null;
  delayMs?: number;
}

export interface StreamPicturesReply {
  kind: 'stream';
  partials: Buffer[];
  picture: Buffer;
  usage?: { input_tokens: number; output_tokens: number } | null;
  /** Pause before each event. */
  eventDelayMs?: number;
  /** Cut the connection after this many partial pictures. */
  dropAfter?: number;
}

export interface ErrorReply {
  kind: 'error';
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RawReply {
  kind: 'raw';
  status?: number;
  contentType?: string;
  body: string;
}

export type ImagesReply = PicturesReply | StreamPicturesReply | ErrorReply | RawReply | { kind: 'drop' } | { kind: 'hang' };

export interface ImagesRequest {
  path: string;
  headers: IncomingMessage['headers'];
  /** The JSON body, or the form's text fields. */
  fields: Record<string, unknown>;
  /** The form's files (edits): field name, type and bytes. */
  files: { field: string; type: string; bytes: Buffer }[];
  aborted: boolean;
}

export interface FakeImagesApi {
  url: string;
  reply: (request: ImagesRequest, index: number) => ImagesReply | Promise<ImagesReply>;
  requests: ImagesRequest[];
  /** GET requests for pictures handed out by URL. */
  fileFetches: number;
  close(): Promise<void>;
}

async function readRequest(req: IncomingMessage): Promise<Pick<ImagesRequest, 'fields' | 'files'>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const type = String(req.headers['content-type'] ?? '');
  if (type.startsWith('multipart/form-data')) {
    // The platform's own parser, as a server's framework would read the form.
    const form = await new Response(body, { headers: { 'content-type': type } }).formData();
    const fields: Record<string, unknown> = {};
    const files: ImagesRequest['files'] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') fields[field] = value;
      else files.push({ field, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
    }
    return { fields, files };
  }
  try {
    return { fields: JSON.parse(body.toString('utf8')) as Record<string, unknown>, files: [] };
  } catch {
    return { fields: {}, files: [] };
  }
}

export async function startFakeImagesApi(reply: FakeImagesApi['reply']): Promise<FakeImagesApi> {
  const sockets = new Set<Socket>();
  const files = new Map<string, Buffer>();
  const api: FakeImagesApi = {
    url: '',
    reply,
    requests: [],
    fileFetches: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/v1/files/')) {
      api.fileFetches++;
      const picture = files.get(req.url.slice('/v1/files/'.length));
      if (!picture) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': picture.length });
      return void res.end(picture);
    }
    const { fields, files: uploaded } = await readRequest(req);
    const record: ImagesRequest = { path: req.url ?? '', headers: req.headers, fields, files: uploaded, aborted: false };
    res.once('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    const index = api.requests.length;
    api.requests.push(record);
    const answer = await api.reply(record, index);
    const n = Number(fields.n ?? 1);
    switch (answer.kind) {
      case 'pictures': {
        if (answer.delayMs) await sleep(answer.delayMs);
        const pictures = typeof answer.pictures === 'function' ? answer.pictures(n) : answer.pictures;
        const data = pictures.map((picture) => {
          if (answer.as !== 'url') return { b64_json: picture.toString('base64'), revised_prompt: 'a picture' };
          const id = `${files.size + 1}.png`;
          files.set(id, picture);
          return { url: `${answer.urlBase ?? api.url}/files/${id}` };
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ created: 1767225600, data, ...(answer.usage === null ? {} : { usage: answer.usage ?? usage(fields, n) }) }));
        break;
      }
      case 'stream':
        await writeStream(res, answer, record.path.endsWith('/edits') ? 'image_edit' : 'image_generation', fields, req);
        break;
      case 'error':
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body ?? { error: { message: `status ${answer.status}`, type: 'error' } }));
        break;
      case 'raw':
        res.writeHead(answer.status ?? 200, answer.contentType === undefined ? {} : { 'content-type': answer.contentType });
        res.end(answer.body);
        break;
      case 'drop':
        req.socket.destroy();
        break;
      case 'hang':
        await new Promise((resolve) => res.once('close', resolve));
        break;
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return api;
}

/** gpt-image-1's figures: the prompt's words as text tokens, 1056 output tokens a picture (medium quality). */
function usage(fields: Record<string, unknown>, n: number): { input_tokens: number; output_tokens: number } {
  const words = String(fields.prompt ?? '').split(/\s+/).filter(Boolean).length;
  return { input_tokens: words, output_tokens: 1056 * n };
}

async function writeStream(res: ServerResponse, reply: StreamPicturesReply, prefix: string, fields: Record<string, unknown>, req: IncomingMessage): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  for (const [index, partial] of reply.partials.entries()) {
    if (reply.eventDelayMs) await sleep(reply.eventDelayMs);
    if (res.destroyed) return;
    if (reply.dropAfter !== undefined && index >= reply.dropAfter) return void req.socket.destroy();
    send(`${prefix}.partial_image`, { b64_json: partial.toString('base64'), partial_image_index: index, size: fields.size, output_format: 'png' });
  }
  if (reply.dropAfter !== undefined && reply.partials.length >= reply.dropAfter) return void req.socket.destroy();
  if (reply.eventDelayMs) await sleep(reply.eventDelayMs);
  if (res.destroyed) return;
  send(`${prefix}.completed`, { b64_json: reply.picture.toString('base64'), size: fields.size, output_format: 'png', ...(reply.usage === null ? {} : { usage: reply.usage ?? usage(fields, 1) }) });
  res.end();
}

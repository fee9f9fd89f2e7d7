import { createServer, type Server } from 'node:http';
import { startTraceServer } from '../trace-latency/server.ts';

// What the image-trace benchmark and picture share: a scripted Images API and an Inkwell server
// whose image-trace entry calls it.

/** The scripted Images API: one picture per call, whatever was asked; it times its own answers. */
export function startPictureServer(): Promise<{ url: string; next: (png: Buffer) => void; answerMs: () => number; close(): void }> {
  let picture: Buffer = Buffer.alloc(0);
  let spent = 0;
  const server: Server = createServer((req, res) => {
    const started = performance.now();
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ created: 1, data: [{ b64_json: picture.toString('base64') }] }), () => (spent = performance.now() - started));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}/v1`, next: (png) => (picture = png), answerMs: () => spent, close: () => server.close() });
    }),
  );
}

/** An Inkwell server in this process (temp SQLite) with one image-trace entry, `draw`, on the scripted API, and a live key. */
export async function startInkwell(apiUrl: string, detail = 'medium'): Promise<{ url: string; key: string; close(): Promise<void> }> {
  const catalog = {
    models: [
      {
        id: 'draw',
        engine: 'image-trace',
        operations: ['svg_generate'],
        billing: { kind: 'fixed_credit', credits: { svg_generate: 1 } },
        input_modalities: ['text'],
        options: { base_url: apiUrl, model: 'bench', trace_detail: detail },
      },
    ],
  };
  // The tracer's latency bench's server, with the catalog (and the default worker count: two pictures may trace at once).
  const server = await startTraceServer({ catalog, trace: {} });
  return { url: server.url, key: server.liveKey, close: () => server.close() };
}

/** One generation of `draw`, its viewBox the picture's own size; the delivered SVG. */
export async function generate(inkwell: { url: string; key: string }, picture: { name: string; width: number; height: number }): Promise<string> {
  const response = await fetch(`${inkwell.url}/v1/svgs/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${inkwell.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'draw', prompt: picture.name, attributes: { viewBox: { minX: 0, minY: 0, width: picture.width, height: picture.height } } }),
  });
  const body = (await response.json()) as { data?: { svg: string }[] };
  if (response.status !== 200 || !body.data) throw new Error(`${picture.name}: HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.data[0]!.svg;
}

/**
 * Instructions per request of one build's server, counted by callgrind: a figure this machine's
 * other load does not move (server CPU time moves by up to a third from minute to minute here).
 * The server runs under valgrind (about 50 times slower), is warmed with unmeasured requests,
 * then counted over windows of a fixed number of requests (all threads of the server process;
 * worker processes are not counted). V8 still compiles under valgrind, so a window's count includes
 * some compiler work; compare builds with the same flags in one sitting.
 *
 * Usage: npm run build && node --import tsx bench/instructions.ts [--checkout DIR] [--target up-json]
 *          [--requests 600] [--windows 2] [--connections 4] [--chunks 40]
 *   --checkout: a built Inkwell (bin/inkwell.js and dist/; default this one). Targets as
 *   side-by-side.ts: up-json, up-stream, sandbox-json, sandbox-stream, routed-json, routed-stream.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import { startFakeUpstream } from '../test/fakes/upstream.ts';
import { pinSelf } from './gateway/proc.ts';
import { startInkwell, stopAll } from './gateway/server.ts';
import { ANSWER_SVG, CHUNKS, USAGE } from './gateway/svg.ts';

const { values: args } = parseArgs({
  options: {
    checkout: { type: 'string', default: join(import.meta.dirname, '..') },
    target: { type: 'string', default: 'up-json' },
    requests: { type: 'string', default: '600' },
    windows: { type: 'string', default: '2' },
    connections: { type: 'string', default: '4' },
    // The upstream's answer in this many stream chunks (side-by-side.ts --chunks).
    chunks: { type: 'string', default: String(CHUNKS) },
  },
});
const MODELS: Record<string, string> = { up: 'up-fixed', sandbox: 'sandbox-fixed', routed: 'up-routed' };
const [model, mode] = args.target.split('-');
if (!MODELS[model!] || !['json', 'stream'].includes(mode!)) {
  console.error('bench/instructions.ts: --target is up-json, up-stream, sandbox-json, sandbox-stream, routed-json or routed-stream');
  process.exit(2);
}
const REQUESTS = Number(args.requests);
const CONNECTIONS = Number(args.connections);

pinSelf(1);
const outDir = mkdtempSync(join(tmpdir(), 'inkwell-callgrind-'));
const upstream = await startFakeUpstream(() => ({ kind: 'stream', content: ANSWER_SVG, chunks: Number(args.chunks), usage: USAGE }));
try {
  const server = await startInkwell({
    cpu: 0,
    upstreamUrl: upstream.url,
    pacedUrl: upstream.url,
    maxConcurrency: CONNECTIONS,
    routed: model === 'routed',
    bin: join(resolve(args.checkout), 'bin/inkwell.js'),
    wrapper: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(outDir, 'callgrind.out')}`],
  });
  const load = {
    url: `${server.url}/v1/svgs/generations`,
    method: 'POST',
    headers: { authorization: `Bearer ${server.liveKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODELS[model!], prompt: 'a lighthouse at dusk', ...(mode === 'stream' ? { stream: true } : {}) }),
    connections: CONNECTIONS,
    amount: REQUESTS,
    timeout: 120,
  };
  // Valgrind reads a control command only when the process runs: an idle server sits in epoll_wait,
  // so a trickle of GET /healthz keeps it awake while a command waits (a handful of those requests
  // fall inside a window, next to hundreds of measured ones).
  const control = async (...flags: string[]) => {
    let awake = true;
    const trickle = (async () => {
      while (awake) await fetch(`${server.url}/healthz`).then((response) => response.arrayBuffer());
    })();
    try {
      await new Promise<void>((done, fail) =>
        execFile('callgrind_control', [...flags, String(server.pid)], { timeout: 120_000 }, (error) => (error ? fail(error) : done())),
      );
    } finally {
      awake = false;
      await trickle;
    }
  };
  await autocannon(load); // unmeasured: the JIT warms up
  console.log(`${args.checkout}, ${args.target}: ${REQUESTS} requests a window, ${CONNECTIONS} connections`);
  for (let window = 1; window <= Number(args.windows); window++) {
    await control('--zero');
    await control('--instr=on');
    const result = await autocannon(load);
    await control('--instr=off');
    await control('--dump');
    if (result['2xx'] !== REQUESTS) throw new Error(`${REQUESTS - result['2xx']} responses were not 2xx`);
    const dumps = readdirSync(outDir).filter((name) => name.startsWith('callgrind.out')).sort();
    const text = readFileSync(join(outDir, dumps.at(-1)!), 'utf8');
    // `totals:` is what the dump counted (its `summary:` line reads 0 for a dump taken on request).
    const total = Number(/^totals:\s*(\d+)/m.exec(text)![1]);
    console.log(`window ${window}: ${(total / REQUESTS / 1e6).toFixed(2)} M instructions a request`);
  }
} finally {
  await stopAll();
  await upstream.close();
  rmSync(outDir, { recursive: true, force: true });
}

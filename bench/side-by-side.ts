/**
 * Two builds (or two sets of node flags) of the server measured alternately on one target, in
 * one run: server CPU per request, pinned, as bench/ledger/cpu.ts and bench/gateway measure it.
 * Runs of one build move by up to a third on this shared VM from minute to minute; alternating
 * short windows puts both builds under the same conditions, so their ratio is what to read.
 *
 * Usage: node --import tsx bench/side-by-side.ts --a <checkout> [--b <checkout>] [--target T]
 *          [--b-target T] [--rounds N] [--a-flags "--max-semi-space-size=32"] [--b-flags …]
 *   <checkout>: a directory holding a built Inkwell (bin/inkwell.js and dist/), e.g. a
 *   `git worktree add /tmp/base <rev> && ln -s $PWD/node_modules /tmp/base/ && (cd /tmp/base && npm run build)`.
 *   --b defaults to this checkout. Targets: up-json, up-stream, sandbox-json, sandbox-stream,
 *   routed-json, routed-stream (one entry with two upstreams), test-key, models (default
 *   up-json); --b-target gives B another target (e.g. routing's cost: --a . --target up-json
 *   --b-target routed-json). --chunks N: the upstream streams its answer in N chunks (40).
 *   BENCH_DURATION (s per window, 4), BENCH_CONNECTIONS (32).
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeUpstream } from '../test/fakes/upstream.ts';
import { cpuWindow, testKeyOf, warmUp, type LoadOptions } from './cpu-window.ts';
import { pinSelf } from './gateway/proc.ts';
import { startInkwell, stopAll, type InkwellProcess } from './gateway/server.ts';
import { ANSWER_SVG, CHUNKS, USAGE } from './gateway/svg.ts';

const { values: args } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: join(import.meta.dirname, '..') },
    target: { type: 'string', default: 'up-json' },
    'b-target': { type: 'string' },
    rounds: { type: 'string', default: '4' },
    'a-flags': { type: 'string', default: '' },
    'b-flags': { type: 'string', default: '' },
    // The upstream's answer in this many stream chunks (a model server sends one token, three or four characters, a chunk).
    chunks: { type: 'string', default: String(CHUNKS) },
  },
});
const TARGETS = ['up-json', 'up-stream', 'sandbox-json', 'sandbox-stream', 'routed-json', 'routed-stream', 'test-key', 'models'];
const bTarget = args['b-target'] ?? args.target;
if (!args.a || !TARGETS.includes(args.target) || !TARGETS.includes(bTarget)) {
  console.error(`usage: side-by-side.ts --a <checkout> [--b <checkout>] [--target ${TARGETS.join('|')}] [--rounds N]`);
  process.exit(2);
}
const DURATION_S = Number(process.env.BENCH_DURATION ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(args.rounds);

pinSelf(1);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopAll().finally(() => process.exit(1)));

const upstream = await startFakeUpstream(() => ({ kind: 'stream', content: ANSWER_SVG, chunks: Number(args.chunks), usage: USAGE }));
const flagsOf = (text: string) => text.split(/\s+/).filter(Boolean);

interface Side {
  name: string;
  server: InkwellProcess;
  options: LoadOptions;
  perRequest: number[];
}

const MODELS: Record<string, string> = { up: 'up-fixed', sandbox: 'sandbox-fixed', routed: 'up-routed' };

async function side(name: string, checkout: string, flags: string, target: string): Promise<Side> {
  const server = await startInkwell({
    cpu: 0,
    upstreamUrl: upstream.url,
    pacedUrl: upstream.url,
    maxConcurrency: CONNECTIONS,
    routed: target.startsWith('routed-'),
    bin: join(resolve(checkout), 'bin/inkwell.js'),
    nodeFlags: flagsOf(flags),
  });
  const key = target === 'test-key' ? await testKeyOf(server) : server.liveKey;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const [model, mode] = target === 'test-key' ? ['sandbox', 'json'] : target.split('-');
  const options =
    target === 'models'
      ? { url: `${server.url}/v1/models`, method: 'GET', headers }
      : {
          url: `${server.url}/v1/svgs/generations`,
          method: 'POST',
          headers,
          body: JSON.stringify({ model: MODELS[model!], prompt: 'a lighthouse at dusk', ...(mode === 'stream' ? { stream: true } : {}) }),
        };
  await warmUp(options, CONNECTIONS, 2);
  return { name: `${name} ${checkout}${flags ? ` ${flags}` : ''}${target === args.target ? '' : ` (${target})`}`, server, options, perRequest: [] };
}

async function window(s: Side): Promise<string> {
  const measured = await cpuWindow(s.server, s.options, CONNECTIONS, DURATION_S);
  s.perRequest.push(measured.msPerRequest);
  return `${measured.msPerRequest.toFixed(3)} ms/req (${Math.round(measured.requestsPerSecond)} req/s, other load ${Math.round(measured.otherLoadPercent)} %)`;
}

const sides: Side[] = [];
try {
  sides.push(await side('A', args.a, args['a-flags'], args.target), await side('B', args.b, args['b-flags'], bTarget));
  console.log(`${args.target}${bTarget === args.target ? '' : ` against ${bTarget}`}, ${CONNECTIONS} connections, ${DURATION_S} s windows, ${ROUNDS} rounds, servers on core 0 in turn`);
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always follows the other's garbage.
    for (const s of round % 2 === 0 ? sides : [...sides].reverse()) console.log(`round ${round + 1} ${s.name.slice(0, 1)}: ${await window(s)}`);
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  for (const s of sides) console.log(`${s.name}: median ${median(s.perRequest).toFixed(3)} ms/req (${s.perRequest.map((v) => v.toFixed(3)).join(', ')})`);
  console.log(`B / A (medians): ${(median(sides[1]!.perRequest) / median(sides[0]!.perRequest)).toFixed(3)}`);
} finally {
  await stopAll();
  await upstream.close();
}

/**
 * What outlives the young generation: samples, for `seconds`, the allocations of a server run
 * with `--inspect` that no scavenge collected (promoted to the old generation, to die there in a
 * major collection, or still alive at the end), by function and by call stack. With thousands
 * of streams paced slower than scavenges come, whatever a stream keeps from one token to the next
 * ends up there: this is what to shrink for memory per open stream and for the collector's time.
 *
 * Usage, during the steady state of a paced run (after its 20 warm-up streams and its ramp):
 *   node --import tsx bench/streams/run.ts --streams=2000 --rate=2 --chars=16 --ramp-ms=10000 --node-flags=--inspect=127.0.0.1:9330 &
 *   sleep 90; node --import tsx bench/streams/promoted.ts 9330 40
 * With a third argument `all`, every allocation is counted, those a scavenge collected too: what
 * sets how often scavenges come (bench/README.md, *Less kept from one event to the next*).
 * (V8's sampling heap profiler, `includeObjectsCollectedByMajorGC`, through the inspector protocol.)
 */
import { WebSocket } from 'undici';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: ProfileNode[];
}
interface SamplingProfile {
  head: ProfileNode;
  samples: { size: number; nodeId: number }[];
}

const port = Number(process.argv[2] ?? 9229);
const seconds = Number(process.argv[3] ?? 30);
const TOP = 25;
/** Count what scavenges collected too: everything allocated, not only what outlived them. */
const all = process.argv[4] === 'all';

const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
let lastId = 0;
const answers = new Map<number, (result: unknown) => void>();
socket.addEventListener('message', (event) => {
  const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
  if (message.id !== undefined) answers.get(message.id)?.(message.result ?? message.error);
});
const send = <T>(method: string, params: object = {}) =>
  new Promise<T>((resolve) => {
    const id = ++lastId;
    answers.set(id, resolve as (result: unknown) => void);
    socket.send(JSON.stringify({ id, method, params }));
  });

await send('HeapProfiler.enable');
await send('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: all });
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
const { profile } = await send<{ profile: SamplingProfile }>('HeapProfiler.stopSampling');
socket.close();

const byId = new Map<number, { node: ProfileNode; parent?: ProfileNode }>();
const index = (node: ProfileNode, parent?: ProfileNode) => {
  byId.set(node.id, { node, parent });
  for (const child of node.children) index(child, node);
};
index(profile.head);
const place = ({ callFrame }: ProfileNode) =>
  `${callFrame.functionName || '(anonymous)'} ${callFrame.url.replace(/.*\/(dist|node_modules)\//, '').replace(/^node:/, '')}:${callFrame.lineNumber + 1}`;

const byFunction = new Map<string, number>();
const byStack = new Map<string, number>();
let total = 0;
for (const sample of profile.samples) {
  const entry = byId.get(sample.nodeId);
  if (!entry) continue;
  total += sample.size;
  byFunction.set(place(entry.node), (byFunction.get(place(entry.node)) ?? 0) + sample.size);
  const stack: string[] = [];
  for (let at: typeof entry | undefined = entry; at && stack.length < 5; at = at.parent && byId.get(at.parent.id)) {
    if (at.node.callFrame.functionName !== '(root)') stack.push(place(at.node));
  }
  const key = stack.join(' < ');
  byStack.set(key, (byStack.get(key) ?? 0) + sample.size);
}
const top = (sizes: Map<string, number>) =>
  [...sizes].sort((a, b) => b[1] - a[1]).slice(0, TOP).map(([name, size]) => `${(size / 1e6).toFixed(2).padStart(8)} MB  ${name}`);
console.log(`${all ? 'allocated' : 'outlived the young generation'}: ${(total / 1e6).toFixed(1)} MB in ${seconds} s`);
console.log(['by function:', ...top(byFunction), '', 'by call stack:', ...top(byStack)].join('\n'));

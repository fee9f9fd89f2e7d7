/** One measured window of load on a pinned server: its CPU per request, as cpu.ts and side-by-side.ts report it. */
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import { createApiKey } from '../src/accounts/keys.ts';
import { openStore } from '../src/store/index.ts';
import { machineBusyMs, sampleCpu } from './gateway/proc.ts';
import type { InkwellProcess } from './gateway/server.ts';

export interface LoadOptions {
  url: string;
  method?: string;
  headers: Record<string, string>;
  body?: string;
}

export interface CpuWindow {
  /** 2xx responses in the window. */
  served: number;
  requestsPerSecond: number;
  /** Server (and worker) CPU time over the window ÷ served, ms. */
  msPerRequest: number;
  /** What the rest of the machine used meanwhile, % of one core. */
  otherLoadPercent: number;
}

/** Loads `options` for `durationS` and reads the server's CPU time around it (from /proc); throws on any non-2xx. */
export async function cpuWindow(server: InkwellProcess, options: LoadOptions, connections: number, durationS: number): Promise<CpuWindow> {
  const before = sampleCpu(server.pid);
  const busyBefore = machineBusyMs();
  const selfBefore = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({ ...options, connections, duration: durationS });
  const elapsedMs = performance.now() - started;
  const after = sampleCpu(server.pid);
  const self = process.cpuUsage(selfBefore);
  const serverMs = after.serverMs + after.childrenMs - before.serverMs - before.childrenMs;
  // Everything the machine did besides the server and this process.
  const otherMs = machineBusyMs() - busyBefore - serverMs - (self.user + self.system) / 1000;
  const served = result['2xx'] as number;
  if (served === 0 || served !== result.requests.total) throw new Error(`${options.url}: ${result.requests.total - served} responses were not 2xx`);
  return {
    served,
    requestsPerSecond: served / (elapsedMs / 1000),
    msPerRequest: serverMs / served,
    otherLoadPercent: Math.max(0, (otherMs / elapsedMs) * 100),
  };
}

/** Warm-up load, unmeasured. */
export async function warmUp(options: LoadOptions, connections: number, durationS: number): Promise<void> {
  await autocannon({ ...options, connections, duration: durationS });
}

/** A test key (sandbox) of the server's first organization, made in its store. */
export async function testKeyOf(server: InkwellProcess, databaseUrl?: string): Promise<string> {
  const store = await openStore({ dataDir: server.dataDir, databaseUrl });
  try {
    const [organization] = await store.organizations.list();
    return (await createApiKey(store, { organizationId: organization!.id, kind: 'project', environment: 'test', scopes: ['*'], models: ['*'] })).secret;
  } finally {
    await store.close();
  }
}

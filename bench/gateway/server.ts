/**
 * `inkwell serve` as its own process, pinned to one core with taskset, on a temporary data
 * directory and config: the two fixed-credit models of the gateway benchmark, roomy limits,
 * enough starter credits for every request. The URL and the live key come from the first-start
 * JSON line (`serve --json`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sampleCpu } from './proc.ts';

const BIN = join(import.meta.dirname, '../../bin/inkwell.js');
const roomy = { limit: 1_000_000_000, window_seconds: 3600 };
const BILLING = { kind: 'fixed_credit', credits: { svg_generate: 1, svg_vectorize: 0 } };

export interface ServerOptions {
  /** The core(s) the server runs on, as taskset -c takes them (`0`, `0,1`). */
  cpu: number | string;
  upstreamUrl: string;
  /** The paced upstream of the first-draft measurement (model up-paced). */
  pacedUrl: string;
  /** Upstream calls at once for up-fixed: as many as the load has connections, so the engine is measured, not its queue. */
  maxConcurrency: number;
  /** Adds `up-routed`, one entry with the upstream twice (builds before routing refuse it). */
  routed?: boolean;
  /** Extra node flags (--cpu-prof …). */
  nodeFlags?: string[];
  /** A command the server runs under, before node (valgrind and its flags: bench/instructions.ts). */
  wrapper?: string[];
  /** Extra environment of the server, e.g. DATABASE_URL and REDIS_URL for PostgreSQL + Redis. */
  env?: Record<string, string>;
  /** Another build's bin/inkwell.js (bench/side-by-side.ts); this checkout's by default. */
  bin?: string;
  /** Another Node binary for the server (with a `bin` whose native modules were built by it); this one's by default. */
  node?: string;
  /** Catalog entries instead of the gateway benchmark's (then upstreamUrl and pacedUrl go unused). */
  models?: object[];
  /** More top-level config sections (e.g. `metrics`). */
  config?: Record<string, unknown>;
}

/** The same server twice, as two upstreams of one entry: what routing costs a request. */
function routedEntry(options: ServerOptions) {
  const upstream = (name: string) => ({ name, base_url: options.upstreamUrl, max_concurrency: options.maxConcurrency });
  return { id: 'up-routed', engine: 'openai-compatible', operations: ['svg_generate'], billing: BILLING, options: { model: 'bench', upstreams: [upstream('one'), upstream('two')] } };
}

export interface InkwellProcess {
  url: string;
  liveKey: string;
  /** The organization admin key (the balance). */
  adminKey: string;
  pid: number;
  dataDir: string;
  /** SIGTERM (in-flight requests finish, workers stop, a --cpu-prof profile is written), then SIGKILL what is left. */
  stop(): Promise<void>;
}

const live = new Set<InkwellProcess>();

/** Stops every server still running (on Ctrl-C or a kill: each runs in a process group of its own, out of the terminal's reach). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((server) => server.stop()));
}

export async function startInkwell(options: ServerOptions): Promise<InkwellProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-bench-gateway-'));
  const configFile = join(dataDir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      ...options.config,
      log: { level: 'silent' },
      billing: { starter_credits: 1_000_000_000 },
      limits: { requests: { svg: roomy, edits: roomy, animations: roomy, responses: roomy, catalog: roomy }, outputs: roomy },
      catalog: {
        models: options.models ?? [
          {
            id: 'up-fixed',
            engine: 'openai-compatible',
            operations: ['svg_generate'],
            billing: BILLING,
            options: { base_url: options.upstreamUrl, model: 'bench', max_concurrency: options.maxConcurrency },
          },
          ...(options.routed ? [routedEntry(options)] : []),
          {
            id: 'up-paced',
            engine: 'openai-compatible',
            operations: ['svg_generate'],
            billing: BILLING,
            options: { base_url: options.pacedUrl, model: 'bench' },
          },
          { id: 'sandbox-fixed', engine: 'sandbox', operations: ['svg_generate'], billing: BILLING },
        ],
      },
    }),
  );
  const args = ['-c', String(options.cpu), ...(options.wrapper ?? []), options.node ?? process.execPath, ...(options.nodeFlags ?? []), options.bin ?? BIN, 'serve', '--json', '--port', '0', '--data-dir', dataDir, '--config', configFile, '--log-level', 'silent'];
  // Own process group (detached), so cleanup reaches everything the server runs under it.
  const child: ChildProcess = spawn('taskset', args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dataDir, ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const server: InkwellProcess = { url: '', liveKey: '', adminKey: '', pid: child.pid!, dataDir, stop: () => stop() };
  live.add(server);
  const cmdline = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return undefined;
    }
  };
  const seen = new Map<number, string | undefined>();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    live.delete(server);
    // Remember the workers before the server goes: they run in process groups of their own.
    if (child.exitCode === null && child.signalCode === null) {
      for (const kid of sampleCpu(child.pid!).children) seen.set(kid.pid, cmdline(kid.pid));
      child.kill('SIGTERM');
      const gone = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000))]);
      if (!gone) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        await exited;
      }
    }
    for (const [pid, line] of seen) {
      // Only a worker that outlived the server, never a process that took its id since.
      if (line === undefined || cmdline(pid) !== line) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const lines = createInterface({ input: child.stdout! });
    const first = await new Promise<{ url: string; liveKey: string; adminKey: string }>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`inkwell serve exited (${code}) before printing its first-start line`)));
      lines.on('line', (line) => {
        if (!line.startsWith('{')) return;
        const parsed = JSON.parse(line);
        if (parsed.event !== 'first_start') return;
        const secret = (pick: (k: { kind: string; environment: string }) => boolean) => parsed.keys.find(pick).secret;
        resolve({ url: parsed.url, liveKey: secret((k) => k.environment === 'live'), adminKey: secret((k) => k.kind === 'admin') });
      });
    });
    Object.assign(server, first);
    return server;
  } catch (error) {
    await stop();
    throw error;
  }
}

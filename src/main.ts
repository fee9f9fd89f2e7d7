import { packageVersion } from './config/version.ts';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { bootstrapIfFirstStart, type BootstrapResult } from './accounts/bootstrap.ts';
import { buildApp } from './app.ts';
import { RenderPool } from './engines/render/pool.ts';
import { TracePool } from './engines/trace/pool.ts';
import { MediaInputs } from './media/inputs.ts';
import { buildCatalog } from './config/catalog.ts';
import type { Config } from './config/schema.ts';
import { builtinCatalogEntries, createEngineRegistry, type EngineRegistry } from './engines/registry.ts';
import { Billing } from './billing/billing.ts';
import { InstanceLease } from './billing/recovery.ts';
import { newId } from './contract/ids.ts';
import { Counters } from './limits/counters.ts';
import { Limits } from './limits/limits.ts';
import { CachedOverrides } from './limits/overrides.ts';
import { connectRedis } from './limits/redis.ts';
import { redactUrl } from './config/redact-url.ts';
import { logSerializers, redactKeys } from './http/log-redaction.ts';
import { listenForScrapes, type MetricsListener } from './observability/metrics-listener.ts';
import { Metrics } from './observability/metrics.ts';
import { openStore, type Store } from './store/index.ts';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  url: string;
  /** Where Prometheus scrapes, when metrics are on (config metrics.port). */
  metricsUrl?: string;
  /** Set on the first start of an empty database: the secrets to show once. */
  bootstrap?: BootstrapResult;
  close(): Promise<void>;
}

/** Tests that collect the lines give a destination and no format. */
export function createLogger(
  config: { log: Pick<Config['log'], 'level'> & Partial<Pick<Config['log'], 'format'>> },
  destination?: DestinationStream,
): Logger {
  const options: LoggerOptions = {
    level: config.log.level,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.secret'], censor: '[redacted]' },
    serializers: logSerializers,
    // The last word on every line, whatever put a key into it (a message, an error, a path).
    hooks: { streamWrite: redactKeys },
  };
  if (destination) return pino(options, destination);
  return pino(options, readableLogs(config.log.format ?? 'auto') ? prettyLines() : undefined);
}

/** `auto` reads as lines on a terminal and stays JSON lines for whatever collects a pipe or file. */
function readableLogs(format: Config['log']['format']): boolean {
  return format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
}

/**
 * One line per entry, formatted in this thread and written synchronously, as JSON lines are.
 * Loaded only when used: it takes about 50 ms to load, which a JSON-logging start need not pay.
 */
function prettyLines(): DestinationStream {
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({ sync: true, colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

export interface StartOptions {
  logger?: Logger;
  /** Tests isolate themselves in a PostgreSQL schema of their own. */
  postgresSchema?: string;
}

/** The address the server answers on: the port it was given, or the one the system chose for port 0. */
function listeningUrl(app: FastifyInstance, config: Config): string {
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.server.port;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  return `http://${host}:${port}`;
}

/**
 * The composition root: config → store → lease → limits → catalog → engines → app → listen. It
 * stays one function on purpose: read top to bottom, it is the order the service starts in, and
 * `release` closes what was opened so far whichever step fails.
 */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config);
  const database = { databaseUrl: config.database_url, dataDir: config.data_dir, postgresSchema: options.postgresSchema };
  const store = await openStore(database);
  const instanceId = newId('instance');
  // The same options let the lease's heartbeat thread open the database on its own connection.
  const lease = new InstanceLease(store, instanceId, { leaseMs: config.billing.reservation_lease_ms, database }, logger);
  let redis: Awaited<ReturnType<typeof connectRedis>> | undefined;
  let app: FastifyInstance | undefined;
  let tracePool: TracePool | undefined;
  let renderPool: RenderPool | undefined;
  let engineRegistry: EngineRegistry | undefined;
  let metricsListener: MetricsListener | undefined;
  // One registry per server: tests run several in one process.
  const metrics = config.metrics.port === undefined ? undefined : new Metrics({ millicentsPerCredit: config.billing.millicents_per_credit });
  const release = async () => {
    await metricsListener?.close();
    engineRegistry?.close();
    await tracePool?.close();
    await renderPool?.close();
    await lease.stop();
    redis?.disconnect();
    await store.close();
  };
  try {
    await lease.start();
    if (config.redis_url) redis = await connectRedis(config.redis_url);
    const limits = new Limits(
      config.limits,
      new Counters(config.limits.redis_prefix, redis),
      new CachedOverrides((organizationId) => store.limitOverrides.forOrganization(organizationId)),
      metrics,
    );
    const billing = new Billing(store, instanceId, lease.unsettled, metrics);
    const catalog = buildCatalog(config, builtinCatalogEntries(config));
    const media = new MediaInputs({
      allowLoopback: config.media.allow_loopback_urls,
      connectTimeoutMs: config.media.fetch_connect_timeout_ms,
      totalTimeoutMs: config.media.fetch_timeout_ms,
    });
    const traces = new TracePool(config.trace);
    tracePool = traces;
    metrics?.watchTraceQueue(() => traces.waiting);
    renderPool = new RenderPool();
    const engines = createEngineRegistry(config, catalog.all(), { media, tracePool, renderPool, logger, upstreamCalls: metrics });
    engineRegistry = engines;
    metrics?.watchUpstreams(() => engines.upstreams());
    const built = await buildApp({ config, store, catalog, engines, billing, limits, media, logger, metrics, version: packageVersion() });
    app = built;
    await built.listen({ host: config.server.host, port: config.server.port, backlog: config.server.backlog });
    if (metrics) metricsListener = await listenForScrapes(metrics, config.metrics.host ?? config.server.host, config.metrics.port!);
    // Only once the port is ours: secrets created by a start that cannot listen would never be shown.
    const bootstrap = await bootstrapIfFirstStart(
      store,
      config.billing.starter_credits * config.billing.millicents_per_credit,
    );
    logger.info(
      {
        database: store.location,
        dialect: store.dialect,
        limits: config.redis_url ? redactUrl(config.redis_url, 'redis') : 'memory',
        instance: instanceId,
        models: catalog.all().length,
        metrics: metricsListener?.url ?? 'off',
      },
      'inkwell ready',
    );
    return {
      app: built,
      store,
      url: listeningUrl(built, config),
      metricsUrl: metricsListener?.url,
      bootstrap,
      close: async () => {
        await built.close();
        await release();
      },
    };
  } catch (error) {
    await app?.close();
    await release();
    throw error;
  }
}

import type { FastifyInstance } from 'fastify';
import type { UpstreamStatus } from '../../contract/upstreams.ts';
import type { Limits } from '../../limits/limits.ts';
import { migrationsApplied } from '../../store/database.ts';
import type { Store } from '../../store/index.ts';

/** Longest one readiness check may take: a probe that hangs tells an orchestrator nothing. */
const CHECK_TIMEOUT_MS = 2_000;

export interface HealthDeps {
  store: Store;
  limits: Limits;
  /** Redis holds the limit counters: readiness then needs it too. */
  redisConfigured: boolean;
  /** The model servers the engines route to: reported, never a reason to be unready. */
  upstreams?: () => UpstreamStatus[];
}

interface Readiness {
  database: 'ok' | 'unreachable';
  /** `pending`: this build's newest migration is not applied; `unknown` while the database does not answer. */
  migrations: 'ok' | 'pending' | 'unknown';
  redis?: 'ok' | 'unreachable';
}

function withinTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}

/** Every check at once; each failure is kept for the log line, never for the (unauthenticated) answer. */
async function checkReadiness(deps: HealthDeps): Promise<{ readiness: Readiness; failures: Record<string, unknown> }> {
  const failures: Record<string, unknown> = {};
  const [applied, redis] = await Promise.all([
    withinTimeout(migrationsApplied(deps.store.db)).catch((error: unknown) => {
      failures.database = error;
      return undefined;
    }),
    deps.redisConfigured
      ? deps.limits.countersReachable(CHECK_TIMEOUT_MS).then(
          () => 'ok' as const,
          (error: unknown) => {
            failures.redis = error;
            return 'unreachable' as const;
          },
        )
      : undefined,
  ]);
  const readiness: Readiness = {
    database: applied === undefined ? 'unreachable' : 'ok',
    migrations: applied === undefined ? 'unknown' : applied ? 'ok' : 'pending',
  };
  if (redis) readiness.redis = redis;
  return { readiness, failures };
}

/**
 * `GET /healthz`: the process is up and serving (liveness). `GET /readyz`: it can do its work —
 * the database answers with every migration applied, and Redis answers when configured — 200,
 * or 503 naming what is not ready. Model servers that are out do not make it unready (the
 * service still answers, with fallbacks or a 503 of its own): it counts them, without names or
 * addresses, since the probe needs no key. No key, no rate limit; probes come every few seconds,
 * so their requests are not logged (a failed readiness check is, at warn).
 */
export function registerHealthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  const probe = { config: { probe: true } };
  app.get('/healthz', probe, async () => ({ status: 'ok' }));
  app.get('/readyz', probe, async (request, reply) => {
    const { readiness, failures } = await checkReadiness(deps);
    const ready = Object.values(readiness).every((state) => state === 'ok');
    if (!ready) {
      const causes = Object.fromEntries(Object.entries(failures).map(([name, error]) => [name, error instanceof Error ? error.message : String(error)]));
      request.log.warn({ checks: readiness, causes }, 'not ready');
    }
    const upstreams = deps.upstreams?.() ?? [];
    const body = { status: ready ? 'ok' : 'unavailable', checks: readiness, ...(upstreams.length > 0 ? { upstreams: countStates(upstreams) } : {}) };
    return reply.code(ready ? 200 : 503).send(body);
  });
}

/** Upstreams by state: in service, ready for a trial call, out. */
function countStates(upstreams: UpstreamStatus[]): { in_service: number; trial: number; out: number } {
  const counts = { in_service: 0, trial: 0, out: 0 };
  for (const { state } of upstreams) counts[state === 'healthy' ? 'in_service' : state]++;
  return counts;
}

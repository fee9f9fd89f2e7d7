import type { Logger } from 'pino';
import { ConfigError } from '../../config/load.ts';
import type { CatalogEntry } from '../../config/schema.ts';
import { UpstreamClient, type UpstreamEndpoint } from './client.ts';
import type { UpstreamCallReport } from './exchange.ts';
import { UpstreamLog } from './log.ts';
import { upstreamTargets, type ServerOptions, type UpstreamTarget } from './options.ts';
import { UpstreamSet, type RoutingObserver, type UpstreamMember } from './routing/upstream-set.ts';

/** Told of each upstream call when it ends, and of each server going out (metrics). */
export interface UpstreamObserver {
  upstreamCall(model: string, upstream: string, report: UpstreamCallReport): void;
  upstreamEjected(model: string, upstream: string): void;
}

/** What building an entry's servers needs from the service. */
export interface ServerServices {
  /** Secrets named by `api_key_env`, read by the config layer. */
  secret(name: string): string | undefined;
  logger?: Logger;
  upstreamCalls?: UpstreamObserver;
}

/** How each server's client reads answers: its deadlines and byte limits (the engine's own options). */
export type ClientSettings = Omit<UpstreamEndpoint, 'baseUrl' | 'apiKey' | 'connectTimeoutMs' | 'onCallEnd'>;

/** The entry's servers, each with its own connections and log, behind one routing set. */
export function buildUpstreamSet(entry: CatalogEntry, options: ServerOptions, settings: ClientSettings, services: ServerServices): UpstreamSet {
  const observer = services.upstreamCalls;
  const members = upstreamTargets(entry, options).map((target): UpstreamMember => {
    const client = new UpstreamClient({
      ...settings,
      baseUrl: target.baseUrl,
      apiKey: apiKeyOf(entry, target, services),
      connectTimeoutMs: options.connect_timeout_ms,
      onCallEnd: observer && ((report) => observer.upstreamCall(entry.id, target.name, report)),
    });
    const log = new UpstreamLog(services.logger, entry.id, target.baseUrl);
    return { name: target.name, model: target.model, client, log, weight: target.weight, maxConcurrency: target.maxConcurrency };
  });
  const health = options.health;
  // A server is taken out only where that helps: another server or a fallback can take its calls.
  const ejects = members.length > 1 || (entry.fallbacks?.length ?? 0) > 0 || health.eject_sole_upstream;
  const logger = services.logger;
  const routing: RoutingObserver = {
    ejected: (member, ms) => {
      logger?.warn({ model: entry.id, upstream: member.name, out_ms: ms }, 'upstream taken out after failing');
      observer?.upstreamEjected(entry.id, member.name);
    },
    restored: (member) => logger?.info({ model: entry.id, upstream: member.name }, 'upstream back in service'),
  };
  return new UpstreamSet(
    entry.id,
    members,
    { failureThreshold: health.failure_threshold, ejectionMs: health.ejection_ms, maxEjectionMs: health.max_ejection_ms, ejects },
    { checkIntervalMs: health.check_interval_ms, observer: routing },
  );
}

function apiKeyOf(entry: CatalogEntry, target: UpstreamTarget, services: ServerServices): string | undefined {
  if (target.apiKeyEnv === undefined) return undefined;
  const apiKey = services.secret(target.apiKeyEnv);
  if (apiKey === undefined) throw new ConfigError(`Model ${entry.id}: ${target.apiKeyField} names ${target.apiKeyEnv}, which is not set.`);
  return apiKey;
}

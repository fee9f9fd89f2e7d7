import { buildCatalog } from '../../config/catalog.ts';
import { redactUrl } from '../../config/redact-url.ts';
import type { Config } from '../../config/schema.ts';
import { builtinCatalogEntries, configuredUpstreams } from '../../engines/registry.ts';
import { configFrom } from '../context.ts';
import { CliError, output, table } from '../output.ts';

/** One upstream as the metrics listener's `GET /upstreams` answers it. */
interface LiveUpstream {
  model: string;
  upstream: string;
  state: 'healthy' | 'trial' | 'out';
  in_flight: number;
  returns_at?: string;
}

const STATE_SHOWN = { healthy: 'in service', trial: 'trial', out: 'out' } as const;

/**
 * `inkwell models upstreams`: every model server the catalog names (entry, name, address with any
 * password masked, model, weight, max_concurrency, the entry's fallbacks), joined with each
 * one's state now when a running server's metrics listener answers.
 */
export async function listUpstreams(options: Record<string, unknown> & { metricsUrl?: string; json?: boolean }): Promise<void> {
  const config = configFrom(options);
  const catalog = buildCatalog(config, builtinCatalogEntries(config));
  const source = options.metricsUrl ?? metricsUrlOf(config);
  const live = source === undefined ? undefined : await fetchLive(source);
  const key = (model: string, upstream: string) => `${model}\u0000${upstream}`;
  const now = new Map((live ?? []).map((status) => [key(status.model, status.upstream), status]));
  const rows = catalog.all().flatMap(({ entry }) =>
    configuredUpstreams(entry).map((target) => {
      const status = now.get(key(entry.id, target.name));
      return {
        model: entry.id,
        upstream: target.name,
        base_url: redactUrl(target.baseUrl, '(unparsable)'),
        upstream_model: target.model,
        weight: target.weight,
        max_concurrency: target.maxConcurrency,
        fallbacks: (entry.fallbacks ?? []).join(','),
        state: status ? STATE_SHOWN[status.state] : live ? 'not running' : 'unknown',
        in_flight: status?.in_flight ?? null,
        returns_at: status?.returns_at ?? null,
      };
    }),
  );
  const columns = ['model', 'upstream', 'base_url', 'weight', 'max_concurrency', 'fallbacks', 'state', 'in_flight', 'returns_at'];
  const note = live ? '' : `\n(state unknown: ${source === undefined ? 'no metrics listener in the config; give --metrics-url or set metrics.port' : `nothing answered at ${source}`})`;
  output(options.json as boolean | undefined).print(`${table(rows, columns)}${note}`, { object: 'list', data: rows });
}

/** The metrics listener this config starts, if it names a fixed port. */
function metricsUrlOf(config: Config): string | undefined {
  const port = config.metrics.port;
  if (port === undefined || port === 0) return undefined;
  const host = config.metrics.host ?? config.server.host;
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}/upstreams`;
}

/** The live state from a metrics listener (its URL, or its /metrics URL); undefined when it does not answer. */
async function fetchLive(url: string): Promise<LiveUpstream[] | undefined> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new CliError(`--metrics-url ${url} is not a URL (e.g. http://127.0.0.1:9464)`);
  }
  if (target.pathname === '/' || target.pathname === '/metrics') target.pathname = '/upstreams';
  try {
    const response = await fetch(target, { signal: AbortSignal.timeout(3000) });
    if (!response.ok) return undefined;
    return ((await response.json()) as { upstreams: LiveUpstream[] }).upstreams;
  } catch {
    return undefined;
  }
}

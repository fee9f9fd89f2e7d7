import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '../../src/accounts/keys.ts';
import { loadConfig } from '../../src/config/load.ts';
import { startServer } from '../../src/main.ts';

const roomy = { limit: 1_000_000_000, window_seconds: 3600 };

/**
 * An Inkwell server in this process (temp SQLite, one tracer worker) and a live key whose calls run
 * the real tracer; `config` adds to its config file (a catalog, say).
 */
export async function startTraceServer(config: Record<string, unknown> = {}): Promise<{ url: string; liveKey: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-trace-latency-'));
  const configFile = join(dataDir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      server: { port: 0 },
      log: { level: 'silent' },
      billing: { starter_credits: 1_000_000_000 },
      trace: { workers: 1 },
      limits: { requests: { svg: roomy, edits: roomy, animations: roomy, responses: roomy, catalog: roomy }, outputs: roomy },
      ...config,
    }),
  );
  const server = await startServer(loadConfig({ configFile, env: { INKWELL_DATA_DIR: dataDir } }));
  const organizationId = server.bootstrap!.organization.id;
  const { secret } = await createApiKey(server.store, { organizationId, kind: 'project', environment: 'live', scopes: ['*'], models: ['*'] });
  return {
    url: server.url,
    liveKey: secret,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

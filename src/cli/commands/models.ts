import type { Command } from 'commander';
import type { Model, ModelList } from '../../contract/models.ts';
import { connectionFrom } from '../client/connection.ts';
import { ApiClient } from '../client/http.ts';
import { withClientOptions, type ClientOptions } from '../client/options.ts';
import { output, table } from '../output.ts';

/**
 * `inkwell models` asks the API which models a key sees (GET /v1/models); `inkwell models list`
 * stays the admin view of the catalog this installation's config builds, read without a server;
 * `inkwell models upstreams` adds each entry's servers and their state now.
 * The admin side (config, engines, store) loads only when `list` runs, so the client command
 * starts without it.
 */
export function registerModels(program: Command): void {
  const models = withClientOptions(program.command('models'))
    .description('List the models your API key can use (GET /v1/models); `models list` shows the configured catalog.')
    // The group's own options stop at `list`, so `models list --json` is list's --json.
    .enablePositionalOptions()
    .action(async (options: ClientOptions) => {
      const catalog = await new ApiClient(connectionFrom(options)).getJson<ModelList>('/v1/models');
      output(options.json).print(table(catalog.data.map(modelRow), ['id', 'billing', 'operations', 'credits']), catalog);
    });

  const list = models
    .command('list')
    .description('List every model in the catalog (built-in and configured), from the config, without a server.')
    .option('--json', 'print JSON')
    .action(async (options) => {
      const [{ configFrom }, { buildCatalog }, { builtinCatalogEntries }] = await Promise.all([
        import('../context.ts'),
        import('../../config/catalog.ts'),
        import('../../engines/registry.ts'),
      ]);
      const config = configFrom(options);
      const catalog = buildCatalog(config, builtinCatalogEntries(config));
      const rows = catalog.all().map(({ entry, model }) => ({
        id: model.id,
        engine: entry.engine,
        billing: model.billing.kind,
        operations: (model.supported_operations ?? []).join(','),
        max_references: entry.max_references,
      }));
      output(options.json).print(table(rows, ['id', 'engine', 'billing', 'operations', 'max_references']), {
        object: 'list',
        data: catalog.all().map((m) => m.model),
      });
    });
  const upstreams = models
    .command('upstreams')
    .description("List each model's servers from the config, and their state now from a running server's metrics listener.")
    .option('--metrics-url <url>', 'the metrics listener of a running server (default: from the config\'s metrics.host and metrics.port)')
    .option('--json', 'print JSON')
    .action(async (options: { metricsUrl?: string; json?: boolean }) => {
      const { listUpstreams } = await import('./models-upstreams.ts');
      await listUpstreams(options);
    });
  // The config options (--config, --data-dir…) come from the settings table, which loads the config
  // schema: they are attached just before a subcommand parses its arguments, not at every start.
  models.hook('preSubcommand', async () => {
    const { withCommonOptions } = await import('../context.ts');
    withCommonOptions(list);
    withCommonOptions(upstreams);
  });
}

/** `svg_generate 4, svg_edit 6` for a fixed-credit model; token-priced models have no per-output price. */
function modelRow(model: Model): Record<string, string> {
  const operations = model.supported_operations ?? [];
  const prices = model.pricing_credits as Record<string, number | undefined> | undefined;
  const credits = operations.flatMap((operation) => (prices?.[operation] === undefined ? [] : [`${operation} ${prices[operation]}`]));
  return {
    id: model.id,
    billing: model.billing.kind,
    operations: operations.join(','),
    credits: model.billing.kind === 'fixed_credit' ? credits.join(', ') : 'per token',
  };
}

import type { Command } from 'commander';
import { buildCatalog } from '../../config/catalog.ts';
import { builtinCatalogEntries } from '../../engines/registry.ts';
import { configFrom, withCommonOptions } from '../context.ts';
import { output, table } from '../output.ts';

export function registerModels(program: Command): void {
  const models = program.command('models').description('Inspect the model catalog.');
  withCommonOptions(models.command('list').description('List every model in the catalog (built-in and configured).'))
    .option('--json', 'print JSON')
    .action(async (options) => {
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
}

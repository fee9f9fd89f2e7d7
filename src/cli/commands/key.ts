import type { Command } from 'commander';
import { createApiKey, KeySpecError } from '../../accounts/keys.ts';
import { buildCatalog } from '../../config/catalog.ts';
import type { Config } from '../../config/schema.ts';
import { KEY_ENVIRONMENTS, KEY_KINDS, type KeyEnvironment, type KeyKind } from '../../contract/auth.ts';
import { builtinCatalogEntries } from '../../engines/registry.ts';
import type { ApiKeyRecord } from '../../store/api-keys.ts';
import { configFrom, withCommonOptions, withStore } from '../context.ts';
import { CliError, formatTime, output, table } from '../output.ts';

const list = (raw: string | undefined) => (raw === undefined ? undefined : raw.split(',').map((s) => s.trim()).filter(Boolean));

/**
 * Refuses model ids the organization cannot see in the catalog (`*` aside): a typo would
 * otherwise make a key whose every request is a 404 model_not_found.
 */
function assertKnownModels(config: Config, models: string[], organizationId: string): void {
  const catalog = buildCatalog(config, builtinCatalogEntries(config));
  const unknown = [...new Set(models)].filter((id) => id !== '*' && !catalog.find(id, organizationId));
  if (unknown.length > 0) throw new CliError(`unknown model(s): ${unknown.join(', ')} (see inkwell models list)`);
}

function view(record: ApiKeyRecord) {
  return {
    id: record.id,
    organization_id: record.organization_id,
    kind: record.kind,
    environment: record.environment,
    name: record.name,
    hint: record.hint,
    scopes: JSON.parse(record.scopes) as string[],
    models: JSON.parse(record.models) as string[],
    created_at: formatTime(record.created_at),
    revoked_at: formatTime(record.revoked_at),
  };
}

export function registerKey(program: Command): void {
  const key = program.command('key').description('Manage API keys. Secrets are shown once, at creation.');
  registerCreate(key);
  registerList(key);
  registerRevoke(key);
}

/** The kind, scopes and models `key create` asks for, each combination checked before the store is opened. */
function keySpecOf(options: Record<string, string | undefined>) {
  const kind = options.kind as KeyKind;
  if (!KEY_KINDS.includes(kind)) throw new CliError(`--kind must be project or admin, not "${options.kind}"`);
  if (kind === 'project' && options.env === undefined) throw new CliError('a project key needs --env test or --env live');
  if (kind === 'project' && !KEY_ENVIRONMENTS.includes(options.env as KeyEnvironment)) {
    throw new CliError(`--env must be test or live, not "${options.env}"`);
  }
  if (kind === 'admin' && options.env !== undefined) throw new CliError('admin keys have no environment; drop --env');
  if (kind === 'project' && options.permissions !== undefined) throw new CliError('--permissions is for admin keys; use --capabilities');
  if (kind === 'admin' && options.capabilities !== undefined) throw new CliError('--capabilities is for project keys; use --permissions');
  if (kind === 'admin' && options.models !== undefined) throw new CliError('admin keys cannot run inference, so they take no --models');
  return {
    kind,
    environment: kind === 'project' ? (options.env as KeyEnvironment) : null,
    scopes: list(kind === 'project' ? options.capabilities : options.permissions) ?? ['*'],
    models: kind === 'project' ? (list(options.models) ?? ['*']) : [],
  };
}

function registerCreate(key: Command): void {
  withCommonOptions(key.command('create').description('Create an API key.'))
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--kind <kind>', 'project (inference and catalog) or admin (organization reads)')
    .option('--env <env>', 'test (sandbox) or live; project keys only')
    .option('--models <list>', 'comma-separated model ids the key may use, or * (default *)')
    .option('--capabilities <list>', 'project key: svg_generate, svg_vectorize, svg_edit, svg_animate, catalog_read, or * (default *)')
    .option('--permissions <list>', 'admin key: billing_read, or * (default *)')
    .option('--name <name>', 'a label for the key')
    .option('--json', 'print JSON')
    .action(async (options) => {
      const config = configFrom(options);
      const { kind, environment, scopes, models } = keySpecOf(options);
      try {
        const { record, secret } = await withStore(config, async (store) => {
          // An organization that does not exist is reported as such by createApiKey, not as unknown models.
          if (await store.organizations.get(options.org)) assertKnownModels(config, models, options.org);
          return createApiKey(store, {
            organizationId: options.org,
            kind,
            environment,
            scopes,
            models,
            name: options.name,
          });
        });
        output(options.json).print(
          `Created ${kind} key ${record.id}.\nSecret (shown once, it cannot be retrieved later):\n\n  ${secret}\n`,
          { ...view(record), secret },
        );
      } catch (error) {
        if (error instanceof KeySpecError) throw new CliError(error.message);
        throw error;
      }
    });
}

function registerList(key: Command): void {
  withCommonOptions(key.command('list').description("List an organization's keys (never their secrets)."))
    .requiredOption('--org <id>', 'organization id')
    .option('--json', 'print JSON')
    .action(async (options) => {
      const config = configFrom(options);
      const { organization, keys } = await withStore(config, async (store) => ({
        organization: await store.organizations.get(options.org),
        keys: await store.apiKeys.listByOrganization(options.org),
      }));
      if (!organization) throw new CliError(`organization ${options.org} does not exist`);
      const rows = keys.map(view);
      output(options.json).print(
        table(
          rows.map((r) => ({ ...r, scopes: r.scopes.join(','), models: r.models.join(',') || '-' })),
          ['id', 'name', 'kind', 'environment', 'hint', 'scopes', 'models', 'revoked_at'],
        ),
        { data: rows },
      );
    });
}

function registerRevoke(key: Command): void {
  withCommonOptions(key.command('revoke <id>').description('Revoke a key; it fails from the next request on.'))
    .option('--json', 'print JSON')
    .action(async (id: string, options) => {
      const config = configFrom(options);
      const { revoked, existing } = await withStore(config, async (store) => ({
        revoked: await store.apiKeys.revoke(id),
        existing: await store.apiKeys.get(id),
      }));
      if (!existing) throw new CliError(`key ${id} does not exist`);
      if (!revoked) throw new CliError(`key ${id} was already revoked`);
      output(options.json).print(`Revoked key ${id}.`, view(existing));
    });
}

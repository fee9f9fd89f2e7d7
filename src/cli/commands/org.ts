import type { Command } from 'commander';
import type { Organization } from '../../store/organizations.ts';
import { isOrganizationStatus, ORGANIZATION_STATUSES } from '../../store/tables.ts';
import { configFrom, withCommonOptions, withStore } from '../context.ts';
import { formatCredits } from '../../billing/credits.ts';
import { CliError, formatTime, output, parseCredits, table } from '../output.ts';

function view(organization: Organization, millicentsPerCredit: number) {
  return {
    id: organization.id,
    name: organization.name,
    status: organization.status,
    balance_credits: Number(formatCredits(organization.balance_millicents, millicentsPerCredit)),
    created_at: formatTime(organization.created_at),
  };
}

export function registerOrg(program: Command): void {
  const org = program.command('org').description('Manage organizations.');

  withCommonOptions(org.command('create <name>').description('Create an organization.'))
    .option('--credits <n>', 'starting credits (may have up to 3 decimals)', '0')
    .option('--json', 'print JSON')
    .action(async (name: string, options) => {
      const config = configFrom(options);
      if (name.trim() === '') throw new CliError('the organization name must not be empty');
      const millicents = parseCredits(options.credits, config.billing.millicents_per_credit, { allowZero: true });
      const created = await withStore(config, (store) => store.organizations.create(name.trim(), millicents));
      const data = view(created, config.billing.millicents_per_credit);
      output(options.json).print(`Created organization ${data.id} "${data.name}" with ${data.balance_credits} credits.`, data);
    });

  withCommonOptions(org.command('list').description('List organizations.'))
    .option('--json', 'print JSON')
    .action(async (options) => {
      const config = configFrom(options);
      const rows = (await withStore(config, (store) => store.organizations.list())).map((o) =>
        view(o, config.billing.millicents_per_credit),
      );
      output(options.json).print(table(rows, ['id', 'name', 'status', 'balance_credits', 'created_at']), { data: rows });
    });

  withCommonOptions(org.command('show <id>').description('Show one organization and its keys.'))
    .option('--json', 'print JSON')
    .action(async (id: string, options) => {
      const config = configFrom(options);
      const { organization, keys } = await withStore(config, async (store) => ({
        organization: await store.organizations.get(id),
        keys: await store.apiKeys.listByOrganization(id),
      }));
      if (!organization) throw new CliError(`organization ${id} does not exist`);
      const data = { ...view(organization, config.billing.millicents_per_credit), keys: keys.length, active_keys: keys.filter((k) => k.revoked_at === null).length };
      output(options.json).print(
        Object.entries(data)
          .map(([key, value]) => `${key.padEnd(16)}${value}`)
          .join('\n'),
        data,
      );
    });

  withCommonOptions(
    org
      .command('set-status <id> <status>')
      .description(`Set an organization's status: ${ORGANIZATION_STATUSES.join(', ')}.`),
  )
    .option('--json', 'print JSON')
    .action(async (id: string, status: string, options) => {
      const config = configFrom(options);
      if (!isOrganizationStatus(status)) {
        throw new CliError(`unknown status "${status}" (expected ${ORGANIZATION_STATUSES.join(', ')})`);
      }
      const updated = await withStore(config, (store) => store.organizations.setStatus(id, status));
      if (!updated) throw new CliError(`organization ${id} does not exist`);
      output(options.json).print(`Organization ${id} is now ${status}.`, { id, status });
    });
}

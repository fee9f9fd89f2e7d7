import type { Command } from 'commander';
import { configFrom, withCommonOptions, withStore } from '../context.ts';
import { availableMillicents, formatCredits } from '../../billing/credits.ts';
import { CliError, formatTime, output, parseCredits, table } from '../output.ts';
import type { LedgerEntry } from '../../store/ledger.ts';

export function registerCredits(program: Command): void {
  const credits = program.command('credits').description("Grant credits and read an organization's ledger.");
  registerGrant(credits);
  registerAdjust(credits);
  registerShow(credits);
}

function registerGrant(credits: Command): void {
  withCommonOptions(credits.command('grant <amount>').description('Add prepaid credits to an organization.'))
    .requiredOption('--org <id>', 'organization id')
    .option('--note <text>', 'why the credits were granted')
    .option('--json', 'print JSON')
    .action(async (amount: string, options) => {
      const config = configFrom(options);
      const mpc = config.billing.millicents_per_credit;
      const millicents = parseCredits(amount, mpc);
      const entry = await withStore(config, async (store) => {
        if (!(await store.organizations.get(options.org))) throw new CliError(`organization ${options.org} does not exist`);
        return store.ledger.grant(options.org, millicents, options.note);
      });
      const data = {
        organization_id: options.org,
        granted_credits: Number(formatCredits(millicents, mpc)),
        balance_credits: Number(formatCredits(entry.balance_after_millicents, mpc)),
        entry_id: entry.id,
      };
      output(options.json).print(`Granted ${data.granted_credits} credits to ${options.org}; balance ${data.balance_credits}.`, data);
    });
}

function registerAdjust(credits: Command): void {
  withCommonOptions(credits.command('adjust <amount>').description('Correct a balance by a signed amount (e.g. -2.5), recorded as an adjustment.'))
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--note <text>', 'why the balance is corrected')
    .option('--json', 'print JSON')
    .action(async (amount: string, options) => {
      const config = configFrom(options);
      const mpc = config.billing.millicents_per_credit;
      const negative = amount.trim().startsWith('-');
      const millicents = parseCredits(negative ? amount.trim().slice(1) : amount, mpc) * (negative ? -1 : 1);
      const entry = await withStore(config, async (store) => {
        if (!(await store.organizations.get(options.org))) throw new CliError(`organization ${options.org} does not exist`);
        return store.ledger.post(options.org, 'adjustment', millicents, options.note);
      });
      const data = {
        organization_id: options.org,
        adjusted_credits: Number(formatCredits(millicents, mpc)),
        balance_credits: Number(formatCredits(entry.balance_after_millicents, mpc)),
        entry_id: entry.id,
      };
      output(options.json).print(`Adjusted ${options.org} by ${data.adjusted_credits} credits; balance ${data.balance_credits}.`, data);
    });
}

function registerShow(credits: Command): void {
  withCommonOptions(credits.command('show').description("Show an organization's balance and its latest ledger entries."))
    .requiredOption('--org <id>', 'organization id')
    .option('--limit <n>', 'entries to show', '50')
    .option('--json', 'print JSON')
    .action(async (options) => {
      const config = configFrom(options);
      const mpc = config.billing.millicents_per_credit;
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit must be a positive whole number');
      const { organization, entries } = await withStore(config, async (store) => ({
        organization: await store.organizations.get(options.org),
        entries: await store.ledger.entries(options.org, limit),
      }));
      if (!organization) throw new CliError(`organization ${options.org} does not exist`);
      const rows = entries.map((entry) => ledgerRow(entry, mpc));
      const balance = Number(formatCredits(organization.balance_millicents, mpc));
      const reserved = Number(formatCredits(organization.reserved_millicents, mpc));
      const available = Number(formatCredits(availableMillicents(organization), mpc));
      output(options.json).print(
        `Organization ${organization.id} balance: ${balance} credits (${reserved} reserved, ${available} available)\n\n` +
          table(rows, ['created_at', 'kind', 'credits', 'balance_after', 'reserved', 'request_id', 'model', 'operation', 'note']),
        { organization_id: organization.id, balance_credits: balance, reserved_credits: reserved, available_credits: available, entries: rows },
      );
    });
}

/** One ledger entry as `credits show` prints it, amounts in credits. */
function ledgerRow(e: LedgerEntry, mpc: number) {
  return {
    id: e.id,
    kind: e.kind,
    credits: Number(formatCredits(e.amount_millicents, mpc)),
    balance_after: Number(formatCredits(e.balance_after_millicents, mpc)),
    reserved: Number(formatCredits(e.reserved_delta_millicents, mpc)),
    reserved_after: Number(formatCredits(e.reserved_after_millicents, mpc)),
    request_id: e.request_id,
    key_id: e.key_id,
    model: e.model,
    operation: e.operation,
    note: e.note,
    created_at: formatTime(e.created_at),
  };
}

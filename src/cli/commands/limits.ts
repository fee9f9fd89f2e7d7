import type { Command } from 'commander';
import { overridesByRule } from '../../limits/overrides.ts';
import { capacityInForce, isRuleName, RULE_NAMES, RULES } from '../../limits/rules.ts';
import { configFrom, withCommonOptions, withStore } from '../context.ts';
import { CliError, output, table } from '../output.ts';

function positiveInteger(raw: string, what: string): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new CliError(`${what} must be a positive whole number, not "${raw}"`);
  }
  return Number(raw);
}

function ruleName(raw: string) {
  if (!isRuleName(raw)) throw new CliError(`unknown rule "${raw}"; rules: ${RULE_NAMES.join(', ')}`);
  return raw;
}

export function registerLimits(program: Command): void {
  const limits = program.command('limits').description("Show and override an organization's rate limits.");

  withCommonOptions(limits.command('show').description('The limits in force for an organization: configured, or overridden.'))
    .requiredOption('--org <id>', 'organization id')
    .option('--json', 'print JSON')
    .action(async (options) => {
      const config = configFrom(options);
      const overrides = overridesByRule(
        await withStore(config, async (store) => {
          if (!(await store.organizations.get(options.org))) throw new CliError(`organization ${options.org} does not exist`);
          return store.limitOverrides.forOrganization(options.org);
        }),
      );
      const rows = RULE_NAMES.map((rule) => {
        const capacity = capacityInForce(rule, config.limits, overrides);
        return {
          rule,
          dimension: RULES[rule].dimension,
          limit: capacity?.limit ?? null,
          window_seconds: capacity?.windowSeconds ?? null,
          source: overrides.has(rule) ? 'override' : 'config',
        };
      });
      output(options.json).print(
        table(rows.map((r) => ({ ...r, limit: r.limit ?? 'off', window_seconds: r.window_seconds ?? '-' })), ['rule', 'dimension', 'limit', 'window_seconds', 'source']),
        { organization_id: options.org, limits: rows },
      );
    });

  withCommonOptions(
    limits
      .command('set <rule> <limit> [window_seconds]')
      .description(`Override a rule for one organization; LIMIT "off" switches it off. Rules: ${RULE_NAMES.join(', ')}.`),
  )
    .requiredOption('--org <id>', 'organization id')
    .option('--json', 'print JSON')
    .action(async (rawRule: string, rawLimit: string, rawWindow: string | undefined, options) => {
      const rule = ruleName(rawRule);
      const off = rawLimit === 'off';
      const limit = off ? null : positiveInteger(rawLimit, 'LIMIT');
      const configured = RULES[rule].configured(configFrom(options).limits);
      const window = off ? null : rawWindow !== undefined ? positiveInteger(rawWindow, 'WINDOW_SECONDS') : configured?.window_seconds;
      if (window === undefined) throw new CliError(`rule ${rule} is off in the config; give WINDOW_SECONDS too`);
      await withStore(configFrom(options), async (store) => {
        if (!(await store.organizations.get(options.org))) throw new CliError(`organization ${options.org} does not exist`);
        await store.limitOverrides.set({ organization_id: options.org, rule, limit_value: limit, window_seconds: window });
      });
      const data = { organization_id: options.org, rule, limit, window_seconds: window };
      output(options.json).print(
        off ? `${rule} is off for ${options.org}.` : `${rule} for ${options.org}: ${limit} per ${window} s (every replica within a second).`,
        data,
      );
    });

  withCommonOptions(limits.command('clear <rule>').description("Remove an organization's override: the configured rule applies again."))
    .requiredOption('--org <id>', 'organization id')
    .option('--json', 'print JSON')
    .action(async (rawRule: string, options) => {
      const rule = ruleName(rawRule);
      const cleared = await withStore(configFrom(options), (store) => store.limitOverrides.clear(options.org, rule));
      if (!cleared) throw new CliError(`organization ${options.org} has no override of ${rule}`);
      output(options.json).print(`${rule} for ${options.org} follows the config again.`, { organization_id: options.org, rule, cleared: true });
    });
}

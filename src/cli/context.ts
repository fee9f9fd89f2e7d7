import type { Command } from 'commander';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { SETTINGS } from '../config/settings.ts';
import { openStore, type Store } from '../store/index.ts';
import { cliIo } from './io.ts';

/** Options every command accepts: where the data is and which config file to read. */
export function withCommonOptions(command: Command): Command {
  command.option('--config <file>', 'config file (JSON or YAML; env INKWELL_CONFIG)');
  for (const setting of SETTINGS.filter((s) => s.everyCommand)) {
    command.option(`${setting.flag}${setting.argument ? ` ${setting.argument}` : ''}`, `${setting.description} (env ${setting.env})`);
  }
  return command;
}

/** commander's camelCase option name of a flag: --data-dir → dataDir. */
export function optionKey(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function configFrom(options: Record<string, unknown>): Config {
  const flags: Record<string, string | boolean | undefined> = {};
  for (const setting of SETTINGS) {
    const value = options[optionKey(setting.flag)];
    if (value !== undefined) flags[setting.path] = value as string | boolean;
  }
  return loadConfig({ configFile: options.config as string | undefined, flags, env: cliIo().env });
}

/** Opens the store for one command and closes it afterwards. */
export async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ databaseUrl: config.database_url, dataDir: config.data_dir });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

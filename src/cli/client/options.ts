import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_BASE_URL, type ConnectionOptions } from './connection.ts';

// The options the API client commands share, and parsers for option values. Ranges are left to
// the API, which answers 400 with the offending `param`: its contract is the one place they live.

export interface ClientOptions extends ConnectionOptions {
  json?: boolean;
}

export interface OperationOptions extends ClientOptions {
  output: string;
  model?: string;
  reasoningEffort?: string;
}

export function withClientOptions(command: Command): Command {
  return command
    .option('--base-url <url>', `API base URL (env INKWELL_BASE_URL; default ${DEFAULT_BASE_URL})`)
    .option('--key <key>', 'API key (env INKWELL_API_KEY, which keeps the key out of the process list)')
    .option('--json', 'print one JSON document on stdout instead of lines');
}

/** The options of every SVG operation: where files go, which model, how hard it thinks. */
export function withOperationOptions(command: Command): Command {
  return withClientOptions(command)
    .option('-o, --output <dir>', 'directory for the SVG files, created if missing', '.')
    .option('--model <id>', 'model id (default: the first catalog model that supports the operation)')
    .option('--reasoning-effort <effort>', 'low, medium, high or xhigh (default: the model’s)');
}

export function integer(raw: string): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new InvalidArgumentError('expected a whole number.');
  return Number(raw);
}

export function decimal(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new InvalidArgumentError('expected a number.');
  return value;
}

/** A repeatable option: each use adds one value. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--view-box "0 0 512 512"` (commas also separate) → the request's `attributes.viewBox`. */
export function viewBox(raw: string): { minX: number; minY: number; width: number; height: number } {
  const parts = raw.trim().split(/[\s,]+/).map(Number);
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) {
    throw new InvalidArgumentError('expected four numbers: minX minY width height.');
  }
  const [minX, minY, width, height] = parts as [number, number, number, number];
  return { minX, minY, width, height };
}

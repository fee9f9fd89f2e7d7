import { cliIo } from '../io.ts';
import { CliError } from '../output.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** Where the API is and the key to call it with. */
export interface Connection {
  baseUrl: string;
  key: string;
}

export interface ConnectionOptions {
  baseUrl?: string;
  key?: string;
}

/** Flags first, then INKWELL_BASE_URL and INKWELL_API_KEY; the base URL defaults to a local server. */
export function connectionFrom(options: ConnectionOptions, env: NodeJS.ProcessEnv = cliIo().env): Connection {
  const baseUrl = options.baseUrl ?? env.INKWELL_BASE_URL ?? DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new CliError(`the base URL "${baseUrl}" is not a URL (e.g. ${DEFAULT_BASE_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`the base URL must be http or https, not "${baseUrl}"`);
  }
  const key = options.key ?? env.INKWELL_API_KEY;
  if (!key) throw new CliError('no API key: set INKWELL_API_KEY or pass --key');
  // Paths are appended to the base ("/v1/…"), so a base behind a path prefix keeps it.
  return { baseUrl: url.href.replace(/\/+$/, ''), key };
}

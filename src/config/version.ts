import { readFileSync } from 'node:fs';

/** This package's version, from its package.json (the same file in a checkout, a build and an image). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

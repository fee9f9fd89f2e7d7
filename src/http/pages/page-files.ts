import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the pages' own files are: next to this module, in the package (no build step). */
export const PAGES_DIR = dirname(fileURLToPath(import.meta.url));
export const PLAYGROUND_DIR = join(PAGES_DIR, 'playground');
export const DOCS_DIR = join(PAGES_DIR, 'docs');

const require = createRequire(import.meta.url);

/** The browser (ESM) build of eventsource-parser: one self-contained module. */
export function eventSourceParserModule(): string {
  const packageDir = dirname(require.resolve('eventsource-parser/package.json'));
  return readFileSync(join(packageDir, 'dist', 'index.js'), 'utf8');
}

/** The folder of swagger-ui-dist's prebuilt files (its absolute-path helper, not its heavy index). */
export function swaggerUiDir(): string {
  const getAbsoluteFSPath = require('swagger-ui-dist/absolute-path.js') as () => string;
  return getAbsoluteFSPath();
}

/** The files of swagger-ui-dist a page needs; nothing else in that folder is served. */
export const SWAGGER_UI_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

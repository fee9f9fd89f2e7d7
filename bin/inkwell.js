#!/usr/bin/env node
// Entry point of the `inkwell` command. It runs the JavaScript that `npm run build` compiles into
// dist/ (npm ci, npm start and npm test build it first). In a checkout whose src/ changed since the
// last build, or was never built, it runs the TypeScript sources through tsx instead: never stale
// code, only a slower start (a terminal is told why).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleBuildReason } from './build-freshness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const stale = staleBuildReason(root);
let main;
if (stale === undefined) {
  ({ main } = await import('../dist/cli/main.js'));
} else if (!existsSync(join(root, 'src'))) {
  process.stderr.write(`inkwell: ${stale} and there are no sources to run: run \`npm run build\`\n`);
  process.exit(1);
} else {
  if (process.stderr.isTTY) process.stderr.write(`inkwell: ${stale}: running the sources through tsx (\`npm run build\` makes it start faster)\n`);
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));

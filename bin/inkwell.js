#!/usr/bin/env node
// Entry point of the `inkwell` command. The sources are TypeScript run through tsx,
// so a clone works without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

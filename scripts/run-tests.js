#!/usr/bin/env node
// Runs every test file under test/ with node:test through tsx, on the sources. It builds dist/
// first (nothing to do when it is up to date), because a few tests spawn bin/inkwell.js, which
// runs the build. Should the build fail, the tests still run (the binary then runs the sources)
// and the run fails at the end.
// Node 20's --test does not expand globs, so the files are listed here.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findTests(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = findTests('test')
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
// Suites that need a service this machine may not have skip themselves (node:test's summary counts
// skipped tests, not skipped suites), so the run ends by saying which did not run and why.
const chromium = process.env.INKWELL_CHROMIUM ?? '/usr/bin/chromium';
const OPTIONAL = [
  { what: 'PostgreSQL', marker: /SKIP_POSTGRES|BACKENDS/, missing: !process.env.DATABASE_URL && 'DATABASE_URL is not set' },
  { what: 'Redis', marker: /SKIP_REDIS|counters\.skip/, missing: !process.env.REDIS_URL && 'REDIS_URL is not set' },
  { what: 'browser', marker: /SKIP_BROWSER/, missing: !existsSync(chromium) && `no Chromium at ${chromium}` },
];
const notRun = OPTIONAL.filter((backend) => backend.missing).flatMap((backend) => {
  const suites = files.filter((file) => backend.marker.test(readFileSync(file, 'utf8'))).length;
  return suites === 0 ? [] : [`${backend.what} suites in ${suites} file${suites === 1 ? '' : 's'} (${backend.missing})`];
});

const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
// Most files wait on servers, child processes and sockets rather than compute, so two files run
// at once on any machine (node:test's default, one fewer than the cores, is one file on two cores).
// INKWELL_TEST_CONCURRENCY overrides it: .ci/run uses 1, as its two cores also carry PostgreSQL,
// Redis and Chromium, and a few suites time deadlines.
const concurrency = Number(process.env.INKWELL_TEST_CONCURRENCY) || Math.max(2, availableParallelism() - 1);
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], { stdio: 'inherit' });
if (notRun.length > 0) console.log(`\nNot run here, skipped: ${notRun.join('; ')}. bash .ci/run installs and runs everything.`);
if (build.status !== 0) console.error('\nThe build failed (see its errors before the tests): the tests that spawn bin/inkwell.js ran the sources.');
const passed = result.status === 0 && build.status === 0;
process.exit(passed ? 0 : result.status || 1);

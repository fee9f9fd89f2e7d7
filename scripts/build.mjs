#!/usr/bin/env node
// `npm run build`, which npm ci (prepare), npm start (prestart) and npm test also run: compiles
// src/ into dist/ with tsc (tsconfig.build.json: the sources keep their .ts imports, written as .js),
// copies the files the code reads at run time (the pages, .mjs, .json) to the same paths under
// dist/, removes outputs whose source is gone, and stamps the build. When dist/ is already a build
// of the sources it does nothing: the check costs milliseconds, the compiler seconds.
// Plain JavaScript, so building needs no tsx.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_STAMP, staleBuildReason } from '../bin/build-freshness.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
/**
 * Entries for source runs only (they register tsx, then import .ts); a build runs worker-main.js
 * and instance-heartbeat-thread.js.
 */
const SOURCE_ONLY = new Set(['worker-entry.mjs', 'instance-heartbeat-entry.mjs']);
/** The build's own state under dist/: the stamp and the compiler's incremental record. */
const BUILD_STATE = new Set([BUILD_STAMP, join('dist', '.tsbuildinfo')].map((path) => join(ROOT, path)));

function fail(message) {
  process.stderr.write(`build: ${message}\n`);
  process.exit(1);
}

/** The files under `dir`, as paths relative to it. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)));
}

function compile() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    fail('TypeScript is not installed (a dev dependency): install with `npm ci`, without --omit=dev.');
  }
  const result = spawnSync(process.execPath, [tsc, '--project', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) fail('tsc reported errors (above); dist/ is not stamped, so bin/inkwell.js runs the sources.');
}

function copyRuntimeFiles() {
  const runtimeFiles = filesUnder(SRC).filter((path) => !path.endsWith('.ts') && !SOURCE_ONLY.has(basename(path)));
  for (const path of runtimeFiles) {
    mkdirSync(dirname(join(DIST, path)), { recursive: true });
    copyFileSync(join(SRC, path), join(DIST, path));
  }
}

/** Deletes what an earlier build left for a source that has since been removed or renamed. */
function removeOrphans() {
  for (const path of filesUnder(DIST)) {
    if (BUILD_STATE.has(join(DIST, path))) continue;
    const compiledFrom = path.replace(/\.js(\.map)?$/, '.ts');
    const hasSource = !SOURCE_ONLY.has(basename(path)) && (existsSync(join(SRC, path)) || existsSync(join(SRC, compiledFrom)));
    if (!hasSource) rmSync(join(DIST, path));
  }
}

const started = new Date();
const reason = staleBuildReason(ROOT);
if (reason === undefined) {
  console.log('build: dist/ is up to date');
  process.exit(0);
}
// Unstamped until it succeeds: a failed or interrupted build never passes for a fresh one.
const stamp = join(ROOT, BUILD_STAMP);
rmSync(stamp, { force: true });
compile();
copyRuntimeFiles();
removeOrphans();
writeFileSync(stamp, `${started.toISOString()}\n`);
// The build's start, not its end: a source saved while it ran is newer, so the next build sees it.
utimesSync(stamp, started, started);
console.log(`build: dist/ built in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s (${reason})`);

/**
 * Running the `inkwell` command line in tests: in this process (main() with captured output and
 * an environment of its own; milliseconds a run), or as the real binary (`node bin/inkwell.js`, the
 * build in dist/, about a tenth of a second a start) for what only a process shows: the working
 * directory, the process environment, signals.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CliStream } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

export const BIN = fileURLToPath(new URL('../../bin/inkwell.js', import.meta.url));
const BINARY_TIMEOUT_MS = 60_000;

export interface CliResult {
  args: string[];
  code: number;
  stdout: string;
  stderr: string;
}

/** The parent environment without anything that would point the CLI at other data, config or a server. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('INKWELL_') || name === 'DATABASE_URL' || name.startsWith('NODE_TEST')) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

export function describeRun(result: CliResult): string {
  return `inkwell ${result.args.join(' ')} → exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/** Collects what a run writes; not a terminal, so no progress line and no wrapping to a width. */
function capture(): CliStream & { text: string } {
  return {
    text: '',
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}

// In-process runs go one at a time: two SQLite connections in one thread would stall each other
// (better-sqlite3 waits for a lock synchronously), and a run takes milliseconds anyway.
let previous: Promise<unknown> = Promise.resolve();

/**
 * Runs `inkwell ARGS` in this process with `env` added to a clean environment. Paths given to it
 * are resolved against this process's working directory, so tests pass absolute ones.
 */
export function inkwell(args: string[], { env }: { env?: Record<string, string> } = {}): Promise<CliResult> {
  const run = previous.then(async () => {
    const stdout = capture();
    const stderr = capture();
    const code = await main(args, { stdout, stderr, env: cleanEnv(env) });
    return { args, code, stdout: stdout.text, stderr: stderr.text };
  });
  previous = run.catch(() => undefined);
  return run;
}

// Each binary start takes a core for a moment; more processes than cores only adds timeouts.
let running = 0;
const waiting: (() => void)[] = [];
const LIMIT = Math.max(2, availableParallelism());
export async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= LIMIT) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** Runs `node bin/inkwell.js ARGS` to completion in `cwd`, with `env` added to a clean environment. */
export function inkwellBinary(args: string[], { cwd, env }: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return slot(
    () =>
      new Promise<CliResult>((resolve, reject) => {
        execFile(
          process.execPath,
          [BIN, ...args],
          { cwd, env: cleanEnv(env), timeout: BINARY_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 },
          (error, stdout, stderr) => {
            if (error && typeof error.code !== 'number') {
              reject(new Error(`inkwell ${args.join(' ')} did not finish (${error.signal ?? error.code}): ${stderr}`));
              return;
            }
            resolve({ args, code: error ? (error.code as number) : 0, stdout, stderr });
          },
        );
      }),
  );
}

/** Asserts a run succeeded with nothing on stderr, and returns its stdout. */
export function ok(result: CliResult): string {
  assert.equal(result.code, 0, describeRun(result));
  assert.equal(result.stderr, '', describeRun(result));
  return result.stdout;
}

/**
 * A scratch folder for one test file, removed after it, and a way to make a fresh directory in it
 * for each suite (the home of its data and files).
 */
export function scratchDirs(prefix: string): (name: string) => string {
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  return (name) => mkdtempSync(join(scratch, `${name}-`));
}


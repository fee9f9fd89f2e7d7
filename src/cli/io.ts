import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a command writes: the process's stdout or stderr, or a test's capture. */
export interface CliStream {
  write(text: string): unknown;
  /** A terminal gets a progress line and help wrapped to its width; anything else, plain lines. */
  isTTY?: boolean;
  columns?: number;
}

/** What a run of the command line writes to and reads its environment from. */
export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: NodeJS.ProcessEnv;
}

export function processIo(): CliIo {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

const guarded = new WeakSet<NodeJS.WriteStream>();

/**
 * A reader that stops early (`inkwell openapi | head -3`) closes the pipe: what is left to write
 * goes nowhere, and the command ends as it would have (exit 0), as other command-line tools do,
 * instead of crashing on an unhandled EPIPE.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

const running = new AsyncLocalStorage<CliIo>();

/**
 * The io of the run in progress (main() sets it), so that runs in one process — the tests call
 * main() in-process — keep their output and environment apart.
 */
export function cliIo(): CliIo {
  return running.getStore() ?? processIo();
}

export function runWithIo<T>(io: CliIo, run: () => Promise<T>): Promise<T> {
  return running.run(io, run);
}

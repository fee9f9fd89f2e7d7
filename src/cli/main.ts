import { Command, CommanderError } from 'commander';
import { ClientExit } from './client/exit-codes.ts';
import { CliError } from './output.ts';

type Register = (program: Command) => void;

/**
 * Every top-level command and the module that registers it, in help order. A module loads only
 * when its command runs (all of them for help or an unknown word): the admin commands pull in the
 * config schema, the store and the engines, which the API client commands must start without.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  serve: async () => (await import('./commands/serve.ts')).registerServe,
  org: async () => (await import('./commands/org.ts')).registerOrg,
  key: async () => (await import('./commands/key.ts')).registerKey,
  credits: async () => (await import('./commands/credits.ts')).registerCredits,
  limits: async () => (await import('./commands/limits.ts')).registerLimits,
  models: async () => (await import('./commands/models.ts')).registerModels,
  openapi: async () => (await import('./commands/openapi.ts')).registerOpenApi,
  generate: async () => (await import('./commands/generate.ts')).registerGenerate,
  vectorize: async () => (await import('./commands/vectorize.ts')).registerVectorize,
  edit: async () => (await import('./commands/edit.ts')).registerEdit,
  animate: async () => (await import('./commands/animate.ts')).registerAnimate,
};

/** The program with the command `argv` names, or with every command when it names none. */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command('inkwell')
    .description('Inkwell: a self-hostable SVG generation API.')
    .showHelpAfterError()
    // Options belong to the command they follow, so that a group and its subcommand may share a
    // flag: `models --json` (the API's list) and `models list --json` (the configured catalog).
    .enablePositionalOptions()
    .exitOverride();
  const named = argv[0] !== undefined && Object.hasOwn(COMMANDS, argv[0]) ? [argv[0]] : Object.keys(COMMANDS);
  const registers = await Promise.all(named.map((name) => COMMANDS[name]!()));
  for (const register of registers) register(program);
  program.commands.forEach(function override(command: Command) {
    command.exitOverride();
    command.commands.forEach(override);
  });
  return program;
}

/** An operating-system error (ENOTDIR, EACCES, EADDRINUSE…): its message says it all, a stack adds nothing. */
function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** A config file the user can fix; matched by name so that this module need not load the config code. */
function isConfigError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ConfigError';
}

/**
 * Runs the command line and returns the exit code: 0 on success; otherwise a message on stderr
 * and 1, or the code a client command chose (see client/exit-codes.ts).
 */
export async function main(argv: string[]): Promise<number> {
  try {
    await (await buildProgram(argv)).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ClientExit) {
      process.stderr.write(`inkwell: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof CliError || isConfigError(error) || isSystemError(error)) {
      process.stderr.write(`inkwell: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`inkwell: ${(error as Error).stack ?? error}\n`);
    return 1;
  }
}

import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/load.ts';
import { registerCredits } from './commands/credits.ts';
import { registerKey } from './commands/key.ts';
import { registerLimits } from './commands/limits.ts';
import { registerModels } from './commands/models.ts';
import { registerOpenApi } from './commands/openapi.ts';
import { registerOrg } from './commands/org.ts';
import { registerServe } from './commands/serve.ts';
import { CliError } from './output.ts';

export function buildProgram(): Command {
  const program = new Command('inkwell')
    .description('Inkwell: a self-hostable SVG generation API.')
    .showHelpAfterError()
    .exitOverride();
  registerServe(program);
  registerOrg(program);
  registerKey(program);
  registerCredits(program);
  registerLimits(program);
  registerModels(program);
  registerOpenApi(program);
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

/** Runs the command line and returns the exit code: 0 on success, 1 with a message on stderr otherwise. */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError || error instanceof ConfigError || isSystemError(error)) {
      process.stderr.write(`inkwell: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`inkwell: ${(error as Error).stack ?? error}\n`);
    return 1;
  }
}

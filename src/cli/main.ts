import { packageVersion } from '../config/version.ts';
import { Command, CommanderError, Help, type OutputConfiguration } from 'commander';
import { ClientExit } from './client/exit-codes.ts';
import { COMMANDS, commandNamed } from './command-index.ts';
import { cliIo, processIo, runWithIo, type CliIo } from './io.ts';
import { CliError } from './output.ts';

/**
 * Lists every command for help (or an unknown word) from the index, loading none of their
 * modules: `inkwell --help` starts as fast as the command line can.
 */
function listCommands(program: Command): void {
  for (const [name, entry] of Object.entries(COMMANDS)) program.command(name).description(entry.description);
  const standard = new Help();
  program.configureHelp({
    subcommandTerm: (command) => (Object.hasOwn(COMMANDS, command.name()) ? COMMANDS[command.name()]!.term : standard.subcommandTerm(command)),
  });
}


/** commander's own output (help, usage errors) goes where the run's output goes. */
function outputTo(io: CliIo): OutputConfiguration {
  return {
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    // A terminal's width, else commander's 80 (its own default, which reads process.stdout).
    getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns) || 80,
    getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns) || 80,
  };
}

/** The program with the command `argv` names, or with every command listed when it names none. */
export async function buildProgram(argv: string[] = [], io: CliIo = cliIo()): Promise<Command> {
  const program = new Command('inkwell')
    .description('Inkwell: a self-hostable SVG generation API.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError()
    // Options belong to the command they follow, so that a group and its subcommand may share a
    // flag: `models --json` (the API's list) and `models list --json` (the configured catalog).
    .enablePositionalOptions()
    .exitOverride();
  const named = commandNamed(argv);
  if (named === undefined) listCommands(program);
  else (await COMMANDS[named]!.load())(program);
  const output = outputTo(io);
  (function override(command: Command) {
    command.exitOverride();
    command.configureOutput(output);
    command.commands.forEach(override);
  })(program);
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
 * and 1, or the code a client command chose (see client/exit-codes.ts). `io` is the process's
 * streams and environment unless a caller (the tests) gives its own.
 */
export function main(argv: string[], given?: CliIo): Promise<number> {
  const io = given ?? processIo();
  const run = async (): Promise<number> => {
    try {
      await (await buildProgram(argv, io)).parseAsync(argv, { from: 'user' });
      return 0;
    } catch (error) {
      if (error instanceof CommanderError) return error.exitCode;
      if (error instanceof ClientExit) {
        io.stderr.write(`inkwell: ${error.message}\n`);
        return error.exitCode;
      }
      if (error instanceof CliError || isConfigError(error) || isSystemError(error)) {
        io.stderr.write(`inkwell: ${error.message}\n`);
        return 1;
      }
      io.stderr.write(`inkwell: ${(error as Error).stack ?? error}\n`);
      return 1;
    }
  };
  // Only a caller's own io needs a context: AsyncLocalStorage turns on async hooks for the whole
  // process, which a server would pay for on every promise of every request.
  return given ? runWithIo(given, run) : run();
}

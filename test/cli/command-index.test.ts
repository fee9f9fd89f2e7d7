// `inkwell --help` lists the commands from src/cli/command-index.ts without loading their modules:
// the index must say what each module registers, and help must load none of them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command, Help } from 'commander';
import { COMMANDS, type CommandEntry } from '../../src/cli/command-index.ts';
import { inkwell } from '../helpers/cli.ts';

describe('the command index', () => {
  it('lists each command with the term and description its module registers', async () => {
    const help = new Help();
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const program = new Command('inkwell');
      (await entry.load())(program);
      assert.equal(program.commands.length, 1, `${name} registers one top-level command`);
      const command = program.commands[0]!;
      assert.deepEqual(
        { name: command.name(), term: help.subcommandTerm(command), description: command.description() },
        { name, term: entry.term, description: entry.description },
      );
    }
  });

  it('inkwell --help (and an unknown command) loads no command module', async () => {
    const loaders = new Map<CommandEntry, CommandEntry['load']>();
    for (const entry of Object.values(COMMANDS)) {
      loaders.set(entry, entry.load);
      entry.load = () => Promise.reject(new Error('a command module was loaded'));
    }
    try {
      const [help, unknown] = [await inkwell(['--help']), await inkwell(['frobnicate'])];
      assert.equal(help.code, 0, help.stderr);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^error: unknown command 'frobnicate'$/m);
      for (const { term, description } of Object.values(COMMANDS)) {
        for (const text of [help.stdout, unknown.stderr]) assert.ok(text.includes(`  ${term}  `) && text.includes(description.slice(0, 20)), term);
      }
    } finally {
      for (const [entry, load] of loaders) entry.load = load;
    }
  });
});

import type { Command } from 'commander';

export type Register = (program: Command) => void;

export interface CommandEntry {
  /** How `inkwell --help` lists it: the name, `[options]` when it has any, its arguments. */
  term: string;
  /** Its description, as its module gives it (a test keeps the two the same). */
  description: string;
  /** Imports the module that registers the command: done only when the command runs. */
  load: () => Promise<Register>;
}

/**
 * Every top-level command, in help order. A module loads only when its command runs: the admin
 * commands pull in the config schema, the store and the engines, which the API client commands
 * must start without, and `inkwell --help` lists the commands from this table alone.
 */
export const COMMANDS: Record<string, CommandEntry> = {
  serve: {
    term: 'serve [options]',
    description: 'Run the HTTP API (default http://127.0.0.1:8080, SQLite under ./data).',
    load: async () => (await import('./commands/serve.ts')).registerServe,
  },
  org: {
    term: 'org',
    description: 'Manage organizations.',
    load: async () => (await import('./commands/org.ts')).registerOrg,
  },
  key: {
    term: 'key',
    description: 'Manage API keys. Secrets are shown once, at creation.',
    load: async () => (await import('./commands/key.ts')).registerKey,
  },
  credits: {
    term: 'credits',
    description: "Grant credits and read an organization's ledger.",
    load: async () => (await import('./commands/credits.ts')).registerCredits,
  },
  limits: {
    term: 'limits',
    description: "Show and override an organization's rate limits.",
    load: async () => (await import('./commands/limits.ts')).registerLimits,
  },
  models: {
    term: 'models [options]',
    description: 'List the models your API key can use (GET /v1/models); `models list` shows the configured catalog.',
    load: async () => (await import('./commands/models.ts')).registerModels,
  },
  openapi: {
    term: 'openapi [options]',
    description: 'Print the OpenAPI 3.1 document of the API (or write it to a file).',
    load: async () => (await import('./commands/openapi.ts')).registerOpenApi,
  },
  generate: {
    term: 'generate [options] <prompt>',
    description: 'Generate SVGs from a text prompt (POST /v1/svgs/generations) and write them to files.',
    load: async () => (await import('./commands/generate.ts')).registerGenerate,
  },
  vectorize: {
    term: 'vectorize [options] <image>',
    description: 'Convert a raster image (or SVG) into an SVG (POST /v1/svgs/vectorizations) and write it to a file.',
    load: async () => (await import('./commands/vectorize.ts')).registerVectorize,
  },
  edit: {
    term: 'edit [options] <svg> <instruction>',
    description: 'Edit an SVG by an instruction (POST /v1/svgs/edits) and write the result to a file.',
    load: async () => (await import('./commands/edit.ts')).registerEdit,
  },
  animate: {
    term: 'animate [options] <svg> [prompt]',
    description: 'Animate an SVG (POST /v1/svgs/animations) and write the animated SVG to a file.',
    load: async () => (await import('./commands/animate.ts')).registerAnimate,
  },
  mcp: {
    term: 'mcp [options]',
    description: 'Serve Inkwell\'s tools to an MCP client (an agent) over stdio, calling a running Inkwell with your key.',
    load: async () => (await import('./commands/mcp.ts')).registerMcp,
  },
};

/** The command an argument list runs (`help NAME` included), or undefined when it names none. */
export function commandNamed(argv: string[]): string | undefined {
  const word = argv[0] === 'help' ? argv[1] : argv[0];
  return word !== undefined && Object.hasOwn(COMMANDS, word) ? word : undefined;
}

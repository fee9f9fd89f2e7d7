import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { buildOpenApiDocument } from '../../contract/openapi.ts';
import { configFrom, withCommonOptions } from '../context.ts';
import { cliIo } from '../io.ts';
import { CliError, fileFailure } from '../output.ts';

export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

export function registerOpenApi(program: Command): void {
  withCommonOptions(
    program.command('openapi').description('Print the OpenAPI 3.1 document of the API (or write it to a file).'),
  )
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--json', 'accepted for symmetry: the document is JSON either way')
    .action((options: Record<string, unknown> & { out?: string }) => {
      // The document does not depend on the configuration, but a --config that cannot be read or
      // is invalid is still an error here, as it is for every other command.
      configFrom(options);
      if (options.out) {
        try {
          writeFileSync(options.out, openApiText());
        } catch (error) {
          throw new CliError(fileFailure('write', options.out, error));
        }
      } else {
        cliIo().stdout.write(openApiText());
      }
    });
}

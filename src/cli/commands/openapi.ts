import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { buildOpenApiDocument } from '../../contract/openapi.ts';

export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

export function registerOpenApi(program: Command): void {
  program
    .command('openapi')
    .description('Print the OpenAPI 3.1 document of the API (or write it to a file).')
    .option('--out <file>', 'write to this file instead of stdout')
    .action((options: { out?: string }) => {
      if (options.out) writeFileSync(options.out, openApiText());
      else process.stdout.write(openApiText());
    });
}

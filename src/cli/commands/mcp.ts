import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { connectionFrom, DEFAULT_BASE_URL, type ConnectionOptions } from '../client/connection.ts';
import { packageVersion } from '../../config/version.ts';

/**
 * `inkwell mcp`: an MCP server on stdin and stdout, for desktop and IDE agents. Its tools call a
 * running Inkwell (the base URL and key from flags or INKWELL_BASE_URL and INKWELL_API_KEY), so
 * the key's capabilities, models, rate limits and billing apply as to any client. It may read the
 * agent's image files (vectorize_image's image.path) and write SVG files (output_path); stdout
 * carries only the protocol.
 */
export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('Serve Inkwell\'s tools to an MCP client (an agent) over stdio, calling a running Inkwell with your key.')
    .option('--base-url <url>', `API base URL (env INKWELL_BASE_URL; default ${DEFAULT_BASE_URL})`)
    .option('--key <key>', 'API key (env INKWELL_API_KEY, which keeps the key out of the process list)')
    .action(async (options: ConnectionOptions) => {
      const connection = connectionFrom(options);
      const [{ StdioServerTransport }, { createMcpServer }, { InkwellApi }, { renderPng }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../../mcp/server.ts'),
        import('../../mcp/api.ts'),
        import('../../svg/render.ts'),
      ]);
      const server = createMcpServer(
        {
          transport: 'stdio',
          api: new InkwellApi(connection.baseUrl, connection.key),
          preview: async (svg, maxSide) => renderPng(svg, maxSide),
          files: {
            read: (path) => readFile(resolve(path)),
            write: async (path, text) => {
              const target = resolve(path);
              await writeFile(target, text);
              return target;
            },
          },
        },
        packageVersion(),
      );
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((done) => (transport.onclose = done));
      await server.connect(transport);
      // Until the agent closes stdin.
      await closed;
    });
}

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { callTool, type ToolHost } from './call-tool.ts';
import { toolSpecs } from './tools.ts';

/** What the agent is told when it connects. */
const INSTRUCTIONS =
  'Inkwell draws, traces, edits and animates SVG. Call list_models first to see which models this key may use and what each does; every tool returns the SVG as text, a PNG preview, the credits charged and the request id.';

/**
 * Inkwell's operations as MCP tools, on the official SDK's low-level server (the tools' JSON
 * Schemas are the HTTP API's own request schemas, which its zod-based helpers would restate).
 * One server serves one connection: over stdio, the agent's; over HTTP, one request.
 */
export function createMcpServer(host: ToolHost, version: string): Server {
  const specs = toolSpecs(host.transport);
  const server = new Server({ name: 'inkwell', title: 'Inkwell', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: specs.map((spec) => ({
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: spec.inputSchema as { type: 'object'; properties?: Record<string, object> },
      annotations: { title: spec.title, readOnlyHint: spec.readOnly, destructiveHint: false, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(host, specs, request.params.name, request.params.arguments ?? {}, extra));
  return server;
}

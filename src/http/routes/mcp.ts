import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { authenticate } from '../../accounts/principal.ts';
import { InkwellApi } from '../../mcp/api.ts';
import { InflightCalls } from '../../mcp/cancellations.ts';
import { createMcpServer } from '../../mcp/server.ts';
import type { HttpDeps } from '../deps.ts';

/** What the MCP endpoint needs beyond the routes' own deps. */
export interface McpRouteDeps {
  /** A PNG of an SVG in the render workers (the tools' previews). */
  preview(svg: string, maxSide: number, signal: AbortSignal): Promise<Uint8Array>;
  version: string;
}

/**
 * `POST /mcp`: the Streamable HTTP transport of MCP, stateless (a server and a transport for each
 * request, no session), authenticated with the API's bearer keys. The tools call this same
 * service's API over loopback with the caller's key, so the key's capabilities, models, rate
 * limits and billing apply exactly as on the HTTP API, and a cancelled call is a client that left.
 * `GET` and `DELETE` (a server-to-client stream, a session to end) are 405: there are none.
 */
export function registerMcpRoute(app: FastifyInstance, deps: HttpDeps, mcp: McpRouteDeps): void {
  const bodyLimit = Math.max(...Object.values(deps.maxBodyBytes)) + 64 * 1024;
  const inflight = new InflightCalls();
  app.post('/mcp', { bodyLimit }, async (request: FastifyRequest, reply: FastifyReply) => {
    // Any key of the API; each tool's call applies the key's own rule (a project key's
    // capabilities, get_balance's admin permission).
    const principal = await authenticate(deps.store, request.headers.authorization);
    const key = request.headers.authorization!.replace(/^Bearer\s+/i, '').trim();
    const calls = inflight.admit(principal.keyId, request.body);
    const server = createMcpServer(
      { transport: 'http', api: new InkwellApi(selfUrl(request), key), preview: mcp.preview, cancellation: (id) => calls.signalOf(id) },
      mcp.version,
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.hijack();
    reply.raw.once('close', () => {
      calls.done();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  // MCP's own answer (a JSON-RPC error, as the SDK's transport gives for a method it does not
  // serve): the spec's envelope has no 405, and an MCP client reads this one.
  const none = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless (POST each message; no stream of its own, no session to end).' }, id: null });
  app.get('/mcp', none);
  app.delete('/mcp', none);
}

/** This service's own address, as the tools call its API: the listening port, on loopback when it listens on every address. */
function selfUrl(request: FastifyRequest): string {
  const address = request.server.server.address() as AddressInfo;
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '[::1]' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

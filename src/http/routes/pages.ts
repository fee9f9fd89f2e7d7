import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DOCS_DIR,
  PLAYGROUND_DIR,
  SWAGGER_UI_FILES,
  eventSourceParserModule,
  swaggerUiDir,
} from '../pages/page-files.ts';
import { PAGE_SECURITY_HEADERS } from '../pages/security-headers.ts';

/** The asset types the pages use; a file of any other type in those folders is not served. */
const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

function asset(body: Buffer | string, type: string): Asset {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { body: bytes, type, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` };
}

/** The scripts, styles and images of one folder (not its subfolders), by file name. */
function folderAssets(dir: string, only?: ReadonlySet<string>): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const type = ASSET_TYPES[extname(entry.name)];
    if (!entry.isFile() || !type || entry.name.startsWith('.') || (only && !only.has(entry.name))) continue;
    assets.set(entry.name, asset(readFileSync(join(dir, entry.name)), type));
  }
  return assets;
}

/**
 * The browser pages: the playground at GET / and the API reference at GET /docs, with their
 * assets. They need no key (the playground asks for one and keeps it in the tab's memory), are
 * neither authenticated nor rate-limited, and an unknown asset is the API's usual 404 envelope.
 * Every file is read from the package once, at start, and served from memory by its exact name:
 * a fixed set of a few files, so no path from a request ever reaches the file system. Each has
 * an ETag, and `Cache-Control: no-cache` makes a browser revalidate it (a 304 when unchanged).
 */
export function registerPageRoutes(app: FastifyInstance): void {
  app.register(playgroundPages);
  app.register(referencePages);
}

async function playgroundPages(scope: FastifyInstance): Promise<void> {
  sendSecurityHeaders(scope);
  const page = asset(readFileSync(join(PLAYGROUND_DIR, 'index.html')), 'text/html; charset=utf-8');
  const assets = folderAssets(PLAYGROUND_DIR);
  assets.set('vendor/eventsource-parser.js', asset(eventSourceParserModule(), ASSET_TYPES['.js']!));
  scope.get('/', async (request, reply) => send(request, reply, page));
  serveAssets(scope, '/playground/', assets);
}

async function referencePages(scope: FastifyInstance): Promise<void> {
  sendSecurityHeaders(scope);
  const page = asset(readFileSync(join(DOCS_DIR, 'index.html')), 'text/html; charset=utf-8');
  scope.get('/docs', async (request, reply) => send(request, reply, page));
  serveAssets(scope, '/docs/assets/', folderAssets(DOCS_DIR));
  serveAssets(scope, '/docs/assets/swagger-ui/', folderAssets(swaggerUiDir(), SWAGGER_UI_FILES));
}

/** One GET route per asset (HEAD comes with it); any other path under the prefix is the 404 envelope. */
function serveAssets(scope: FastifyInstance, prefix: string, assets: Map<string, Asset>): void {
  for (const [name, file] of assets) scope.get(prefix + name, async (request, reply) => send(request, reply, file));
}

function sendSecurityHeaders(scope: FastifyInstance): void {
  scope.addHook('onRequest', async (_request, reply) => {
    reply.headers(PAGE_SECURITY_HEADERS);
  });
}

function send(request: FastifyRequest, reply: FastifyReply, file: Asset): FastifyReply {
  reply.header('Cache-Control', 'no-cache').header('ETag', file.etag);
  if (matchesETag(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  return reply.type(file.type).send(file.body);
}

/** If-None-Match: `*`, or a comma-separated list of tags, weak ones (W/) compared weakly as RFC 9110 says. */
function matchesETag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  DOCS_DIR,
  PLAYGROUND_DIR,
  SWAGGER_UI_FILES,
  eventSourceParserModule,
  swaggerUiDir,
} from '../pages/page-files.ts';
import { PAGE_SECURITY_HEADERS } from '../pages/security-headers.ts';

/** Static folders serve files only: no index page, no listing, no dotfiles. */
const ASSETS = { decorateReply: false, index: false, list: false, dotfiles: 'ignore', redirect: false } as const;

/** The pages' HTML is served from memory; a folder holds only scripts, styles and images. */
const isAsset = (pathName: string) => /\.(?:js|css|svg)$/.test(pathName);

/**
 * The browser pages: the playground at GET / and the API reference at GET /docs, with their
 * assets. They need no key (the playground asks for one and keeps it in the tab's memory), are
 * neither authenticated nor rate-limited, and an unknown asset is the API's usual 404 envelope.
 * Files are read from the package: the pages' own, and the browser builds of npm packages.
 */
export function registerPageRoutes(app: FastifyInstance): void {
  app.register(playgroundPages);
  app.register(referencePages);
}

async function playgroundPages(scope: FastifyInstance): Promise<void> {
  sendSecurityHeaders(scope);
  const page = readFileSync(join(PLAYGROUND_DIR, 'index.html'), 'utf8');
  const parser = eventSourceParserModule();
  scope.get('/', async (_request, reply) => sendPage(reply, page));
  scope.get('/playground/vendor/eventsource-parser.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(parser),
  );
  await scope.register(fastifyStatic, { ...ASSETS, root: PLAYGROUND_DIR, prefix: '/playground/', allowedPath: isAsset });
}

async function referencePages(scope: FastifyInstance): Promise<void> {
  sendSecurityHeaders(scope);
  const page = readFileSync(join(DOCS_DIR, 'index.html'), 'utf8');
  scope.get('/docs', async (_request, reply) => sendPage(reply, page));
  await scope.register(fastifyStatic, { ...ASSETS, root: DOCS_DIR, prefix: '/docs/assets/', allowedPath: isAsset });
  await scope.register(fastifyStatic, {
    ...ASSETS,
    root: swaggerUiDir(),
    prefix: '/docs/assets/swagger-ui/',
    allowedPath: (pathName: string) => SWAGGER_UI_FILES.has(pathName.replace(/^\//, '')),
  });
}

function sendSecurityHeaders(scope: FastifyInstance): void {
  scope.addHook('onRequest', async (_request, reply) => {
    reply.headers(PAGE_SECURITY_HEADERS);
  });
}

function sendPage(reply: FastifyReply, html: string): FastifyReply {
  return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(html);
}

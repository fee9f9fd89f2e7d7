import cors from '@fastify/cors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Catalog } from './config/catalog.ts';
import type { Config } from './config/schema.ts';
import { RESPONSE_HEADERS } from './contract/openapi.ts';
import { createAjv, validationError } from './contract/validator.ts';
import type { Billing } from './billing/billing.ts';
import type { EngineRegistry } from './engines/registry.ts';
import { limitHook } from './http/rate-limit-hook.ts';
import type { Limits } from './limits/limits.ts';
import type { MediaInputs } from './media/inputs.ts';
import { authHook, dataPostureHeaders } from './http/auth.ts';
import { ByteBudget, registerBodyBudget } from './http/body-budget.ts';
import { maxBodyBytes } from './http/body-size.ts';
import type { HttpDeps } from './http/deps.ts';
import { answerClientError, mintRequestId, requireHost, watchServer } from './http/client-errors.ts';
import { frameworkErrorHandler, registerErrorHandling } from './http/errors.ts';
import { registerJsonBodyParser } from './http/json-body.ts';
import { registerRequestContext } from './http/request-context.ts';
import { RequestLog } from './http/request-log.ts';
import { registerRequestMetrics } from './http/request-metrics.ts';
import { registerHealthRoutes } from './http/routes/health.ts';
import { registerMcpRoute } from './http/routes/mcp.ts';
import { registerModelRoutes } from './http/routes/models.ts';
import { registerOpenApiRoute } from './http/routes/openapi.ts';
import { registerPageRoutes } from './http/routes/pages.ts';
import { registerOrganizationRoutes } from './http/routes/organization.ts';
import { registerResponsesRoutes } from './http/routes/responses.ts';
import { registerSvgRoutes } from './http/routes/svgs.ts';
import type { Store } from './store/index.ts';
import type { Metrics } from './observability/metrics.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  catalog: Catalog;
  engines: EngineRegistry;
  billing: Billing;
  limits: Limits;
  media: MediaInputs;
  logger: FastifyBaseLogger;
  /** Present when metrics are served (config metrics.port). */
  metrics?: Metrics;
  /** This package's version (the MCP server names it). */
  version: string;
}

/**
 * Node enforces request deadlines by sweeping connections every `connectionsCheckingInterval`
 * (30 s by default), and silently swaps the headers and request timeouts when the headers one is
 * larger (the 60 s default beside a shorter request timeout made that request timeout 60 s).
 * Handing all three to the server constructor keeps the configured deadline within a second.
 */
export function serverDeadlines(requestTimeoutMs: number) {
  const headersTimeout = requestTimeoutMs > 0 ? Math.min(60_000, requestTimeoutMs) : 60_000;
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, headersTimeout)),
  };
}

/** The HTTP application with every plugin and route registered explicitly. It never listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, store, catalog, engines, billing, limits, media } = deps;
  const server = config.server;
  const app = Fastify({
    loggerInstance: deps.logger,
    genReqId: mintRequestId,
    requestIdHeader: false,
    logController: new RequestLog({ requestIdLogLabel: 'request_id' }, config.billing.millicents_per_credit),
    trustProxy: server.trust_proxy,
    requestTimeout: server.request_timeout_ms,
    keepAliveTimeout: server.keep_alive_timeout_ms,
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: answerClientError,
    // Node's own empty 400 for a missing Host would bypass the envelope; requireHost answers instead.
    http: { ...serverDeadlines(server.request_timeout_ms), requireHostHeader: false },
    routerOptions: { maxParamLength: 1024 },
  });

  const ajv = createAjv();
  app.setValidatorCompiler(({ schema }) => {
    const validate = ajv.compile(schema as object);
    const messages = (schema as { 'x-inkwell-field-messages'?: Record<string, string> })['x-inkwell-field-messages'];
    return (data: unknown) => (validate(data) ? true : { error: validationError(validate.errors ?? [], { unknownFields: messages }) });
  });

  watchServer(app.server);
  registerRequestContext(app);
  if (deps.metrics) registerRequestMetrics(app, deps.metrics);
  app.addHook('onRequest', requireHost);
  registerErrorHandling(app);
  registerJsonBodyParser(app);
  registerBodyBudget(app, new ByteBudget(server.body_bytes_in_flight));
  if (server.cors_origins.length > 0) {
    await app.register(cors, {
      origin: server.cors_origins.includes('*') ? true : [...server.cors_origins],
      methods: ['GET', 'POST'],
      // MCP clients in a browser send the protocol version (and would send a session id) on /mcp.
      allowedHeaders: ['Authorization', 'Content-Type', 'x-trace-id', 'Inkwell-Mock', 'Mcp-Protocol-Version', 'Mcp-Session-Id'],
      exposedHeaders: Object.keys(RESPONSE_HEADERS),
      maxAge: 600,
    });
  }
  app.decorateRequest('principal', null);
  app.decorateRequest('limitOutcomes', null);
  app.decorateRequest('operationNotes', null);

  const posture = dataPostureHeaders(config);
  const maxReferences = Math.max(0, ...catalog.all().filter((m) => m.supports('svg_generate')).map((m) => m.entry.max_references));
  const httpDeps: HttpDeps = {
    store,
    catalog,
    operations: { catalog, engines, billing, limits, media, millicentsPerCredit: config.billing.millicents_per_credit },
    auth: (requirement) => authHook(store, requirement, posture),
    limit: (rule) => limitHook(limits, rule),
    maxBodyBytes: maxBodyBytes(maxReferences),
    millicentsPerCredit: config.billing.millicents_per_credit,
    streams: deps.metrics,
  };
  registerModelRoutes(app, httpDeps);
  registerSvgRoutes(app, httpDeps);
  registerResponsesRoutes(app, httpDeps);
  registerOrganizationRoutes(app, httpDeps);
  registerMcpRoute(app, httpDeps, { preview: (svg, maxSide, signal) => engines.preview(svg, maxSide, signal), version: deps.version });
  registerOpenApiRoute(app);
  registerPageRoutes(app);
  registerHealthRoutes(app, { store, limits, redisConfigured: config.redis_url !== undefined, upstreams: () => deps.engines.upstreams() });
  return app;
}

import cors from '@fastify/cors';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Catalog } from './config/catalog.ts';
import type { Config } from './config/schema.ts';
import { newId } from './contract/ids.ts';
import { createAjv, validationError } from './contract/validator.ts';
import type { Billing } from './billing/billing.ts';
import type { EngineRegistry } from './engines/registry.ts';
import { limitHook } from './http/limits.ts';
import type { Limits } from './limits/limits.ts';
import type { MediaInputs } from './media/inputs.ts';
import { authHook, dataPostureHeaders } from './http/auth.ts';
import { ByteBudget, registerBodyBudget } from './http/body-budget.ts';
import { bodyLimits } from './http/body-limits.ts';
import type { HttpDeps } from './http/deps.ts';
import { frameworkErrorHandler, registerErrorHandling } from './http/errors.ts';
import { registerRequestContext } from './http/request-context.ts';
import { registerModelRoutes } from './http/routes/models.ts';
import { registerOpenApiRoute } from './http/routes/openapi.ts';
import { registerOrganizationRoutes } from './http/routes/organization.ts';
import { registerResponsesRoutes } from './http/routes/responses.ts';
import { registerSvgRoutes } from './http/routes/svgs.ts';
import type { Store } from './store/index.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  catalog: Catalog;
  engines: EngineRegistry;
  billing: Billing;
  limits: Limits;
  media: MediaInputs;
  logger: FastifyBaseLogger;
}

/** Headers a browser client may read when CORS is enabled. */
const EXPOSED_HEADERS = [
  'X-Request-ID',
  'X-Trace-ID',
  'X-Inkwell-Environment',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Scope',
  'X-RateLimit-Subject',
  'X-RateLimit-Dimension',
  'Retry-After',
];

/** The HTTP application with every plugin and route registered explicitly. It never listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, store, catalog, engines, billing, limits, media } = deps;
  const server = config.server;
  const app = Fastify({
    loggerInstance: deps.logger,
    genReqId: () => newId('request'),
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    trustProxy: server.trust_proxy,
    requestTimeout: server.request_timeout_ms,
    keepAliveTimeout: server.keep_alive_timeout_ms,
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler,
    routerOptions: { maxParamLength: 1024 },
  });

  const ajv = createAjv();
  app.setValidatorCompiler(({ schema }) => {
    const validate = ajv.compile(schema as object);
    const messages = (schema as { 'x-inkwell-field-messages'?: Record<string, string> })['x-inkwell-field-messages'];
    return (data: unknown) => (validate(data) ? true : { error: validationError(validate.errors ?? [], { unknownFields: messages }) });
  });

  registerRequestContext(app);
  registerErrorHandling(app);
  registerBodyBudget(app, new ByteBudget(server.body_bytes_in_flight));
  if (server.cors_origins.length > 0) {
    await app.register(cors, {
      origin: server.cors_origins.includes('*') ? true : [...server.cors_origins],
      methods: ['GET', 'POST'],
      allowedHeaders: ['Authorization', 'Content-Type', 'x-trace-id', 'Inkwell-Mock'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
  app.decorateRequest('principal', null);
  app.decorateRequest('limitOutcomes', null);

  const posture = dataPostureHeaders(config);
  const maxReferences = Math.max(0, ...catalog.all().filter((m) => m.supports('svg_generate')).map((m) => m.entry.max_references));
  const httpDeps: HttpDeps = {
    store,
    catalog,
    operations: { catalog, engines, billing, limits, media, millicentsPerCredit: config.billing.millicents_per_credit },
    auth: (requirement) => authHook(store, requirement, posture),
    limit: (rule) => limitHook(limits, rule),
    bodyLimits: bodyLimits(maxReferences),
    millicentsPerCredit: config.billing.millicents_per_credit,
  };
  registerModelRoutes(app, httpDeps);
  registerSvgRoutes(app, httpDeps);
  registerResponsesRoutes(app, httpDeps);
  registerOrganizationRoutes(app, httpDeps);
  registerOpenApiRoute(app);
  return app;
}

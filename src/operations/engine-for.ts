import type { CatalogModel } from '../config/catalog.ts';
import type { Engine } from '../engines/engine.ts';
import type { OperationContext, OperationDeps } from './context.ts';

/** Test keys always run on the sandbox; live keys on the model's own engine. */
export function engineFor(deps: OperationDeps, ctx: OperationContext, model: CatalogModel): Engine {
  return ctx.principal.environment === 'test' ? deps.engines.sandbox : deps.engines.engineFor(model);
}

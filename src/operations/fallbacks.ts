import { allowsModel } from '../accounts/principal.ts';
import type { CatalogModel } from '../config/catalog.ts';
import { ApiError } from '../contract/errors.ts';
import type { Operation } from '../contract/models.ts';
import type { Admitted } from './admission.ts';
import type { OperationContext, OperationDeps } from './context.ts';

/** What a request needs of an entry besides the operation: how many images it sends. */
export interface FallbackNeeds {
  operation: Operation;
  images: number;
  /** Generation references (an entry's max_references bounds them). */
  references?: number;
}

/**
 * The entries a request may be served by, in order: its own model, then the model's `fallbacks`
 * that this key may use for this operation — visible to the organization, allowed to the key,
 * supporting the operation, and taking the request's images. Test keys run on the sandbox, which
 * is never out: they get no fallbacks.
 */
export function servingOrder(deps: OperationDeps, ctx: OperationContext, model: CatalogModel, needs: FallbackNeeds): CatalogModel[] {
  const names = model.entry.fallbacks;
  if (!names || names.length === 0 || ctx.principal.environment !== 'live') return [model];
  const order = [model];
  for (const name of names) {
    const fallback = deps.catalog.find(name, ctx.principal.organizationId);
    if (!fallback || !allowsModel(ctx.principal, fallback.entry.id) || !fallback.supports(needs.operation)) continue;
    const entry = fallback.entry;
    if (needs.images > 0 && entry.input_modalities && !entry.input_modalities.includes('image')) continue;
    if ((needs.references ?? 0) > entry.max_references) continue;
    order.push(fallback);
  }
  return order;
}

/** One admitted run on one entry: its events (billed as it goes) and its admission. */
export interface AdmittedRun<S> {
  events: S;
  admitted: Admitted;
}

/**
 * Serves a request from the first entry of `order` that can: a run that fails before its first
 * event with 503 `model_unavailable` (every server of the entry out, or the server said so) hands
 * the request to the next entry, after giving back what its admission took (its reservation is
 * released unspent, its operation limits refunded), so the request is reserved and billed once,
 * at the price of the entry that serves it. A fallback the request cannot be admitted to (its
 * price, its limits) is passed over. Any other failure or a client that left is the answer; when
 * no entry could serve, the requested entry's 503 is. `ctx.served` names the entry that served.
 * The serving run's events are returned with their first, read to choose, put back by `putBack`.
 */
export async function servedInOrder<E, S extends AsyncIterator<E>>(
  ctx: OperationContext,
  order: CatalogModel[],
  start: (model: CatalogModel) => Promise<AdmittedRun<S>>,
  putBack: (first: E, events: S) => S,
): Promise<S> {
  let unavailable: ApiError | undefined;
  for (const [index, model] of order.entries()) {
    let run: AdmittedRun<S>;
    try {
      run = await start(model);
    } catch (error) {
      if (index === 0 || !(error instanceof ApiError)) throw error;
      continue;
    }
    let first: IteratorResult<E>;
    try {
      first = await run.events.next();
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'model_unavailable' || ctx.signal.aborted) throw error;
      unavailable ??= error;
      if (index + 1 < order.length) {
        await run.admitted.giveBack();
        ctx.notes?.fellBack(model.entry.id);
      }
      continue;
    }
    ctx.served?.(model.entry.id);
    return first.done ? run.events : putBack(first.value, run.events);
  }
  throw unavailable!;
}

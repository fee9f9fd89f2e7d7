import { allowsModel, type Principal } from '../accounts/principal.ts';
import type { CatalogModel, Catalog } from '../config/catalog.ts';
import { ApiError } from '../contract/errors.ts';
import type { Operation } from '../contract/models.ts';

/** Longest part of a caller's model id echoed in a message; the rest is elided. */
const ECHOED_MODEL_ID_LENGTH = 100;

/** The 404 for a model id the organization cannot see (the body's `model`, or a path segment). */
export function modelNotFound(modelId: string, param?: string): ApiError {
  const shown = modelId.length > ECHOED_MODEL_ID_LENGTH ? `${modelId.slice(0, ECHOED_MODEL_ID_LENGTH)}...` : modelId;
  return new ApiError('model_not_found', {
    param,
    message: `The model '${shown}' does not exist or is not available to this organization.`,
  });
}

/**
 * The model named by a request, checked in the order a caller can act on: unknown to the
 * organization (404), not allowed for this key (403), unable to do the operation (400).
 */
export function resolveModel(catalog: Catalog, principal: Principal, modelId: string, operation: Operation): CatalogModel {
  const model = catalog.find(modelId, principal.organizationId);
  if (!model) throw modelNotFound(modelId, 'model');
  if (!allowsModel(principal, model.entry.id)) {
    throw new ApiError('unauthorized', { param: 'model', message: `This API key is not allowed to use the model '${model.entry.id}'.` });
  }
  if (!model.supports(operation)) {
    throw new ApiError('invalid_request', {
      param: 'model',
      message: `The model '${model.entry.id}' does not support ${operation}; see supported_operations in GET /v1/models.`,
    });
  }
  return model;
}

/** Image inputs go only to a model that lists image input (a catalog entry without the list takes them). */
export function assertTakesImages(model: CatalogModel, count: number, param: string): void {
  if (count === 0 || !model.entry.input_modalities || model.entry.input_modalities.includes('image')) return;
  throw new ApiError('invalid_request', {
    param,
    message: `The model '${model.entry.id}' does not take image input; send no ${param}, or use a model whose input_modalities list image.`,
  });
}

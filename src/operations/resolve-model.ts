import { allowsModel, type Principal } from '../accounts/principal.ts';
import type { CatalogModel, Catalog } from '../config/catalog.ts';
import { ApiError } from '../contract/errors.ts';
import type { Operation } from '../contract/models.ts';

/**
 * The model named by a request, checked in the order a caller can act on: unknown to the
 * organization (404), not allowed for this key (403), unable to do the operation (400).
 */
export function resolveModel(catalog: Catalog, principal: Principal, modelId: string, operation: Operation): CatalogModel {
  const model = catalog.find(modelId, principal.organizationId);
  if (!model) {
    throw new ApiError('model_not_found', {
      param: 'model',
      message: `The model '${modelId.length > 100 ? `${modelId.slice(0, 100)}...` : modelId}' does not exist or is not available to this organization.`,
    });
  }
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

import type { ModelList, SvgOperation } from '../../contract/models.ts';
import { ClientExit, EXIT } from './exit-codes.ts';
import type { ApiClient } from './http.ts';

/** Without --model: the first model of the catalog that lists the operation. */
export async function defaultModel(api: ApiClient, operation: SvgOperation): Promise<string> {
  const catalog = await api.getJson<ModelList>('/v1/models');
  const model = catalog.data.find((m) => m.supported_operations?.includes(operation));
  if (!model) throw new ClientExit(`no model in the catalog supports ${operation}; pass --model`, EXIT.usage);
  return model.id;
}

import { assertInGoodStanding } from '../accounts/standing.ts';
import { ApiError } from '../contract/errors.ts';
import type { ResponseResource, ResponsesRequest } from '../contract/responses.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { resolveModel } from './resolve-model.ts';

const OUTPUT_OF: Record<string, string> = {
  function_call_output: 'function_call',
  custom_tool_call_output: 'custom_tool_call',
};

/**
 * Checks what the schema cannot: each tool output answers a call made earlier in the replayed
 * history, and a forced tool choice names a declared tool.
 */
export function checkResponsesRequest(body: ResponsesRequest): void {
  if (Array.isArray(body.input)) {
    const calls = new Map<string, string>();
    body.input.forEach((item, index) => {
      const type = (item as { type: string }).type;
      const callId = (item as { call_id?: string }).call_id;
      if (type === 'function_call' || type === 'custom_tool_call') calls.set(callId!, type);
      const expected = OUTPUT_OF[type];
      if (expected && calls.get(callId!) !== expected) {
        throw new ApiError('invalid_request', {
          param: `input[${index}].call_id`,
          message: `No ${expected} item with call_id '${callId!.slice(0, 64)}' precedes this ${type}.`,
        });
      }
    });
  }
  const choice = body.tool_choice;
  if (choice && typeof choice === 'object' && 'name' in choice) {
    const declared = (body.tools ?? []).some((tool) => tool.type === choice.type && tool.name === choice.name);
    if (!declared) {
      throw new ApiError('invalid_request', {
        param: 'tool_choice.name',
        message: `tool_choice names ${choice.type} tool '${choice.name.slice(0, 64)}', which is not declared in tools.`,
      });
    }
  }
}

/** POST /v1/responses. Requests are fully validated; model execution is not part of this release. */
export async function createResponse(deps: OperationDeps, ctx: OperationContext, body: ResponsesRequest): Promise<ResponseResource> {
  resolveModel(deps.catalog, ctx.principal, body.model, 'open_responses');
  checkResponsesRequest(body);
  assertInGoodStanding(ctx.principal);
  throw new ApiError('model_unavailable', {
    message: 'Responses execution is not available in this release; the request was valid and nothing was billed.',
  });
}

import type { TSchema } from '@sinclair/typebox';
import type { AuthRequirement } from './auth.ts';
import { OrganizationBalance } from './balance.ts';
import { Model, ModelList, ModelParams } from './models.ts';
import { ResponseResource, ResponsesRequest, ResponsesStreamEvent } from './responses.ts';
import {
  AnimationRequest,
  EditRequest,
  GenerationRequest,
  SvgResponse,
  SvgStreamEvent,
  VectorizationRequest,
} from './svgs.ts';

/** One endpoint of the API: its route, auth rule, schemas and the error statuses it documents. */
export interface Endpoint {
  operationId: string;
  method: 'GET' | 'POST';
  /** OpenAPI path template (`{param}`). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  auth: AuthRequirement;
  params?: TSchema;
  body?: TSchema;
  response: TSchema;
  /** Payload schema of each SSE `data:` line when the body asks for `stream: true`. */
  events?: TSchema;
  errorStatuses: number[];
}

const INFERENCE_ERRORS = [400, 401, 402, 403, 404, 408, 413, 429, 500, 502, 503, 504];
const READ_ERRORS = [400, 401, 403, 404, 429, 500];

/**
 * The API surface in one table. Routes take their schemas and auth rule from here and the
 * OpenAPI document is generated from it, so the two cannot disagree.
 */
export const ENDPOINTS = {
  listModels: {
    operationId: 'listModels',
    method: 'GET',
    path: '/v1/models',
    tag: 'Models',
    summary: 'List the models available to the organization',
    auth: { kind: 'project', capability: 'catalog_read', sandbox: 'serve' },
    response: ModelList,
    errorStatuses: READ_ERRORS,
  },
  getModel: {
    operationId: 'getModel',
    method: 'GET',
    path: '/v1/models/{model}',
    tag: 'Models',
    summary: 'Read one model',
    auth: { kind: 'project', capability: 'catalog_read', sandbox: 'serve' },
    params: ModelParams,
    response: Model,
    errorStatuses: READ_ERRORS,
  },
  createGeneration: {
    operationId: 'createGeneration',
    method: 'POST',
    path: '/v1/svgs/generations',
    tag: 'SVG',
    summary: 'Generate SVGs from a prompt',
    description: 'Debits n x svg_generate credits on fixed-credit models; only delivered outputs are billed.',
    auth: { kind: 'project', capability: 'svg_generate', sandbox: 'serve' },
    body: GenerationRequest,
    response: SvgResponse,
    events: SvgStreamEvent,
    errorStatuses: INFERENCE_ERRORS,
  },
  createVectorization: {
    operationId: 'createVectorization',
    method: 'POST',
    path: '/v1/svgs/vectorizations',
    tag: 'SVG',
    summary: 'Convert a raster or SVG image into an SVG',
    description: 'Debits svg_vectorize credits once per successful request.',
    auth: { kind: 'project', capability: 'svg_vectorize', sandbox: 'serve' },
    body: VectorizationRequest,
    response: SvgResponse,
    events: SvgStreamEvent,
    errorStatuses: INFERENCE_ERRORS,
  },
  createEdit: {
    operationId: 'createEdit',
    method: 'POST',
    path: '/v1/svgs/edits',
    tag: 'SVG',
    summary: 'Edit an SVG according to an instruction',
    auth: { kind: 'project', capability: 'svg_edit', sandbox: 'serve' },
    body: EditRequest,
    response: SvgResponse,
    events: SvgStreamEvent,
    errorStatuses: INFERENCE_ERRORS,
  },
  createAnimation: {
    operationId: 'createAnimation',
    method: 'POST',
    path: '/v1/svgs/animations',
    tag: 'SVG',
    summary: 'Animate an SVG',
    auth: { kind: 'project', capability: 'svg_animate', sandbox: 'serve' },
    body: AnimationRequest,
    response: SvgResponse,
    events: SvgStreamEvent,
    errorStatuses: INFERENCE_ERRORS,
  },
  createResponse: {
    operationId: 'createResponse',
    method: 'POST',
    path: '/v1/responses',
    tag: 'Responses',
    summary: 'Create a model response (stateless Open Responses)',
    description:
      'Caller-declared function and custom tools only; the service returns tool calls and never runs them. ' +
      'Test keys receive 404 here.',
    auth: { kind: 'project', capability: 'catalog_read', sandbox: 'not_found' },
    body: ResponsesRequest,
    response: ResponseResource,
    events: ResponsesStreamEvent,
    errorStatuses: INFERENCE_ERRORS,
  },
  getOrganizationBalance: {
    operationId: 'getOrganizationBalance',
    method: 'GET',
    path: '/v1/organization/balance',
    tag: 'Organization',
    summary: "Read the organization's prepaid balance",
    description: 'Requires an organization admin key with the billing_read permission (or *).',
    auth: { kind: 'admin', permission: 'billing_read' },
    response: OrganizationBalance,
    errorStatuses: [400, 401, 403, 429, 500],
  },
} as const satisfies Record<string, Endpoint>;

/** Fastify's path syntax for an OpenAPI template. */
export function routePath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

import type { CatalogModel } from '../config/catalog.ts';
import type { CatalogEntry, Config } from '../config/schema.ts';
import type { Engine } from './engine.ts';
import { createSandboxEngine } from './sandbox/index.ts';
import { createTraceEngine, type TraceEngineServices } from './trace/index.ts';
import { unavailableEngine } from './unavailable.ts';

/**
 * Every engine the catalog can name, and the built-in catalog entries they bring. A new engine
 * is a folder, a line in ENGINE_FACTORIES and (optionally) built-in entries.
 */
/** Shared services an engine may use: the media loader and the tracer threads. */
export type EngineServices = TraceEngineServices;

type EngineFactory = (entry: CatalogEntry, config: Config, services: EngineServices) => Engine;

const ENGINE_FACTORIES: Record<string, EngineFactory> = {
  // The sandbox as a live engine: billed and limited like a real model, for load tests and billing checks.
  sandbox: (_entry, config) => createSandboxEngine({ slowStreamDelayMs: config.sandbox.slow_stream_delay_ms }),
  'openai-compatible': () => unavailableEngine('the OpenAI-compatible engine is not part of this release yet.'),
  trace: (_entry, _config, services) => createTraceEngine(services),
};

export const ENGINE_NAMES = Object.keys(ENGINE_FACTORIES);

/** The default catalog: models that work (or will answer 503 until their server answers) on a fresh install. */
export function builtinCatalogEntries(config: Config): CatalogEntry[] {
  const upstream = { base_url: config.upstream.base_url, model: config.upstream.model };
  const chat = {
    engine: 'openai-compatible',
    owned_by: 'inkwell',
    created: 1767225600,
    input_modalities: ['text', 'image', 'svg'],
    output_modalities: ['svg', 'text'],
    supported_sampling_parameters: ['temperature', 'top_p', 'presence_penalty'],
    context_length: 32_768,
    max_output_length: 16_384,
    options: upstream,
  } as const;
  return [
    {
      id: 'inkwell-trace',
      engine: 'trace',
      name: 'Inkwell Trace',
      description: 'Built-in image tracer: vectorizes raster and SVG images on the server, no model server needed.',
      owned_by: 'inkwell',
      created: 1767225600,
      operations: ['svg_vectorize'],
      billing: { kind: 'fixed_credit', credits: { svg_generate: 0, svg_vectorize: 1 } },
      input_modalities: ['image', 'svg'],
      output_modalities: ['svg'],
      max_references: 0,
      options: {},
    },
    {
      ...chat,
      id: 'local-svg',
      name: 'Local SVG',
      description: `SVG generation, edits, animation and Responses on ${config.upstream.model} via an OpenAI-compatible server; fixed credits per output.`,
      operations: ['svg_generate', 'svg_edit', 'svg_animate', 'open_responses'],
      billing: { kind: 'fixed_credit', credits: { svg_generate: 4, svg_vectorize: 0, svg_edit: 6, svg_animate: 8 } },
      max_references: 4,
      input_modalities: [...chat.input_modalities],
      output_modalities: [...chat.output_modalities],
      supported_sampling_parameters: [...chat.supported_sampling_parameters],
    },
    {
      ...chat,
      id: 'local-svg-hd',
      name: 'Local SVG HD',
      description: 'Higher-fidelity variant of local-svg: up to 16 generation references.',
      operations: ['svg_generate', 'svg_edit'],
      billing: { kind: 'fixed_credit', credits: { svg_generate: 10, svg_vectorize: 0, svg_edit: 12 } },
      max_references: 16,
      input_modalities: [...chat.input_modalities],
      output_modalities: [...chat.output_modalities],
      supported_sampling_parameters: [...chat.supported_sampling_parameters],
    },
    {
      ...chat,
      id: 'local-svg-metered',
      name: 'Local SVG (metered)',
      description: 'The same upstream billed by measured tokens instead of per output.',
      operations: ['svg_generate', 'svg_edit', 'svg_animate', 'open_responses'],
      billing: { kind: 'token_usage', rates: { input: 15_000, cached_input: 1_500, cache_write: 18_750, output: 60_000 } },
      max_references: 4,
      input_modalities: [...chat.input_modalities],
      output_modalities: [...chat.output_modalities],
      supported_sampling_parameters: [...chat.supported_sampling_parameters],
    },
  ];
}

export interface EngineRegistry {
  sandbox: Engine;
  /** The live engine of a catalog model (one instance per model). */
  engineFor(model: CatalogModel): Engine;
}

export class UnknownEngineError extends Error {
  override name = 'UnknownEngineError';
}

/** Builds every live engine up front, so a misconfigured catalog fails at start, not on a request. */
export function createEngineRegistry(config: Config, models: CatalogModel[], services: EngineServices): EngineRegistry {
  const engines = new Map<string, Engine>();
  for (const { entry } of models) {
    const factory = ENGINE_FACTORIES[entry.engine];
    if (!factory) {
      throw new UnknownEngineError(`Model ${entry.id} names engine "${entry.engine}"; known engines: ${ENGINE_NAMES.join(', ')}`);
    }
    engines.set(entry.id, factory(entry, config, services));
  }
  return {
    sandbox: createSandboxEngine({ slowStreamDelayMs: config.sandbox.slow_stream_delay_ms }),
    engineFor: (model) => engines.get(model.entry.id)!,
  };
}

import type { CatalogModel } from '../config/catalog.ts';
import { ConfigError } from '../config/load.ts';
import { BUILTIN_UPSTREAM_KEY, type CatalogEntry, type Config } from '../config/schema.ts';
import type { UpstreamStatus } from '../contract/upstreams.ts';
import type { Engine } from './engine.ts';
import type { Logger } from 'pino';
import { createImageTraceEngine } from './image-trace/index.ts';
import { parseImageTraceOptions } from './image-trace/options.ts';
import { createMotionEngine } from './motion/index.ts';
import { createOpenAiCompatibleEngine } from './openai-compatible/index.ts';
import type { UpstreamObserver } from './upstream/servers.ts';
import { parseOptions } from './openai-compatible/options.ts';
import { upstreamTargets, type UpstreamTarget } from './upstream/options.ts';
import type { AnimationReport } from '../svg/animation/measure.ts';
import type { RenderPool } from './render/pool.ts';
import { createSandboxEngine } from './sandbox/index.ts';
import { createTraceEngine, type TraceEngineServices } from './trace/index.ts';

/** Shared services an engine may use: the media loader, the tracer's and the renderer's worker processes. */
export type EngineServices = TraceEngineServices & {
  renderPool: RenderPool;
  logger?: Logger;
  /** Told of each call to a model server when it ends (metrics). */
  upstreamCalls?: UpstreamObserver;
};

type EngineFactory = (entry: CatalogEntry, config: Config, services: EngineServices) => Engine;

const sandboxEngine = (config: Config) => createSandboxEngine({ slowStreamDelayMs: config.sandbox.slow_stream_delay_ms });

/**
 * Every engine the catalog can name. A new engine is a folder, a line here and (optionally)
 * built-in entries in builtinCatalogEntries.
 */
const ENGINE_FACTORIES: Record<string, EngineFactory> = {
  // The sandbox as a live engine: billed and limited like a real model, for load tests and billing checks.
  sandbox: (_entry, config) => sandboxEngine(config),
  'openai-compatible': (entry, config, { media, renderPool, logger, upstreamCalls }) =>
    createOpenAiCompatibleEngine(entry, {
      media,
      renderer: renderPool,
      referenceImage: async (ref, maxSide, signal) => renderPool.referenceImage(await media.loadImage(ref, signal), ref.param, maxSide, signal),
      secret: (name) => config.secrets[name],
      logger,
      upstreamCalls,
    }),
  trace: (_entry, _config, services) => createTraceEngine(services),
  'image-trace': (entry, config, { media, tracePool, renderPool, logger, upstreamCalls }) =>
    createImageTraceEngine(entry, {
      media,
      tracePool,
      referenceImage: async (ref, maxSide, signal) => renderPool.referenceImage(await media.loadImage(ref, signal), ref.param, maxSide, signal),
      secret: (name) => config.secrets[name],
      logger,
      upstreamCalls,
    }),
  motion: (_entry, _config, { media }) => createMotionEngine({ media }),
};

export const ENGINE_NAMES = Object.keys(ENGINE_FACTORIES);

/** The model servers a catalog entry names (its engine calls servers), as the config reads: for `inkwell models upstreams`. */
export function configuredUpstreams(entry: CatalogEntry): UpstreamTarget[] {
  if (entry.engine === 'openai-compatible') return upstreamTargets(entry, parseOptions(entry));
  if (entry.engine === 'image-trace') return upstreamTargets(entry, parseImageTraceOptions(entry));
  return [];
}

/**
 * The default catalog: models that work (or will answer 503 until their server answers) on a fresh
 * install. Long because it is a table: one literal per model, read as the catalog reads.
 */
export function builtinCatalogEntries(config: Config): CatalogEntry[] {
  const upstream = {
    base_url: config.upstream.base_url,
    model: config.upstream.model,
    vision: config.upstream.vision,
    ...(config.upstream.api_key === undefined ? {} : { api_key_env: BUILTIN_UPSTREAM_KEY }),
  };
  const chat = {
    engine: 'openai-compatible',
    owned_by: 'inkwell',
    created: 1767225600,
    input_modalities: (config.upstream.vision ? ['text', 'image', 'svg'] : ['text', 'svg']) as ('text' | 'image' | 'svg')[],
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
      id: 'inkwell-motion',
      engine: 'motion',
      name: 'Inkwell Motion',
      description: 'Built-in animator: animates a supplied SVG on the server with CSS keyframes chosen from the prompt or the drawing, no model server needed.',
      owned_by: 'inkwell',
      created: 1767225600,
      operations: ['svg_animate'],
      billing: { kind: 'fixed_credit', credits: { svg_generate: 0, svg_vectorize: 0, svg_animate: 2 } },
      input_modalities: ['text', 'svg'],
      output_modalities: ['svg'],
      max_references: 0,
      options: {},
    },
    {
      ...chat,
      id: 'local-svg',
      name: 'Local SVG',
      // No open_responses: Responses are token-priced (spec rule 6); local-svg-metered serves them.
      description: `SVG generation, edits and animation on ${config.upstream.model} via an OpenAI-compatible server; fixed credits per output.`,
      operations: ['svg_generate', 'svg_edit', 'svg_animate'],
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
      description: 'The same upstream billed by measured tokens instead of per output; also serves /v1/responses.',
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
  /** Measures a delivered animation in the render workers (timing; with `render`, checks and svg_score). */
  measureAnimation(svg: string, render: boolean, signal: AbortSignal): Promise<AnimationReport>;
  /** A PNG of an SVG, at most `maxSide` pixels a side, rendered in the render workers. */
  preview(svg: string, maxSide: number, signal: AbortSignal): Promise<Uint8Array>;
  /** Every model server the live engines route to, and its state now. */
  upstreams(): UpstreamStatus[];
  /** Stops the engines' background work (health checks). */
  close(): void;
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
    const engine = factory(entry, config, services);
    if (entry.operations.includes('open_responses') && !engine.respond) {
      throw new ConfigError(`Model ${entry.id} lists open_responses, but its engine "${entry.engine}" does not run Responses; remove it from operations or use the openai-compatible engine.`);
    }
    if (entry.billing.kind === 'token_usage' && !engine.tokenBounds) {
      // Its reservation would hold nothing and its outputs report no usage: every request free.
      throw new ConfigError(`Model ${entry.id} is billed token_usage, but its engine "${entry.engine}" measures no tokens; give it billing: { kind: fixed_credit, … }.`);
    }
    engines.set(entry.id, engine);
  }
  return {
    sandbox: sandboxEngine(config),
    engineFor: (model) => engines.get(model.entry.id)!,
    measureAnimation: (svg, render, signal) => services.renderPool.measureAnimation(svg, render, signal),
    preview: (svg, maxSide, signal) => services.renderPool.png(svg, maxSide, signal),
    upstreams: () => [...engines.values()].flatMap((engine) => engine.upstreams?.() ?? []),
    close: () => {
      for (const engine of engines.values()) engine.close?.();
    },
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../contract/errors.ts';
import type { Engine, EngineEvent, SvgJob, TokenUsage } from '../engine.ts';
import { artworkMarkup, decorateSource, drawArtwork, seededInt, type Artwork } from './artwork.ts';
import { directiveTokens, mockedError, parseDirectives, type Directives } from './directives.ts';

/**
 * The engine behind every test key: no model, no network, no cost. It validates nothing the
 * operation layer has not already validated and draws deterministic pictures, streaming them as
 * the live engines do (generating, a snapshot draft, delta drafts, content).
 */
export interface SandboxOptions {
  slowStreamDelayMs: number;
}

function directivesOf(job: SvgJob): Directives {
  const sources: { tokens: string[]; param?: string }[] = [
    { tokens: (job.mockHeader ?? '').split(',').map((token) => token.trim()).filter(Boolean) },
  ];
  if ('prompt' in job) sources.push({ tokens: directiveTokens(job.prompt), param: 'prompt' });
  if (job.operation === 'svg_generate') sources.push({ tokens: directiveTokens(job.instructions), param: 'instructions' });
  return parseDirectives(sources);
}

function artworkFor(job: SvgJob, index: number): { art: Artwork; loopPeriodMs?: number; openingAnimationMs?: number } {
  const seed = `${job.seed}:${index}`;
  if ((job.operation === 'svg_edit' || job.operation === 'svg_animate') && 'markup' in job.source) {
    if (job.operation === 'svg_edit') return { art: decorateSource(job.source.markup, job.viewBox) };
    const periodMs = seededInt(seed, 16, 40) * 100;
    return { art: decorateSource(job.source.markup, job.viewBox, { periodMs }), loopPeriodMs: periodMs, openingAnimationMs: 0 };
  }
  if (job.operation === 'svg_animate') {
    const periodMs = seededInt(seed, 16, 40) * 100;
    return { art: drawArtwork(seed, job.viewBox), loopPeriodMs: periodMs, openingAnimationMs: 0 };
  }
  return { art: drawArtwork(seed, job.viewBox) };
}

/** Plausible token counts (about four characters per token) for token-priced models. */
function mockUsage(job: SvgJob, svg: string): TokenUsage {
  const prompt = 'prompt' in job && job.prompt ? job.prompt.length : 0;
  const source = (job.operation === 'svg_edit' || job.operation === 'svg_animate') && 'markup' in job.source ? job.source.markup.length : 0;
  return {
    inputTokens: 24 + Math.ceil((prompt + source) / 4),
    outputTokens: Math.ceil(svg.length / 4),
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
  };
}

export function createSandboxEngine(options: SandboxOptions): Engine {
  return {
    async *runSvg(job: SvgJob): AsyncGenerator<EngineEvent> {
      const directives = directivesOf(job);
      if (directives.error) throw mockedError(directives.error);
      const outputs = job.operation === 'svg_generate' ? job.outputs : 1;
      const failFrom = directives.partial ? (outputs > 1 ? Math.ceil(outputs / 2) : 0) : outputs;
      const delay = directives.slowStream ? options.slowStreamDelayMs : 0;
      const pace = async () => {
        if (delay > 0) await sleep(delay, undefined, { signal: job.signal });
      };

      const works = Array.from({ length: outputs }, (_, index) => artworkFor(job, index));
      if (job.operation === 'svg_animate') yield { type: 'score', svgScore: seededInt(job.seed, 70, 95) / 100 };
      for (let index = 0; index < outputs; index++) {
        yield { type: 'generating', index, text: 'Sandbox: drawing a placeholder (no model is called).' };
      }
      // Interleave the outputs step by step: a snapshot draft, one delta per part, then content.
      const steps = Math.max(...works.map((w) => w.art.parts.length));
      for (let step = 0; step <= steps; step++) {
        for (let index = 0; index < outputs; index++) {
          const { art, loopPeriodMs, openingAnimationMs } = works[index]!;
          await pace();
          if (index >= failFrom && step > 0) {
            if (step === 1) {
              yield {
                type: 'failed',
                index,
                error: new ApiError('model_error', { message: 'The sandbox failed this output, as [mock:partial] asked.' }),
              };
            }
            continue;
          }
          if (step === 0) {
            yield { type: 'draft', index, svg: art.open + art.parts[0]!, update: 'snapshot' };
          } else if (step < art.parts.length) {
            yield { type: 'draft', index, svg: art.parts[step]!, update: 'delta' };
          } else if (step === art.parts.length) {
            const svg = artworkMarkup(art);
            yield {
              type: 'content',
              index,
              svg,
              usage: mockUsage(job, svg),
              ...(loopPeriodMs === undefined ? {} : { loopPeriodMs, openingAnimationMs }),
            };
          }
        }
      }
    },
  };
}

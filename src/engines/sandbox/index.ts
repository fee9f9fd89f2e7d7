import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../contract/errors.ts';
import type { TokenBounds, TokenUsage } from '../../contract/usage.ts';
import { outputsOf, type Engine, type EngineEvent, type SvgJob } from '../engine.ts';
import { artworkMarkup, decorateSource, drawArtwork, seededInt, type Artwork } from './artwork.ts';
import { svgScore } from '../../svg/animation/score.ts';
import { directiveTokens, mockedError, parseDirectives, type Directives } from './directives.ts';

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

/**
 * The drawing of one output. Animations get the sandbox's own SMIL animation (a fade-in, then a
 * breathing loop whose period comes from the seed); their timing is measured from the delivered
 * document by the runner, like every engine's.
 */
function artworkFor(job: SvgJob, index: number): Artwork {
  const seed = `${job.seed}:${index}`;
  const animation = job.operation === 'svg_animate' ? { periodMs: seededInt(seed, 16, 40) * 100 } : undefined;
  if ((job.operation === 'svg_edit' || job.operation === 'svg_animate') && 'markup' in job.source) {
    return decorateSource(job.source.markup, job.viewBox, animation);
  }
  return drawArtwork(seed, job.viewBox, animation);
}

/** The score of an animation whose checks pass by construction: only its size counts. */
function knownGoodScore(svg: string): number {
  return svgScore({ renders: true, moves: true, inViewBox: 1, flashesPerSecond: 0, flashFree: true, bytes: Buffer.byteLength(svg, 'utf8') });
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

/**
 * The engine behind every test key: no model, no network, no cost. It validates nothing the
 * operation layer has not already validated and draws deterministic pictures, streaming them as
 * the live engines do (generating, a snapshot draft, delta drafts, content).
 */
export function createSandboxEngine(options: SandboxOptions): Engine {
  return {
    // Exactly the usage it will report (a live sandbox entry may be token-priced, for load tests).
    tokenBounds(job: SvgJob): TokenBounds {
      const bounds = { inputTokens: 0, outputTokens: 0 };
      for (let index = 0; index < outputsOf(job); index++) {
        const usage = mockUsage(job, artworkMarkup(artworkFor(job, index)));
        bounds.inputTokens += usage.inputTokens;
        bounds.outputTokens += usage.outputTokens;
      }
      return bounds;
    },
    async *runSvg(job: SvgJob): AsyncGenerator<EngineEvent> {
      const directives = directivesOf(job);
      if (directives.error) throw mockedError(directives.error);
      const outputs = outputsOf(job);
      const failFrom = directives.partial ? (outputs > 1 ? Math.ceil(outputs / 2) : 0) : outputs;
      const delay = directives.slowStream ? options.slowStreamDelayMs : 0;
      const pace = async () => {
        if (delay > 0) await sleep(delay, undefined, { signal: job.signal });
      };

      const works = Array.from({ length: outputs }, (_, index) => artworkFor(job, index));
      for (let index = 0; index < outputs; index++) {
        yield { type: 'generating', index, text: 'Sandbox: drawing a placeholder (no model is called).' };
      }
      // Interleave the outputs step by step, then content. A draft (the document so far, closed)
      // comes when the parts drawn have doubled — 1, 2, 4, 8 … — as a model engine's drafts grow
      // geometrically: each is a whole document the runner sanitizes, so their cost stays twice
      // the drawing's, however many parts it has.
      const steps = Math.max(...works.map((w) => w.parts.length));
      for (let step = 0; step <= steps; step++) {
        for (let index = 0; index < outputs; index++) {
          const art = works[index]!;
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
          if (step < art.parts.length) {
            if (isPowerOfTwo(step + 1)) yield { type: 'draft', index, markup: artworkMarkup(art, step + 1) };
          } else if (step === art.parts.length) {
            const svg = artworkMarkup(art);
            // Known good by construction (it renders, moves, stays in the box and never flashes):
            // scored without rendering, so test keys stay cheap.
            if (job.operation === 'svg_animate') yield { type: 'score', svgScore: knownGoodScore(svg) };
            yield { type: 'content', index, markup: svg, usage: mockUsage(job, svg) };
          }
        }
      }
    },
  };
}

const isPowerOfTwo = (count: number) => (count & (count - 1)) === 0;

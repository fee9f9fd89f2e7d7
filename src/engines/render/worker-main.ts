// A render worker process (see WorkerPool in src/workers/pool.ts): resvg and sharp run here, never
// on the server's event loop. The pool forks the compiled dist/engines/render/worker-main.js; a
// run from the sources forks worker-entry.mjs, which registers tsx and then imports this file.
import { referenceDataUrl } from '../../media/reference-image.ts';
import { measureAnimation } from '../../svg/animation/measure.ts';
import { modelSvgVerdict } from '../../svg/model-output.ts';
import { isVisible, renderPng } from '../../svg/render.ts';
import { serveJobs } from '../../workers/serve.ts';
import type { RenderJobs } from './jobs.ts';
import { countTokens } from './token-count.ts';

serveJobs<RenderJobs>({
  visible: ({ svg }) => isVisible(svg),
  png: ({ svg, maxSide }) => renderPng(svg, maxSide),
  reference: ({ source, maxSide }) => referenceDataUrl(source, maxSide),
  animation: ({ svg, render }) => measureAnimation(svg, { render }),
  tokens: ({ texts }) => countTokens(texts),
  modelSvg: ({ text, ...options }) => {
    const verdict = modelSvgVerdict(text, options);
    if ('svg' in verdict && verdict.visible === undefined) verdict.visible = isVisible(verdict.svg);
    return verdict;
  },
});

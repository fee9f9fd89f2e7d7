// A render worker process's entry (see WorkerPool in src/workers/pool.ts): resvg and sharp run
// here, never on the server's event loop. The sources are TypeScript, so the process registers
// tsx itself (it is started without the server's flags).
import { register } from 'tsx/esm/api';

register();
const { serveJobs } = await import('../../workers/serve.ts');
const { isVisible, renderPng } = await import('../../svg/render.ts');
const { referenceDataUrl } = await import('../../media/reference-image.ts');
const { measureAnimation } = await import('../../svg/animation/measure.ts');
serveJobs({
  visible: ({ svg }) => isVisible(svg),
  png: ({ svg, maxSide }) => renderPng(svg, maxSide),
  reference: ({ source, maxSide }) => referenceDataUrl(source, maxSide),
  animation: ({ svg, render }) => measureAnimation(svg, { render }),
});

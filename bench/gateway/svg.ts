/**
 * The model's answer of the gateway benchmark: a 2 KB SVG as a small model writes one (a gradient
 * in <defs> first, then shapes and paths), and where in a 40-chunk stream its first drawable
 * element is complete.
 */
import { splitInto } from '../../test/fakes/upstream.ts';
import { draftFromModelText } from '../../src/svg/model-output.ts';

export const CHUNKS = 40;
export const USAGE = { prompt_tokens: 180, completion_tokens: 620 };

export const ANSWER_SVG = [
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">',
  '<title>Lighthouse at dusk</title>',
  '<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#1d3557"/><stop offset="1" stop-color="#f4a261"/></linearGradient></defs>',
  '<rect width="512" height="512" fill="url(#sky)"/>',
  '<circle cx="392" cy="118" r="34" fill="#ffe8a3" opacity="0.9"/>',
  '<path d="M0 362 Q64 342 128 356 T256 352 T384 358 T512 350 L512 512 L0 512 Z" fill="#2a9d8f"/>',
  '<path d="M0 398 Q64 380 128 394 T256 390 T384 396 T512 388 L512 512 L0 512 Z" fill="#264653"/>',
  '<path d="M0 440 Q80 428 160 438 T320 434 T512 436" fill="none" stroke="#8ecae6" stroke-width="3" stroke-linecap="round"/>',
  '<path d="M40 470 Q120 458 200 468 T360 464" fill="none" stroke="#8ecae6" stroke-width="2" stroke-linecap="round" opacity="0.7"/>',
  '<polygon points="300,360 340,360 366,408 274,408" fill="#6d597a"/>',
  '<g id="tower">',
  '<polygon points="298,360 342,360 334,168 306,168" fill="#f1faee"/>',
  '<rect x="305" y="210" width="30" height="14" fill="#e63946"/>',
  '<rect x="303" y="264" width="34" height="14" fill="#e63946"/>',
  '<rect x="301" y="318" width="38" height="14" fill="#e63946"/>',
  '<rect x="300" y="150" width="40" height="20" rx="3" fill="#457b9d"/>',
  '<path d="M296 150 L320 122 L344 150 Z" fill="#1d3557"/>',
  '<rect x="312" y="154" width="16" height="12" fill="#ffd166"/>',
  '</g>',
  '<path d="M328 160 L512 112 L512 208 Z" fill="#ffd166" opacity="0.35"/>',
  '<path d="M312 160 L0 104 L0 214 Z" fill="#ffd166" opacity="0.25"/>',
  '<path d="M96 96 q10 -10 20 0 q10 -10 20 0" fill="none" stroke="#1d3557" stroke-width="3" stroke-linecap="round"/>',
  '<path d="M150 70 q8 -8 16 0 q8 -8 16 0" fill="none" stroke="#1d3557" stroke-width="3" stroke-linecap="round"/>',
  '<ellipse cx="120" cy="420" rx="46" ry="8" fill="#1b3a4b" opacity="0.6"/>',
  '<path d="M84 414 L156 414 L146 428 L94 428 Z" fill="#bc6c25"/>',
  '<path d="M120 414 L120 360 L150 404 Z" fill="#fefae0"/>',
  '<path d="M116 414 L116 372 L92 406 Z" fill="#fefae0" opacity="0.85"/>',
  '<circle cx="60" cy="40" r="2" fill="#ffffff"/><circle cx="460" cy="52" r="2" fill="#ffffff"/>',
  '</svg>',
].join('\n');

export const PIECES = splitInto(ANSWER_SVG, CHUNKS);

/**
 * The chunk (0-based) that completes the first drawable element: the first shape's closing `/>`.
 * Checked against Inkwell's own draft rule (draftFromModelText): the two must agree, or the draft
 * latency would be measured from the wrong chunk.
 */
export function firstElementChunk(): number {
  const shape = ANSWER_SVG.search(/<(rect|circle|ellipse|path|polygon|polyline|line|text|use|image)\b/);
  const end = ANSWER_SVG.indexOf('/>', shape) + 2;
  let seen = 0;
  let chunk = -1;
  for (let i = 0; i < PIECES.length; i++) {
    seen += PIECES[i]!.length;
    if (seen >= end) {
      chunk = i;
      break;
    }
  }
  const drawable = (upTo: number) => draftFromModelText(PIECES.slice(0, upTo + 1).join(''), '0 0 512 512') !== undefined;
  if (!drawable(chunk) || (chunk > 0 && drawable(chunk - 1))) {
    throw new Error(`first drawable element ends in chunk ${chunk}, but Inkwell's draft rule disagrees`);
  }
  return chunk;
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSvg } from '../../src/svg/parse.ts';
import { isVisible } from '../../src/svg/render.ts';
import { surelyVisible } from '../../src/svg/visibility.ts';

const svg = (body: string, root = 'viewBox="0 0 100 100"') => `<svg xmlns="http://www.w3.org/2000/svg" ${root}>${body}</svg>`;

/** Documents the structural check may vouch for: the renderer must agree every time. */
const SURELY_VISIBLE = [
  svg('<rect width="100" height="100" fill="#fff"/>'),
  svg('<circle cx="50" cy="50" r="20" fill="red"/>'),
  svg('<g fill="navy"><ellipse cx="50" cy="50" rx="30" ry="10"/></g>'),
  svg('<rect width="100" height="100"/>'), // black by default
  svg('<a href="#x"><rect x="10" y="10" width="30" height="30" fill="rgb(10, 20, 30)"/></a>'),
  svg('<rect width="100" height="100" fill="#123"/>', 'viewBox="0 0 100 100" width="50%" height="200"'),
];

/** Documents it must leave to the render (each hides its shape, or cannot be read without one). */
const LEFT_TO_THE_RENDER = [
  svg('<rect width="100" height="100" fill="none"/>'),
  svg('<rect width="100" height="100" fill="white" opacity="0"/>'),
  svg('<g transform="translate(500 500)"><rect width="100" height="100" fill="red"/></g>'),
  svg('<rect x="200" y="200" width="100" height="100" fill="red"/>'), // outside the viewBox
  svg('<rect width="0.5" height="0.5" fill="red"/>'), // less than a pixel at 64 px
  svg('<style>rect{display:none}</style><rect width="100" height="100" fill="red"/>'),
  svg('<rect width="100" height="100" fill="rgba(255,0,0,0)"/>'),
  svg('<rect width="100" height="100" fill="url(#missing)"/>'),
  svg('<g fill="inherit"><rect width="100" height="100"/></g>'),
  svg('<defs><rect width="100" height="100" fill="red"/></defs>'),
  svg('<rect width="100" height="100" fill="red" clip-path="url(#c)"/>'),
  svg('<rect width="100" height="100" fill="red"/>', 'viewBox="0 0 100 100" width="0"'),
  svg('<rect width="100" height="100" fill="red"/>', 'width="100" height="100"'), // no viewBox to measure against
  svg('<path d="M0 0H100V100z" fill="red"/>'), // paths are the render's to judge
];

describe('the structural visibility check', () => {
  it('vouches only for documents the renderer shows', () => {
    for (const markup of SURELY_VISIBLE) {
      assert.equal(surelyVisible(parseSvg(markup)), true, markup);
      assert.equal(isVisible(markup), true, `the renderer disagrees: ${markup}`);
    }
  });

  it('leaves everything it cannot be sure of to the render', () => {
    for (const markup of LEFT_TO_THE_RENDER) assert.equal(surelyVisible(parseSvg(markup)), false, markup);
  });
});

// What may appear in an SVG that leaves the service. Everything else is removed.

const SMIL_NAMES = ['animate', 'animateMotion', 'animateTransform', 'set'] as const;
export type SmilElementName = (typeof SMIL_NAMES)[number];
/** The SMIL animation elements: each animates an attribute of its target (its parent, or its href). */
export const SMIL_ELEMENTS: ReadonlySet<string> = new Set(SMIL_NAMES);

export const ALLOWED_ELEMENTS = new Set([
  'svg', 'g', 'defs', 'title', 'desc', 'symbol', 'use', 'switch', 'a', 'image',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
  'text', 'tspan', 'textPath',
  'linearGradient', 'radialGradient', 'stop', 'pattern', 'clipPath', 'mask', 'marker',
  'filter', 'feBlend', 'feColorMatrix', 'feComponentTransfer', 'feComposite', 'feConvolveMatrix',
  'feDiffuseLighting', 'feDisplacementMap', 'feDistantLight', 'feDropShadow', 'feFlood', 'feFuncA',
  'feFuncB', 'feFuncG', 'feFuncR', 'feGaussianBlur', 'feMerge', 'feMergeNode', 'feMorphology',
  'feOffset', 'fePointLight', 'feSpecularLighting', 'feSpotLight', 'feTile', 'feTurbulence',
  ...SMIL_ELEMENTS, 'mpath',
  'style',
]);

/** Elements whose text content is kept. */
export const TEXT_ELEMENTS = new Set(['text', 'tspan', 'textPath', 'title', 'desc', 'style']);

/**
 * HTML integration points: inlined in an HTML page, their content is parsed as HTML, where a
 * nested <style> or <img> becomes live markup. They keep plain text only.
 */
export const TEXT_ONLY_ELEMENTS = new Set(['title', 'desc']);

export const ALLOWED_ATTRIBUTES = new Set([
  // core and structure
  'id', 'class', 'style', 'lang', 'xml:lang', 'xml:space', 'tabindex',
  'xmlns', 'xmlns:xlink', 'version', 'baseProfile',
  'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy', 'fr',
  'width', 'height', 'viewBox', 'preserveAspectRatio', 'transform', 'd', 'points', 'pathLength',
  'href', 'xlink:href', 'xlink:title',
  // presentation
  'alignment-baseline', 'baseline-shift', 'clip', 'clip-path', 'clip-rule', 'color',
  'color-interpolation', 'color-interpolation-filters', 'color-rendering', 'cursor', 'direction',
  'display', 'dominant-baseline', 'fill', 'fill-opacity', 'fill-rule', 'filter', 'flood-color',
  'flood-opacity', 'font-family', 'font-size', 'font-size-adjust', 'font-stretch', 'font-style',
  'font-variant', 'font-weight', 'image-rendering', 'letter-spacing', 'lighting-color', 'marker-end',
  'marker-mid', 'marker-start', 'mask', 'opacity', 'overflow', 'paint-order', 'pointer-events',
  'shape-rendering', 'stop-color', 'stop-opacity', 'stroke', 'stroke-dasharray', 'stroke-dashoffset',
  'stroke-linecap', 'stroke-linejoin', 'stroke-miterlimit', 'stroke-opacity', 'stroke-width',
  'text-anchor', 'text-decoration', 'text-rendering', 'transform-origin', 'unicode-bidi',
  'vector-effect', 'visibility', 'word-spacing', 'writing-mode', 'mix-blend-mode', 'isolation',
  // text
  'dx', 'dy', 'rotate', 'textLength', 'lengthAdjust', 'startOffset', 'method', 'spacing', 'side',
  // gradients, patterns, clips, masks, markers
  'gradientUnits', 'gradientTransform', 'spreadMethod', 'offset', 'patternUnits',
  'patternContentUnits', 'patternTransform', 'clipPathUnits', 'maskUnits', 'maskContentUnits',
  'markerUnits', 'markerWidth', 'markerHeight', 'refX', 'refY', 'orient',
  // filters
  'filterUnits', 'primitiveUnits', 'in', 'in2', 'result', 'stdDeviation', 'edgeMode', 'mode',
  'operator', 'k1', 'k2', 'k3', 'k4', 'type', 'values', 'tableValues', 'slope', 'intercept',
  'amplitude', 'exponent', 'scale', 'xChannelSelector', 'yChannelSelector', 'radius',
  'baseFrequency', 'numOctaves', 'seed', 'stitchTiles', 'order', 'kernelMatrix', 'divisor', 'bias',
  'targetX', 'targetY', 'preserveAlpha', 'surfaceScale', 'diffuseConstant', 'specularConstant',
  'specularExponent', 'kernelUnitLength', 'azimuth', 'elevation', 'z', 'pointsAtX', 'pointsAtY',
  'pointsAtZ', 'limitingConeAngle',
  // animation (SMIL)
  'attributeName', 'attributeType', 'begin', 'dur', 'end', 'min', 'max', 'restart', 'repeatCount',
  'repeatDur', 'calcMode', 'keyTimes', 'keySplines', 'keyPoints', 'from', 'to', 'by', 'additive',
  'accumulate', 'path',
  // conditional processing
  'requiredFeatures', 'requiredExtensions', 'systemLanguage',
]);

/**
 * Attributes whose value is a reference; only same-document fragments (#id) are kept, except on
 * <image>, whose only accepted value is an embedded raster (see embedded-image.ts).
 */
export const REFERENCE_ATTRIBUTES = new Set(['href', 'xlink:href']);

/** Animations may not target these: animating them is a known way to inject links or script. */
export const FORBIDDEN_ANIMATION_TARGETS = new Set(['href', 'xlink:href', 'style', 'class', 'onload', 'attributename']);

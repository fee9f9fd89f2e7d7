// Request-body examples of the OpenAPI document, by operationId. They are sent to the running
// service by a test, so each one must be accepted as written (with a test key, offline: inline
// or base64 inputs only, models from the built-in catalog).

export interface RequestExample {
  summary: string;
  value: Record<string, unknown>;
}

const BADGE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">' +
  '<circle cx="32" cy="32" r="24" fill="#2a9d8f"/><rect x="22" y="22" width="20" height="20" rx="4" fill="#e9c46a"/></svg>';

/** A 32×32 PNG of an orange disc on white (186 bytes). */
const DISC_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAACAAAAAgAgMAAAAOFJJnAAAADFBMVEXlWDD////3yLvvm4PtWOhcAAAACXBIWXMAAAsTAAALEwEAmpwY' +
  'AAAAVElEQVQY02MIhQIGUhkb+CCMCAYGVTCjgIGBF8w4wMDADGKEMQDBVCAjBMQQBTIiQAxVICMGxDAFMgJADFb8DLhiuHa4gXAr4JYi' +
  'nAF3GNypZPgUAGcYPtvvV+iuAAAAAElFTkSuQmCC';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

export const REQUEST_EXAMPLES: Record<string, Record<string, RequestExample>> = {
  createGeneration: {
    simple: {
      summary: 'Two drafts from a prompt',
      value: { model: 'local-svg', prompt: 'A lighthouse at dusk, flat illustration', n: 2 },
    },
    styled: {
      summary: 'Style guidance and a fixed viewBox',
      value: {
        model: 'local-svg',
        prompt: 'A fox curled up asleep',
        instructions: 'Three colours at most, no text, thick outlines.',
        temperature: 0.7,
        attributes: { viewBox: { minX: 0, minY: 0, width: 256, height: 256 } },
      },
    },
    streamed: {
      summary: 'Streamed: drafts, then the final SVG',
      value: { model: 'local-svg', prompt: 'A paper boat on a calm sea', stream: true },
    },
  },
  createVectorization: {
    png: {
      summary: 'A base64 PNG traced into SVG',
      value: { model: 'inkwell-trace', image: { base64: DISC_PNG_BASE64 }, target_size: 256 },
    },
  },
  createEdit: {
    inline: {
      summary: 'Edit inline SVG markup',
      value: { model: 'local-svg', prompt: 'Make the circle dark blue and round the square more', svg: BADGE_SVG },
    },
    source: {
      summary: 'Edit an SVG given as base64, with review steps',
      value: {
        model: 'local-svg',
        prompt: 'Add a thin white border around the circle',
        svg_source: { base64: base64(BADGE_SVG) },
        max_review_steps: 1,
      },
    },
  },
  createAnimation: {
    prompted: {
      summary: 'Animate an SVG as the prompt says',
      value: { model: 'inkwell-motion', svg_source: { base64: base64(BADGE_SVG) }, prompt: 'A gentle pulse' },
    },
    chosen: {
      summary: 'Let the model choose the animation',
      value: { model: 'local-svg', svg_source: { base64: base64(BADGE_SVG) } },
    },
  },
};

/** The `examples` member of an operation's request media type, or nothing when it has none. */
export function requestExamplesOf(operationId: string): { examples?: Record<string, RequestExample> } {
  const examples = REQUEST_EXAMPLES[operationId];
  return examples ? { examples } : {};
}

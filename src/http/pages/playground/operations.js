// The four SVG operations the playground runs, and how each one's request body is read from the
// form. Values are sent as typed: the service validates them, and its errors are shown as they are.
import { textToBase64 } from './file-inputs.js';

export const OPERATIONS = {
  generate: { path: '/v1/svgs/generations', capability: 'svg_generate', perRequest: false },
  vectorize: { path: '/v1/svgs/vectorizations', capability: 'svg_vectorize', perRequest: true },
  edit: { path: '/v1/svgs/edits', capability: 'svg_edit', perRequest: false },
  animate: { path: '/v1/svgs/animations', capability: 'svg_animate', perRequest: false },
};

/** Shows the fields an operation takes (`data-ops="generate edit"`) and hides the rest. */
export function showFieldsOf(form, operation) {
  for (const node of form.querySelectorAll('[data-ops]')) {
    node.hidden = !node.dataset.ops.split(' ').includes(operation);
  }
}

/** The catalog models that run an operation. */
export function modelsFor(models, operation) {
  const capability = OPERATIONS[operation].capability;
  return models.filter((model) => (model.supported_operations ?? []).includes(capability));
}

/** "4 credits per output", "1 credit per request" or "priced by tokens". */
export function priceOf(model, operation) {
  if (model.billing?.kind === 'token_usage') return 'priced by measured tokens';
  const credits = model.pricing_credits?.[OPERATIONS[operation].capability];
  if (credits === undefined) return '';
  const unit = OPERATIONS[operation].perRequest ? 'request' : 'output';
  return `${credits} credit${credits === 1 ? '' : 's'} per ${unit}`;
}

/** The JSON body of `operation` from the form; `image` is the dropped file, if any. */
export function requestBody(form, operation, image) {
  const read = (name) => {
    const field = form.elements.namedItem(name);
    return field ? String(field.value) : '';
  };
  const text = (name) => (read(name).trim() === '' ? undefined : read(name));
  const number = (name) => (read(name).trim() === '' ? undefined : Number(read(name)));
  const checked = (name) => form.elements.namedItem(name)?.checked === true;
  const viewBox = () => {
    const width = number('viewbox.width');
    const height = number('viewbox.height');
    if (width === undefined && height === undefined) return undefined;
    return { viewBox: { minX: 0, minY: 0, width, height } };
  };
  const sampling = { temperature: number('temperature'), max_output_tokens: number('max_output_tokens') };

  const body = { model: text('model') };
  if (operation === 'generate') {
    Object.assign(body, {
      prompt: text('generate.prompt'),
      instructions: text('generate.instructions'),
      n: number('generate.n'),
      ...sampling,
      top_p: number('top_p'),
      attributes: viewBox(),
    });
  } else if (operation === 'vectorize') {
    const url = text('vectorize.url');
    Object.assign(body, {
      image: image ? { base64: image.base64 } : url ? { url: url.trim() } : undefined,
      target_size: number('vectorize.target_size'),
      auto_crop: checked('vectorize.auto_crop') || undefined,
      ...sampling,
      top_p: number('top_p'),
      attributes: viewBox(),
    });
  } else if (operation === 'edit') {
    Object.assign(body, {
      prompt: text('edit.prompt'),
      svg: text('svg'),
      max_review_steps: number('edit.max_review_steps'),
    });
  } else {
    const svg = text('svg');
    Object.assign(body, {
      svg_source: svg === undefined ? undefined : { base64: textToBase64(svg) },
      prompt: text('animate.prompt'),
      ...sampling,
    });
  }
  body.reasoning_effort = text('reasoning_effort');
  body.stream = checked('stream');
  return JSON.parse(JSON.stringify(body)); // drops the fields left undefined
}

// The four SVG operations the playground runs, and how each one's request body is read from the
// form. Values are sent as typed: the service validates them, and its errors are shown as they are.
import { textToBase64 } from './file-inputs.js';

export const OPERATIONS = {
  generate: { path: '/v1/svgs/generations', capability: 'svg_generate', perRequest: false },
  vectorize: { path: '/v1/svgs/vectorizations', capability: 'svg_vectorize', perRequest: true },
  edit: { path: '/v1/svgs/edits', capability: 'svg_edit', perRequest: false },
  animate: { path: '/v1/svgs/animations', capability: 'svg_animate', perRequest: false },
};

/**
 * What serves a model on an operation, read from what the catalog says (a Model object never
 * names its engine). A model server (the openai-compatible engine) when the entry lists sampling
 * parameters, has an output or context length, is billed by tokens (only an engine that counts
 * tokens may be), or generates, edits or answers Responses — the built-in tracer and animator do
 * none of these. Otherwise it is the built-in tracer on vectorize, the built-in animator on
 * animate. A live sandbox entry reads as whichever it resembles; it ignores every option anyway.
 */
export function engineOf(model, operation) {
  const operations = model.supported_operations ?? [];
  const modelServer =
    (model.supported_sampling_parameters ?? []).length > 0 ||
    model.max_output_length !== undefined ||
    model.context_length !== undefined ||
    model.billing?.kind === 'token_usage' ||
    operations.some((op) => op === 'svg_generate' || op === 'svg_edit' || op === 'open_responses');
  if (modelServer) return 'model-server';
  return operation === 'vectorize' ? 'tracer' : 'animator';
}

/**
 * The options (`data-option` fields) a model uses: a model server takes the sampling fields its
 * entry lists, an output cap (the max_tokens it is sent; for a token-billed model also what is
 * reserved from the balance) and a reasoning effort (sent to a reasoning model). The tracer reads
 * reasoning_effort as its detail level; the animator uses none of them.
 */
export function optionsOf(model, operation) {
  const engine = model ? engineOf(model, operation) : null;
  if (engine === 'tracer') return new Set(['reasoning_effort']);
  if (engine !== 'model-server') return new Set();
  return new Set(['reasoning_effort', 'max_output_tokens', ...(model.supported_sampling_parameters ?? [])]);
}

/** What reasoning_effort does for each engine that uses it. */
const EFFORT = {
  tracer: { label: 'Trace detail', note: 'reasoning_effort sets the resolution traced at: low 512 px (fastest), medium 1024 (the default), high 1536, xhigh 2048 (finest, slowest).' },
  'model-server': { label: 'Reasoning effort', note: 'How long a reasoning model thinks before it draws; a model that does not reason ignores it.' },
};

/**
 * Shows the fields `operation` takes (`data-ops="generate edit"`) that `model` uses, and hides
 * the rest; the Options panel goes when nothing in it applies.
 */
export function showFieldsOf(form, operation, model) {
  const used = optionsOf(model, operation);
  for (const node of form.querySelectorAll('[data-ops]')) {
    const option = node.dataset.option;
    node.hidden = !node.dataset.ops.split(' ').includes(operation) || (option !== undefined && !used.has(option));
  }
  const effort = model ? EFFORT[engineOf(model, operation)] : undefined;
  if (effort) {
    form.querySelector('#effort-label').textContent = effort.label;
    form.querySelector('#effort-note').textContent = effort.note;
  }
  const options = form.querySelector('#options');
  options.hidden = !options.querySelector('.field:not([hidden])');
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
  // A hidden field is one this operation or model does not use: it is not sent.
  const read = (name) => {
    const field = form.elements.namedItem(name);
    return field && !field.closest('[hidden]') ? String(field.value) : '';
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
  // Generations and vectorizations take every sampling field; animations and edits fewer.
  const fullSampling = { ...sampling, top_p: number('top_p'), presence_penalty: number('presence_penalty') };

  const body = { model: text('model') };
  if (operation === 'generate') {
    Object.assign(body, {
      prompt: text('generate.prompt'),
      instructions: text('generate.instructions'),
      n: number('generate.n'),
      ...fullSampling,
      attributes: viewBox(),
    });
  } else if (operation === 'vectorize') {
    const url = text('vectorize.url');
    Object.assign(body, {
      image: image ? { base64: image.base64 } : url ? { url: url.trim() } : undefined,
      target_size: number('vectorize.target_size'),
      auto_crop: checked('vectorize.auto_crop') || undefined,
      ...fullSampling,
      attributes: viewBox(),
    });
  } else if (operation === 'edit') {
    Object.assign(body, {
      prompt: text('edit.prompt'),
      svg: text('svg'),
      max_review_steps: number('edit.max_review_steps'),
      // An edit takes its temperature and output cap in `settings`.
      settings: Object.values(sampling).some((value) => value !== undefined) ? sampling : undefined,
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

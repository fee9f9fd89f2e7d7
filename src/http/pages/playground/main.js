// The playground: wires the key, the operation tabs, the form and the results together.
import { listModels, runOperation } from './api-client.js';
import { byId, el } from './dom.js';
import { imageDropZone } from './file-inputs.js';
import { currentKey, forgetKey, isTestKey, keyHint, useKey } from './key-holder.js';
import { OPERATIONS, modelsFor, priceOf, requestBody, showFieldsOf } from './operations.js';
import { OutputBoard } from './output-board.js';
import { RunReport } from './run-report.js';

const form = byId('run-form');
const modelSelect = byId('model');
const runButton = byId('run-button');
const stopButton = byId('stop-button');
const report = new RunReport();
const board = new OutputBoard(byId('outputs'), { onReuse: reuseOutput });
const dropZone = imageDropZone({
  zone: byId('dropzone'),
  input: byId('image-file'),
  preview: byId('image-preview'),
  nameLabel: byId('image-name'),
  clearButton: byId('image-clear'),
  onError: (error) => report.showProblem('The image could not be read', error),
});

let operation = 'generate';
let models = [];
/** The model picked for each operation, kept while switching tabs. */
const pickedModel = {};
let running = null;

/* The key: read from the field, kept in memory, and the field emptied. */

byId('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = byId('key-input');
  useKey(input.value);
  input.value = '';
  if (!currentKey()) return;
  await loadModels();
});

byId('forget-key').addEventListener('click', () => {
  forgetKey();
  models = [];
  byId('key-status').hidden = true;
  byId('key-form').hidden = false;
  fillModels();
});

async function loadModels() {
  // The results show one request at a time: the last run's outputs go with its report.
  clearOutputs();
  report.start('Checking the key');
  try {
    const answer = await listModels();
    report.answered(answer);
    if (answer.error) {
      forgetKey();
      models = [];
      report.showError(answer.error, answer.requestId);
      report.finish('failed', answer.status);
    } else {
      models = answer.models;
      byId('key-hint').textContent = keyHint();
      byId('env-badge').textContent = answer.environment === 'test' ? 'sandbox' : answer.environment ?? '';
      byId('env-badge').dataset.env = answer.environment ?? '';
      byId('key-status').hidden = false;
      byId('key-form').hidden = true;
      report.finish('succeeded', answer.status);
      report.setStatus('succeeded', `${models.length} models available`);
    }
  } catch (error) {
    report.showProblem('The service could not be reached', error);
    report.finish('failed');
  }
  fillModels();
}

/* Operations and models. */

for (const tab of document.querySelectorAll('[role="tab"]')) {
  tab.addEventListener('click', () => selectOperation(tab.dataset.op));
}

function selectOperation(next) {
  operation = next;
  for (const tab of document.querySelectorAll('[role="tab"]')) tab.setAttribute('aria-selected', String(tab.dataset.op === next));
  fillModels();
}

function fillModels() {
  const usable = modelsFor(models, operation);
  const options = usable.map((model) => el('option', { value: model.id, text: model.name ? `${model.id} — ${model.name}` : model.id }));
  if (!currentKey() || models.length === 0) options.push(el('option', { value: '', text: 'Enter a key to load the models' }));
  else if (usable.length === 0) options.push(el('option', { value: '', text: 'No model of this key runs this operation' }));
  modelSelect.replaceChildren(...options);
  if (usable.some((model) => model.id === pickedModel[operation])) modelSelect.value = pickedModel[operation];
  modelSelect.disabled = usable.length === 0;
  runButton.disabled = usable.length === 0 || running !== null;
  // The sandbox's [mock:…] directives mean nothing to a live key.
  byId('mock-hint').hidden = !(isTestKey() && models.length > 0);
  describeModel();
}

modelSelect.addEventListener('change', () => {
  pickedModel[operation] = modelSelect.value;
  describeModel();
});

function describeModel() {
  const model = models.find((candidate) => candidate.id === modelSelect.value);
  byId('model-note').textContent = model ? [priceOf(model, operation), model.description].filter(Boolean).join(' · ') : '';
  showFieldsOf(form, operation, model);
}

/* Running an operation. */

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (running === null && !runButton.disabled) void run();
});

form.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) form.requestSubmit();
});

stopButton.addEventListener('click', () => running?.abort());

async function run() {
  const body = requestBody(form, operation, operation === 'vectorize' ? dropZone.current() : null);
  running = new AbortController();
  setRunning(true);
  board.clear();
  byId('empty').hidden = true;
  report.start(`Running ${body.model ?? ''}`.trim());
  // In one column the results are below the form: bring them into view.
  if (window.matchMedia('(max-width: 900px)').matches) byId('summary').scrollIntoView({ behavior: 'smooth', block: 'start' });
  let failed = false;
  let status;
  let requestId;
  try {
    const answer = await runOperation(OPERATIONS[operation].path, body, {
      signal: running.signal,
      onAnswer: (info) => {
        ({ status, requestId } = info);
        report.answered(info);
      },
      onEvent: (event) => {
        report.logEvent(event);
        if (event.type === 'draft') board.draft(event);
        else if (event.type === 'content') {
          board.final(event);
          report.spent(event);
        } else if (event.type === 'error') {
          failed = true;
          report.showError(event, requestId);
        } else board.status(event);
      },
    });
    if (answer.error) {
      failed = true;
      report.showError(answer.error, answer.requestId);
    } else if (answer.result) {
      answer.result.data.forEach((item, index) => board.final({ ...item, id: `${answer.result.id}-${index + 1}`, index }));
      report.spent(answer.result);
    } else if (!answer.sawDone && !failed) {
      failed = true;
      report.showProblem('The stream ended before data: [DONE]; the outcome is uncertain.');
    }
    board.markUnfinished();
    report.finish(!failed ? 'succeeded' : answer.error ? 'failed' : partialOrFailed(), status);
  } catch (error) {
    board.markUnfinished();
    if (error.name === 'AbortError') report.finish('stopped', status);
    else {
      report.showProblem('No answer from the service', error);
      report.finish('failed', status);
    }
  } finally {
    running = null;
    setRunning(false);
  }
}

/** The last run's outputs go, so none is shown under a report it does not belong to. */
function clearOutputs() {
  board.clear();
  byId('empty').hidden = false;
}

/** A stream that failed after some outputs were delivered is a partial batch. */
function partialOrFailed() {
  return document.querySelector('.output[data-state="final"]') ? 'partial' : 'failed';
}

function setRunning(isRunning) {
  stopButton.hidden = !isRunning;
  runButton.disabled = isRunning || modelSelect.disabled;
  runButton.textContent = isRunning ? 'Running…' : 'Run';
}

/* The SVG of an edit or an animation: typed, loaded from a file, or taken from a result. */

const svgFile = byId('svg-file');
byId('svg-file-button').addEventListener('click', () => svgFile.click());
svgFile.addEventListener('change', async () => {
  const file = svgFile.files?.[0];
  if (!file) return;
  try {
    form.elements.namedItem('svg').value = await file.text();
  } catch (error) {
    report.showProblem('The file could not be read', error);
  }
  svgFile.value = '';
});

function reuseOutput(nextOperation, markup) {
  form.elements.namedItem('svg').value = markup;
  selectOperation(nextOperation);
  form.scrollIntoView({ behavior: 'smooth', block: 'start' });
}

selectOperation('generate');

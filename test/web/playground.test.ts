import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { SKIP_BROWSER, launchBrowser, openPage, type WatchedPage } from './page-watch.ts';

/** A model server whose entry lists one sampling field: the playground shows only that one. */
const PICKY_MODEL = {
  id: 'picky-svg',
  engine: 'openai-compatible',
  operations: ['svg_generate', 'svg_animate'],
  billing: { kind: 'fixed_credit', credits: { svg_generate: 1, svg_animate: 1 } },
  supported_sampling_parameters: ['top_p'],
  options: { base_url: 'http://127.0.0.1:9/v1', model: 'picky' },
};

/**
 * The playground at GET /, driven in headless Chromium against a real server on 127.0.0.1 with
 * the sandbox (test key): it renders results as images, streams drafts before the final SVG, shows
 * error envelopes in place of the last outputs, shows and sends only the options a model uses, and
 * keeps the key in the tab's memory only.
 */
describe('the playground', { skip: SKIP_BROWSER }, () => {
  let h: Harness;
  let browser: Browser;

  before(async () => {
    h = await startHarness({ config: { sandbox: { slow_stream_delay_ms: 120 }, catalog: { models: [PICKY_MODEL] } } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  /** A fresh tab on the playground, with the key entered and the models loaded. */
  async function playground(key: string | null = h.keys.test): Promise<WatchedPage> {
    const watched = await openPage(browser);
    const response = await watched.page.goto(`${h.url}/`);
    assert.equal(response?.status(), 200);
    if (key !== null) {
      await watched.page.fill('#key-input', key);
      await watched.page.click('#key-form button[type="submit"]');
      await watched.page.locator('#model option[value="local-svg"]').waitFor({ state: 'attached' });
    }
    return watched;
  }

  /** Nothing left the server's origin, the page kept to its CSP and logged no error. */
  async function assertWellBehaved(watched: WatchedPage, expectedErrors: RegExp[] = []) {
    assert.deepEqual(watched.foreignRequests, [], 'requests to other hosts');
    assert.deepEqual(await watched.cspViolations(), [], 'Content-Security-Policy violations');
    const unexpected = watched.consoleErrors.filter((text) => !expectedErrors.some((pattern) => pattern.test(text)));
    assert.deepEqual(unexpected, [], 'console errors');
    await watched.close();
  }

  async function setStream(page: Page, on: boolean) {
    await page.locator('input[name="stream"]').setChecked(on);
  }

  const finals = (page: Page) => page.locator('.output[data-state="final"]');

  /** The option fields the page shows (and would send) for the current tab and model, by name. */
  const shownOptions = (page: Page) =>
    page.evaluate<string[]>(`[...document.querySelectorAll('#options [name]')].filter((field) => !field.closest('[hidden]')).map((field) => field.name)`);

  /** Picks a tab, then a model on it. */
  async function choose(page: Page, operation: string, model: string) {
    await page.click(`[role="tab"][data-op="${operation}"]`);
    await page.selectOption('#model', model);
  }

  /** Runs, and answers the request body sent. */
  async function runAndReadBody(page: Page, path: string): Promise<Record<string, unknown>> {
    const sent = page.waitForRequest((request) => request.url().endsWith(path));
    const answered = page.waitForResponse((response) => response.url().endsWith(path));
    await page.click('#run-button');
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    assert.equal((await answered).status(), 200, path);
    await page.locator('#summary-status[data-kind="succeeded"]').waitFor();
    return body;
  }

  async function dropImage(page: Page) {
    const png = await sharp({ create: { width: 48, height: 48, channels: 3, background: '#e4572e' } }).png().toBuffer();
    // A drop: a DataTransfer carrying the file, as the browser builds one when a file is dropped.
    const transfer = await page.evaluateHandle(`(() => {
      const bytes = Uint8Array.from(atob(${JSON.stringify(png.toString('base64'))}), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'square.png', { type: 'image/png' }));
      return data;
    })()`);
    await page.dispatchEvent('#dropzone', 'drop', { dataTransfer: transfer });
    await page.locator('#image-preview[src^="blob:"]').waitFor();
  }

  it('runs a sandbox generation and renders its SVG as an image, with request id and credits', async () => {
    const watched = await playground();
    const { page } = watched;
    await setStream(page, false);
    await page.fill('input[name="generate.n"]', '1');
    const answer = page.waitForResponse((response) => response.url().endsWith('/v1/svgs/generations'));
    await page.click('#run-button');
    const response = await answer;
    assert.equal(response.status(), 200);
    await finals(page).locator('img.output-image.shown').waitFor();

    const image = finals(page).locator('img.output-image');
    assert.match((await image.getAttribute('src')) ?? '', /^blob:http:\/\/127\.0\.0\.1:/);
    const decoded = await image.evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth > 0);
    assert.ok(decoded, 'the image is decoded');
    // The image shows the service's document, and the download link offers the same markup.
    const download = finals(page).locator('a[download]');
    assert.match((await download.getAttribute('download')) ?? '', /\.svg$/);
    const body = (await response.json()) as { data: { svg: string }[]; credits: number };
    const saving = page.waitForEvent('download');
    await download.click();
    const saved = await saving;
    assert.match(saved.suggestedFilename(), /^inkwell-[\w-]+\.svg$/);
    const downloaded = readFileSync((await saved.path())!, 'utf8');
    assert.equal(downloaded, body.data[0]!.svg);
    assert.match(downloaded, /data-sandbox="true"/);
    // The SVG is never part of the page's own markup.
    assert.equal(await page.locator('#outputs svg').count(), 0);

    assert.equal(await page.locator('#summary-request-id').innerText(), response.headers()['x-request-id']);
    assert.equal(await page.locator('#summary-cost').innerText(), String(body.credits));
    assert.match(await page.locator('#summary-status').innerText(), /Succeeded/);
    await assertWellBehaved(watched);
  });

  it('streams a generation: a draft is on the page before the final SVG', async () => {
    const watched = await playground();
    const { page } = watched;
    await setStream(page, true);
    await page.fill('input[name="generate.n"]', '1');
    await page.fill('textarea[name="generate.prompt"]', 'A paper boat [mock:slow-stream]');
    await page.click('#run-button');

    await page.locator('.output[data-state="draft"] img.output-image.shown').waitFor();
    assert.equal(await finals(page).count(), 0, 'no final SVG while the draft is shown');
    const draftSource = await page.locator('.output img.output-image').getAttribute('src');
    assert.match(draftSource ?? '', /^blob:/);

    await finals(page).locator('img.output-image.shown').waitFor({ timeout: 20_000 });
    assert.notEqual(await page.locator('.output img.output-image').getAttribute('src'), draftSource, 'the final replaced the draft');
    assert.match(await page.locator('#summary-status').innerText(), /Succeeded/);
    const log = await page.locator('#log-list li strong').allTextContents();
    assert.ok(log.indexOf('draft') >= 0 && log.indexOf('draft') < log.indexOf('content'), `events: ${log.join(', ')}`);
    await assertWellBehaved(watched);
  });

  it('shows the error envelope of a bad key: code, message and request id', async () => {
    const watched = await playground(null);
    const { page } = watched;
    await page.fill('#key-input', 'sk_test_not-a-real-key');
    const answer = page.waitForResponse((response) => response.url().endsWith('/v1/models'));
    await page.click('#key-form button[type="submit"]');
    const response = await answer;
    assert.equal(response.status(), 401);
    await page.locator('#error').waitFor();
    assert.equal(await page.locator('#error-code').innerText(), 'invalid_api_key');
    assert.equal(await page.locator('#error-status').innerText(), '401');
    assert.ok((await page.locator('#error-message').innerText()).length > 0);
    assert.equal(await page.locator('#error-request-id').innerText(), response.headers()['x-request-id']);
    assert.equal(await page.locator('#run-button').isDisabled(), true, 'nothing runs without a working key');
    await assertWellBehaved(watched, [/401 \(Unauthorized\)/]);
  });

  it('shows the error envelope of an invalid field, with its param', async () => {
    const watched = await playground();
    const { page } = watched;
    await page.fill('input[name="generate.n"]', '17');
    const answer = page.waitForResponse((response) => response.url().endsWith('/v1/svgs/generations'));
    await page.click('#run-button');
    const response = await answer;
    assert.equal(response.status(), 400);
    await page.locator('#error').waitFor();
    assert.equal(await page.locator('#error-code').innerText(), 'invalid_request');
    assert.equal(await page.locator('#error-param').innerText(), 'n');
    assert.equal(await page.locator('#error-request-id').innerText(), response.headers()['x-request-id']);
    assert.equal(await page.locator('#summary-request-id').innerText(), response.headers()['x-request-id']);
    assert.match(await page.locator('#summary-status').innerText(), /Failed · 400/);
    await assertWellBehaved(watched, [/400 \(Bad Request\)/]);
  });

  it('shows a mid-stream error event after the outputs that completed', async () => {
    const watched = await playground();
    const { page } = watched;
    await setStream(page, true);
    await page.fill('input[name="generate.n"]', '2');
    await page.fill('textarea[name="generate.prompt"]', 'Two kites [mock:partial]');
    const answer = page.waitForResponse((response) => response.url().endsWith('/v1/svgs/generations'));
    await page.click('#run-button');
    const requestId = (await answer).headers()['x-request-id'];
    await page.locator('#error').waitFor();
    await page.locator('#summary-status', { hasText: /Partly succeeded/ }).waitFor();
    assert.equal(await page.locator('#error-code').innerText(), 'model_error');
    assert.equal(await page.locator('#error-request-id').innerText(), requestId);
    assert.equal(await finals(page).count(), 1);
    assert.equal(await page.locator('.output[data-state="failed"]').count(), 1);
    await assertWellBehaved(watched);
  });

  it('runs vectorize with a dropped image, edit and animate, each to a final SVG', async () => {
    const watched = await playground();
    const { page } = watched;
    await setStream(page, false);

    await page.click('[role="tab"][data-op="vectorize"]');
    await page.locator('#model option[value="inkwell-trace"]').waitFor({ state: 'attached' });
    await dropImage(page);
    await page.click('#run-button');
    await finals(page).locator('img.output-image.shown').waitFor();

    for (const [operation, path] of [['edit', '/v1/svgs/edits'], ['animate', '/v1/svgs/animations']] as const) {
      await page.click(`[role="tab"][data-op="${operation}"]`);
      const answer = page.waitForResponse((response) => response.url().endsWith(path));
      await page.click('#run-button');
      assert.equal((await answer).status(), 200, operation);
      await finals(page).locator('img.output-image.shown').waitFor();
    }
    assert.match(await finals(page).locator('.output-facts').innerText(), /loop \d+ ms/);
    // A result goes back in as the input of the next operation.
    await finals(page).getByRole('button', { name: 'Edit' }).click();
    assert.equal(await page.locator('[role="tab"][data-op="edit"]').getAttribute('aria-selected'), 'true');
    assert.match(await page.locator('textarea[name="svg"]').inputValue(), /^<svg/);
    await assertWellBehaved(watched);
  });

  it('replaces the last output with a new error: a bad key after Forget, a run that fails before any output', async () => {
    const watched = await playground();
    const { page } = watched;
    await setStream(page, false);
    await page.fill('input[name="generate.n"]', '1');
    await page.click('#run-button');
    await finals(page).waitFor();

    await page.click('#forget-key');
    await page.fill('#key-input', 'sk_test_not-a-real-key');
    await page.click('#key-form button[type="submit"]');
    await page.locator('#error-code', { hasText: 'invalid_api_key' }).waitFor();
    assert.equal(await page.locator('#outputs .output').count(), 0, 'no output of the last run under the 401');
    assert.match(await page.locator('#summary-status').innerText(), /Failed · 401/);
    assert.equal(await page.locator('#empty').isVisible(), true);

    // With a working key again: a run that fails before any output leaves none from the last run.
    await page.fill('#key-input', h.keys.test);
    await page.click('#key-form button[type="submit"]');
    await page.locator('#model option[value="local-svg"]').waitFor({ state: 'attached' });
    assert.equal(await page.locator('#error').isVisible(), false, 'the key check cleared the 401');
    await page.click('#run-button');
    await finals(page).waitFor();
    await page.fill('input[name="generate.n"]', '17');
    await page.click('#run-button');
    await page.locator('#error-param', { hasText: 'n' }).waitFor();
    assert.equal(await page.locator('#outputs .output').count(), 0, 'no output of the last run under the 400');
    await assertWellBehaved(watched, [/401 \(Unauthorized\)/, /400 \(Bad Request\)/]);
  });

  it('shows the sandbox [mock:…] hint with a test key only', async () => {
    const watched = await playground(null);
    const { page } = watched;
    const hint = page.locator('#mock-hint');
    assert.equal(await hint.isVisible(), false, 'no key');
    await page.fill('#key-input', h.keys.test);
    await page.click('#key-form button[type="submit"]');
    await hint.waitFor();
    assert.match(await hint.innerText(), /\[mock:slow-stream\]/);

    await page.click('#forget-key');
    assert.equal(await hint.isVisible(), false, 'forgotten key');
    await page.fill('#key-input', h.keys.live);
    await page.click('#key-form button[type="submit"]');
    await page.locator('#key-hint', { hasText: /^sk_live_/ }).waitFor();
    await page.locator('#model option[value="local-svg"]').waitFor({ state: 'attached' });
    assert.equal(await hint.isVisible(), false, 'live key');
    assert.ok(!(await page.locator('body').innerText()).includes('[mock:'), 'no directive anywhere on the page');
    await assertWellBehaved(watched);
  });

  it('shows each tab the options its model uses, from the catalog, with what reasoning effort does', async () => {
    const watched = await playground();
    const { page } = watched;
    await page.click('#options summary');
    const effortLabel = page.locator('#effort-label');

    await choose(page, 'generate', 'local-svg');
    assert.deepEqual(await shownOptions(page), ['reasoning_effort', 'temperature', 'top_p', 'presence_penalty', 'max_output_tokens', 'viewbox.width', 'viewbox.height']);
    assert.equal(await effortLabel.innerText(), 'Reasoning effort');
    assert.match(await page.locator('#effort-note').innerText(), /reasoning model/);
    // A model server takes only the sampling fields its entry lists.
    await choose(page, 'generate', PICKY_MODEL.id);
    assert.deepEqual(await shownOptions(page), ['reasoning_effort', 'top_p', 'max_output_tokens', 'viewbox.width', 'viewbox.height']);

    // The tracer ignores sampling and token caps; reasoning_effort is its detail level.
    await choose(page, 'vectorize', 'inkwell-trace');
    assert.deepEqual(await shownOptions(page), ['reasoning_effort', 'viewbox.width', 'viewbox.height']);
    assert.equal(await effortLabel.innerText(), 'Trace detail');
    assert.match(await page.locator('#effort-note').innerText(), /512 px/);

    await choose(page, 'edit', 'local-svg');
    assert.deepEqual(await shownOptions(page), ['reasoning_effort', 'temperature', 'max_output_tokens', 'edit.max_review_steps']);
    await choose(page, 'animate', 'local-svg');
    assert.deepEqual(await shownOptions(page), ['reasoning_effort', 'temperature', 'max_output_tokens']);
    // The animator uses none of them: the panel goes.
    await choose(page, 'animate', 'inkwell-motion');
    assert.deepEqual(await shownOptions(page), []);
    assert.equal(await page.locator('#options').isVisible(), false);
    await assertWellBehaved(watched);
  });

  it('sends only the options shown', async () => {
    const watched = await playground();
    const { page } = watched;
    await setStream(page, false);
    await page.click('#options summary');
    await page.fill('input[name="generate.n"]', '1');
    await choose(page, 'generate', 'local-svg');
    await page.selectOption('select[name="reasoning_effort"]', 'high');
    await page.fill('input[name="temperature"]', '0.3');
    await page.fill('input[name="top_p"]', '0.9');
    await page.fill('input[name="presence_penalty"]', '0.5');
    await page.fill('input[name="max_output_tokens"]', '900');
    const pick = (body: Record<string, unknown>) =>
      Object.fromEntries(['reasoning_effort', 'temperature', 'top_p', 'presence_penalty', 'max_output_tokens', 'settings'].filter((k) => k in body).map((k) => [k, body[k]]));

    assert.deepEqual(pick(await runAndReadBody(page, '/v1/svgs/generations')), {
      reasoning_effort: 'high',
      temperature: 0.3,
      top_p: 0.9,
      presence_penalty: 0.5,
      max_output_tokens: 900,
    });
    await choose(page, 'generate', PICKY_MODEL.id);
    assert.deepEqual(pick(await runAndReadBody(page, '/v1/svgs/generations')), { reasoning_effort: 'high', top_p: 0.9, max_output_tokens: 900 });

    await choose(page, 'vectorize', 'inkwell-trace');
    await dropImage(page);
    assert.deepEqual(pick(await runAndReadBody(page, '/v1/svgs/vectorizations')), { reasoning_effort: 'high' });

    await choose(page, 'edit', 'local-svg');
    assert.deepEqual(pick(await runAndReadBody(page, '/v1/svgs/edits')), {
      reasoning_effort: 'high',
      settings: { temperature: 0.3, max_output_tokens: 900 },
    });
    await choose(page, 'animate', 'local-svg');
    assert.deepEqual(pick(await runAndReadBody(page, '/v1/svgs/animations')), { reasoning_effort: 'high', temperature: 0.3, max_output_tokens: 900 });
    await choose(page, 'animate', 'inkwell-motion');
    assert.deepEqual(pick(await runAndReadBody(page, '/v1/svgs/animations')), {});
    await assertWellBehaved(watched);
  });

  it('ends every error text with one period', async () => {
    const watched = await playground();
    const { page } = watched;
    await setStream(page, false);
    // An envelope whose message already ends with a period, and had one more appended.
    await page.route('**/v1/svgs/generations', (route) =>
      route.fulfill({ status: 502, contentType: 'application/json', body: JSON.stringify({ status: 502, code: 'model_error', message: 'The model server failed..' }) }),
    );
    await page.click('#run-button');
    await page.locator('#error-code', { hasText: 'model_error' }).waitFor();
    assert.equal(await page.locator('#error-message').innerText(), 'The model server failed.');
    // No answer at all: the browser's reason, as one sentence.
    await page.unroute('**/v1/svgs/generations');
    await page.route('**/v1/svgs/generations', (route) => route.abort('connectionrefused'));
    await page.click('#run-button');
    await page.locator('#error-code', { hasText: 'no_answer' }).waitFor();
    assert.match(await page.locator('#error-message').innerText(), /^No answer from the service: [^.]+[^.]\.$/);
    await assertWellBehaved(watched, [/502 \(Bad Gateway\)/, /ERR_CONNECTION_REFUSED/]);
  });

  it('keeps the key in the tab memory only: not in storage, cookies, the URL or the page', async () => {
    const watched = await playground();
    const { page, context } = watched;
    await setStream(page, false);
    await page.fill('input[name="generate.n"]', '1');
    const sent = page.waitForRequest((request) => request.url().endsWith('/v1/svgs/generations'));
    await page.click('#run-button');
    assert.equal((await sent).headers().authorization, `Bearer ${h.keys.test}`, 'the key is sent as the bearer token');
    await finals(page).waitFor();

    const stored = await page.evaluate<{ local: number; session: number; cookie: string; url: string; markup: string; field: string }>(`({
      local: localStorage.length,
      session: sessionStorage.length,
      cookie: document.cookie,
      url: location.href,
      markup: document.documentElement.outerHTML,
      field: document.getElementById('key-input').value,
    })`);
    assert.equal(stored.local, 0, 'localStorage');
    assert.equal(stored.session, 0, 'sessionStorage');
    assert.equal(stored.cookie, '', 'document.cookie');
    assert.deepEqual(await context.cookies(), []);
    assert.ok(!stored.url.includes(h.keys.test), 'the URL');
    assert.equal(stored.field, '', 'the key field is emptied once the key is in use');
    assert.ok(!stored.markup.includes(h.keys.test), 'the page markup');
    assert.match(await page.locator('#key-hint').innerText(), /^sk_test_…\w{4}$/);

    // Forgetting the key (or reloading) leaves nothing behind.
    await page.click('#forget-key');
    assert.equal(await page.locator('#run-button').isDisabled(), true);
    await page.reload();
    assert.equal(await page.locator('#key-input').inputValue(), '');
    assert.equal(await page.locator('#model').isDisabled(), true);
    await assertWellBehaved(watched);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ENDPOINTS } from '../../src/contract/endpoints.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { SKIP_BROWSER, launchBrowser, openPage } from './page-watch.ts';

/**
 * The API reference at GET /docs: Swagger UI, served from the package, renders the service's own
 * OpenAPI document in headless Chromium without a single request leaving 127.0.0.1.
 */
describe('the API reference page', { skip: SKIP_BROWSER }, () => {
  let h: Harness;
  let browser: Browser;

  before(async () => {
    h = await startHarness();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  it('lists every operation of the OpenAPI document, loading nothing from another host', async () => {
    const watched = await openPage(browser);
    const { page } = watched;
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));

    const response = await page.goto(`${h.url}/docs`);
    assert.equal(response?.status(), 200);
    await page.getByText('/v1/svgs/generations', { exact: true }).first().waitFor({ timeout: 20_000 });
    for (const endpoint of Object.values(ENDPOINTS)) {
      const path = page.locator('.opblock-summary-path', { hasText: endpoint.path }).first();
      assert.ok(await path.isVisible(), `${endpoint.method} ${endpoint.path} is listed`);
    }
    assert.ok(requested.includes('/v1/openapi.json'), 'the document is the service’s own');
    assert.ok(requested.some((path) => path.startsWith('/docs/assets/swagger-ui/')), 'Swagger UI is served by the service');

    assert.deepEqual(watched.foreignRequests, [], 'requests to other hosts');
    assert.deepEqual(await watched.cspViolations(), [], 'Content-Security-Policy violations');
    assert.deepEqual(watched.consoleErrors, [], 'console errors');
    await watched.close();
  });

  it('tries an operation with its example and a test key, and shows the answer', async () => {
    const watched = await openPage(browser);
    const { page } = watched;
    await page.goto(`${h.url}/docs`);
    await page.locator('.opblock-summary-control').first().waitFor({ timeout: 20_000 });

    await page.getByRole('button', { name: /Authorize/ }).first().click();
    await page.locator('.modal-ux input').first().fill(h.keys.test);
    await page.locator('.modal-ux button.authorize').first().click();
    await page.locator('.modal-ux button.btn-done').first().click();

    const operation = page.locator('#operations-SVG-createGeneration');
    await operation.locator('.opblock-summary-control').click();
    // The request examples are offered by name.
    await operation.locator('option', { hasText: 'Two drafts from a prompt' }).first().waitFor({ state: 'attached' });
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const answer = page.waitForResponse((response) => response.url().endsWith('/v1/svgs/generations'));
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = await answer;
    assert.equal(response.status(), 200);
    await operation.locator('.live-responses-table .response-col_status', { hasText: '200' }).first().waitFor();
    assert.match(await operation.locator('.live-responses-table').innerText(), /data-sandbox/);

    // The key given to Swagger UI stays in the tab too.
    assert.deepEqual(await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]'), [0, 0, '']);
    assert.deepEqual(watched.foreignRequests, [], 'requests to other hosts');
    assert.deepEqual(await watched.cspViolations(), [], 'Content-Security-Policy violations');
    await watched.close();
  });
});

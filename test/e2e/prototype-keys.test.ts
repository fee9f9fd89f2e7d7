import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.ts';

describe('JSON bodies with prototype-altering keys', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const send = (rawBody: string) =>
    h.request('POST', '/v1/svgs/generations', { rawBody, headers: { 'content-type': 'application/json' } });

  const refused = (response: Awaited<ReturnType<typeof send>>, key: RegExp) => {
    assert.equal(response.status, 400);
    assert.deepEqual(Object.keys(response.json).sort(), ['code', 'message', 'request_id', 'status']);
    assert.equal(response.json.code, 'invalid_request');
    assert.match(response.json.message, key);
    assert.match(response.json.message, /not accepted \(it could alter object prototypes\)/);
    assert.doesNotMatch(response.json.message, /not valid JSON/);
    assert.equal(response.headers.get('x-request-id'), response.json.request_id);
  };

  it("refuses a '__proto__' key and says which key and why", { timeout: 10_000 }, async () => {
    refused(await send('{"model":"local-svg","prompt":"a cat","__proto__":{"n":16}}'), /^The request body contains a '__proto__' key, /);
  });

  it("names a nested '__proto__' key, even written with a JSON escape", { timeout: 10_000 }, async () => {
    refused(await send('{"model":"local-svg","prompt":"a cat","references":[{},{"\\u005f_proto__":1}]}'), /a '__proto__' key in 'references\[1\]'/);
  });

  it("refuses 'constructor.prototype' and says why", { timeout: 10_000 }, async () => {
    refused(
      await send('{"model":"local-svg","prompt":"a cat","settings":{"constructor":{"prototype":{"n":16}}}}'),
      /a 'constructor' key holding a 'prototype' in 'settings'/,
    );
  });

  it('still calls JSON that does not parse invalid JSON', { timeout: 10_000 }, async () => {
    const response = await send('{"model":"local-svg","__proto__":');
    assert.equal(response.status, 400);
    assert.equal(response.json.code, 'invalid_request');
    assert.equal(response.json.message, 'The request body is not valid JSON.');
  });
});

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.ts';

describe('the cap on request bytes being received at once', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { server: { body_bytes_in_flight: 1_048_576 } } });
  });
  after(() => h.close());

  const body = (size: number) => {
    const prefix = '{"model":"local-svg","prompt":"';
    const suffix = '"}';
    return prefix + 'x'.repeat(size - prefix.length - suffix.length) + suffix;
  };
  /** 180 kB on the wire but only 30 000 characters of prompt: JSON escapes count against the budget. */
  const escaped = `{"model":"local-svg","prompt":"${'\\u00e9'.repeat(30_000)}"}`;

  it('refuses a body that does not fit with 429 and Retry-After, and frees the bytes when a request ends', async () => {
    // A slow upload that holds 900 kB of the 1 MiB budget.
    const slow = body(900_000);
    const held = httpRequest(`${h.url}/v1/svgs/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.test}`, 'content-type': 'application/json', 'content-length': String(slow.length) },
    });
    const heldResponse = new Promise<number>((resolve, reject) => {
      held.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      held.on('error', reject);
    });
    held.write(slow.slice(0, 1000));
    await new Promise((r) => setTimeout(r, 100));

    const refused = await h.request('POST', '/v1/svgs/generations', { rawBody: escaped, headers: { 'content-type': 'application/json' } });
    assert.equal(refused.status, 429);
    assert.equal(refused.json.code, 'rate_limit_exceeded');
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal(refused.json.retry_after, 1);

    held.end(slow.slice(1000));
    assert.equal(await heldResponse, 413, 'a 900 kB prompt is over the prompt bound');

    const admitted = await h.request('POST', '/v1/svgs/generations', { rawBody: escaped, headers: { 'content-type': 'application/json' } });
    assert.equal(admitted.status, 200, admitted.text.slice(0, 300));
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OrganizationBalance } from '../../src/contract/balance.ts';
import { SvgResponse } from '../../src/contract/svgs.ts';
import { expectedTokenCharge, ledgerTotals, PAID_CONFIG } from '../helpers/billing.ts';
import { SQUARE_SVG, TINY_PNG_BASE64 } from '../helpers/fixtures.ts';
import { BACKENDS, startHarness, type Harness } from '../helpers/harness.ts';
import { assertError, assertMatches } from '../helpers/schemas.ts';
import { readStream } from '../helpers/sse.ts';

const CREDIT = 1000; // millicents per credit (default)

for (const { backend, skip } of BACKENDS) {
  describe(`billing on ${backend}`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ backend, config: { ...PAID_CONFIG, sandbox: { slow_stream_delay_ms: 150 } } });
    });
    after(() => h.close());

    const live = (path: string, body: object, headers?: Record<string, string>) =>
      h.request('POST', path, { key: h.keys.live, body, headers });
    const stream = (key: string, path: string, body: object) =>
      readStream(`${h.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, stream: true }),
      });
    const totals = () => ledgerTotals(h.store, h.organizationId);

    it('a generation debits n × svg_generate, and the response credits equal the debit', async () => {
      const before = await totals();
      const response = await live('/v1/svgs/generations', { model: 'paid-fixed', prompt: 'a kite', n: 3 });
      assert.equal(response.status, 200);
      assertMatches(SvgResponse, response.json);
      assert.equal(response.json.credits, 9);
      const after = await totals();
      assert.equal(before.balance - after.balance, 9 * CREDIT);
      assert.equal(after.reserved, 0, 'nothing stays reserved');
      const entries = (await h.store.ledger.entries(h.organizationId, 5)).filter((e) => e.request_id === response.headers.get('x-request-id'));
      assert.deepEqual(entries.map((e) => e.kind).sort(), ['reserve', 'settle']);
      const settle = entries.find((e) => e.kind === 'settle')!;
      assert.equal(settle.amount_millicents, -9 * CREDIT);
      assert.equal(settle.model, 'paid-fixed');
      assert.equal(settle.operation, 'svg_generate');
      assert.match(settle.key_id ?? '', /^key_/);
    });

    it('vectorizations, edits and animations debit their own catalog rate once', async () => {
      const cases = [
        ['/v1/svgs/vectorizations', { model: 'paid-fixed', image: { base64: TINY_PNG_BASE64 } }, 2],
        ['/v1/svgs/edits', { model: 'paid-fixed', prompt: 'make it blue', svg: SQUARE_SVG }, 5],
        ['/v1/svgs/animations', { model: 'paid-fixed', svg_source: { base64: Buffer.from(SQUARE_SVG).toString('base64') } }, 7],
      ] as const;
      for (const [path, body, credits] of cases) {
        const before = await totals();
        const response = await live(path, body);
        assert.equal(response.status, 200, `${path} ${response.text}`);
        assert.equal(response.json.credits, credits, path);
        assert.equal(before.balance - (await totals()).balance, credits * CREDIT, path);
      }
    });

    it('a partial batch bills only the documents delivered', async () => {
      const before = await totals();
      const response = await live('/v1/svgs/generations', { model: 'paid-fixed', prompt: 'boats [mock:partial]', n: 4 });
      assert.equal(response.status, 200);
      assert.equal(response.json.data.length, 2);
      assert.equal(response.json.credits, 6);
      assert.equal(before.balance - (await totals()).balance, 6 * CREDIT);
    });

    it('a request that fails before delivering anything costs nothing and leaves nothing reserved', async () => {
      const before = await totals();
      const response = await live('/v1/svgs/generations', { model: 'paid-fixed', prompt: 'x [mock:error=model_error]', n: 2 });
      assertError(response, { status: 502, code: 'model_error' });
      assert.deepEqual(await totals(), before);
      const entries = (await h.store.ledger.entries(h.organizationId, 5)).filter((e) => e.request_id === response.headers.get('x-request-id'));
      assert.deepEqual(entries.map((e) => e.kind).sort(), ['release', 'reserve']);
    });

    it('a stream bills each output whose content event was sent, with credits on each content event', async () => {
      const before = await totals();
      const full = await stream(h.keys.live, '/v1/svgs/generations', { model: 'paid-fixed', prompt: 'hills', n: 2 });
      const contents = full.events.filter((e) => e.event === 'content').map((e) => JSON.parse(e.data));
      assert.equal(contents.length, 2);
      assert.deepEqual(contents.map((c) => c.credits), [3, 3]);
      const middle = await totals();
      assert.equal(before.balance - middle.balance, 6 * CREDIT);

      const partial = await stream(h.keys.live, '/v1/svgs/generations', { model: 'paid-fixed', prompt: 'hills [mock:partial]', n: 4 });
      assert.equal(partial.events.filter((e) => e.event === 'content').length, 2);
      assert.equal(partial.events.at(-2)?.event, 'error');
      const after = await totals();
      assert.equal(middle.balance - after.balance, 6 * CREDIT);
      assert.equal(after.reserved, 0);
    });

    it('a client that disconnects mid-stream pays only for the outputs it was sent', async () => {
      const before = await totals();
      const controller = new AbortController();
      const response = await fetch(`${h.url}/v1/svgs/generations`, {
        method: 'POST',
        signal: controller.signal,
        headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'paid-fixed', prompt: 'slow [mock:slow-stream]', n: 3, stream: true }),
      });
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('event: content')) text += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      // The server settles when it notices the disconnect.
      let after = await totals();
      for (let i = 0; i < 100 && after.reserved !== 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        after = await totals();
      }
      assert.equal(after.reserved, 0, 'the reservation was closed');
      assert.equal(before.balance - after.balance, 3 * CREDIT, 'one output of 3 credits');
    });

    it('token-priced models settle measured usage at the model rates, carrying sub-millicent remainders, and omit credits', async () => {
      let remainder = BigInt((await h.store.organizations.get(h.organizationId))!.token_remainder);
      for (const prompt of ['a small red fox', 'an owl on a branch at night, detailed']) {
        const before = await totals();
        const response = await live('/v1/svgs/generations', { model: 'paid-tokens', prompt });
        assert.equal(response.status, 200);
        assert.ok(!('credits' in response.json), 'token-priced responses omit credits');
        const usage = response.json.usage;
        assert.ok(usage.input_tokens > 0 && usage.output_tokens > 0);
        const expected = expectedTokenCharge(usage, remainder);
        remainder = expected.remainder;
        assert.equal(before.balance - (await totals()).balance, expected.millicents);
        assert.equal(BigInt((await h.store.organizations.get(h.organizationId))!.token_remainder), remainder);
      }
    });

    it('a token-priced request never costs more than its reservation (max_output_tokens bounds it)', async () => {
      const before = await totals();
      const response = await live('/v1/svgs/generations', { model: 'paid-tokens', prompt: 'tiny', max_output_tokens: 1 });
      assert.equal(response.status, 200);
      const reserve = (await h.store.ledger.entries(h.organizationId, 5)).find(
        (e) => e.kind === 'reserve' && e.request_id === response.headers.get('x-request-id'),
      )!;
      const charged = before.balance - (await totals()).balance;
      assert.ok(charged <= reserve.reserved_delta_millicents, `${charged} ≤ ${reserve.reserved_delta_millicents}`);
    });

    it('test keys never touch the balance', async () => {
      const before = await totals();
      const response = await h.request('POST', '/v1/svgs/generations', { body: { model: 'paid-fixed', prompt: 'free', n: 5 } });
      assert.equal(response.status, 200);
      assert.equal(response.json.credits, 15, 'the sandbox shows what it would cost');
      assert.deepEqual(await totals(), before);
    });

    it('402 insufficient_credits when the balance cannot cover the most a request can cost; nothing changes', async () => {
      const org = await h.store.organizations.create('Small', 5 * CREDIT);
      const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
      const before = await ledgerTotals(h.store, org.id);
      const response = await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-fixed', prompt: 'x', n: 2 } });
      assertError(response, { status: 402, code: 'insufficient_credits' });
      assert.deepEqual(await ledgerTotals(h.store, org.id), before);
      assert.equal((await h.store.ledger.entries(org.id)).length, 1, 'only the starting grant');
      const ok = await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-fixed', prompt: 'x', n: 1 } });
      assert.equal(ok.status, 200);
      assert.equal((await ledgerTotals(h.store, org.id)).balance, 2 * CREDIT);
    });

    it('organization states: frozen → 403 account_frozen on every key; funding states → their 402 on live keys only', async () => {
      const org = await h.store.organizations.create('States', 100 * CREDIT);
      const liveKey = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
      const testKey = await h.createKey({ kind: 'project', environment: 'test', organizationId: org.id });
      const body = { model: 'paid-fixed', prompt: 'x' };
      const cases = [
        ['frozen', 403, 'account_frozen', true],
        ['funding_pending', 402, 'funding_pending', false],
        ['payment_method_required', 402, 'funding_payment_method_required', false],
        ['payment_action_required', 402, 'funding_payment_action_required', false],
        ['payment_failed', 402, 'funding_payment_failed', false],
      ] as const;
      for (const [status, httpStatus, code, blocksTest] of cases) {
        await h.store.organizations.setStatus(org.id, status);
        assertError(await h.request('POST', '/v1/svgs/generations', { key: liveKey, body }), { status: httpStatus, code }, status);
        const sandbox = await h.request('POST', '/v1/svgs/generations', { key: testKey, body });
        if (blocksTest) assertError(sandbox, { status: httpStatus, code }, `${status} (test key)`);
        else assert.equal(sandbox.status, 200, `${status}: the sandbox still answers`);
      }
      assert.equal((await ledgerTotals(h.store, org.id)).balance, 100 * CREDIT, 'nothing was billed');
      await h.store.organizations.setStatus(org.id, 'active');
      assert.equal((await h.request('POST', '/v1/svgs/generations', { key: liveKey, body })).status, 200);
    });

    it('GET /v1/organization/balance: exact shape for admin keys, reservations excluded, other keys 403', async () => {
      const org = await h.store.organizations.create('Balance', 50 * CREDIT);
      const admin = await h.createKey({ kind: 'admin', organizationId: org.id, scopes: ['billing_read'] });
      const liveKey = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
      const read = () => h.request('GET', '/v1/organization/balance', { key: admin });
      const first = await read();
      assert.equal(first.status, 200);
      assertMatches(OrganizationBalance, first.json);
      assert.deepEqual(Object.keys(first.json).sort(), ['available_credits', 'object', 'observed_at', 'organization_id']);
      assert.equal(first.json.available_credits, 50);
      assert.equal(first.json.organization_id, org.id);

      // While a slow stream of 3 outputs holds 9 credits, they are not available.
      const pending = stream(liveKey, '/v1/svgs/generations', { model: 'paid-fixed', prompt: 'slow [mock:slow-stream]', n: 3 });
      let during = await read();
      for (let i = 0; i < 40 && during.json.available_credits === 50; i++) during = await read();
      assert.equal(during.json.available_credits, 41);
      await pending;
      assert.equal((await read()).json.available_credits, 41);

      for (const key of [liveKey, await h.createKey({ kind: 'project', environment: 'test', organizationId: org.id })]) {
        assertError(await h.request('GET', '/v1/organization/balance', { key }), { status: 403, code: 'unauthorized' });
      }
    });

    it('available credits show sub-credit balances exactly (3 decimals) and never go below zero', async () => {
      const org = await h.store.organizations.create('Fractions', 1234);
      const admin = await h.createKey({ kind: 'admin', organizationId: org.id });
      assert.equal((await h.request('GET', '/v1/organization/balance', { key: admin })).json.available_credits, 1.234);
      await h.store.ledger.post(org.id, 'adjustment', -5000, 'correction');
      assert.equal((await h.request('GET', '/v1/organization/balance', { key: admin })).json.available_credits, 0);
    });
  });
}

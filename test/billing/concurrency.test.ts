import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'node:http';
import { ledgerTotals, PAID_CONFIG } from '../helpers/billing.ts';
import { BACKENDS, startHarness, type Harness } from '../helpers/harness.ts';

const REQUESTS = 1000;
const AFFORDABLE = 600;

for (const { backend, skip } of BACKENDS) {
  describe(`1000 concurrent requests against one organization on ${backend}`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ backend, config: PAID_CONFIG });
    });
    after(() => h.close());

    it('never overdraw it and end with the exact expected balance', async () => {
      const org = await h.store.organizations.create('Crowd', AFFORDABLE * 1000);
      const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
      // All 1000 are in flight at once; the agent caps sockets so client and server fit in one process's file limit.
      const agent = new Agent({ keepAlive: true, maxSockets: 200 });
      const post = (body: object) =>
        new Promise<{ status: number; text: string }>((resolve, reject) => {
          const req = request(`${h.url}/v1/svgs/generations`, {
            method: 'POST',
            agent,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          });
          req.on('error', reject);
          req.on('response', (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, text }));
          });
          req.end(JSON.stringify(body));
        });
      try {
        const statuses = await Promise.all(
          Array.from({ length: REQUESTS }, async (_, i) => {
            const response = await post({ model: 'paid-one', prompt: `crowd ${i}`, stream: i % 2 === 0 });
            if (response.status === 402) assert.match(response.text, /insufficient_credits/);
            return response.status;
          }),
        );
        const ok = statuses.filter((s) => s === 200).length;
        const refused = statuses.filter((s) => s === 402).length;
        assert.equal(ok + refused, REQUESTS, `only 200 and 402: ${[...new Set(statuses)]}`);
        assert.equal(ok, AFFORDABLE, 'exactly as many succeed as the balance pays for');
        const totals = await ledgerTotals(h.store, org.id);
        assert.deepEqual(totals, { balance: 0, reserved: 0 });
        const settles = (await h.store.ledger.entries(org.id, 10_000)).filter((e) => e.kind === 'settle');
        assert.equal(settles.length, AFFORDABLE);
      } finally {
        agent.destroy();
      }
    });
  });
}

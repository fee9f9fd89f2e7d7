import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/accounts/principal.ts';
import { Billing } from '../../src/billing/billing.ts';
import { UnsettledHolds } from '../../src/billing/unsettled.ts';
import { Catalog } from '../../src/config/catalog.ts';
import type { CatalogEntry, LimitsConfig } from '../../src/config/schema.ts';
import { ApiError } from '../../src/contract/errors.ts';
import { newId } from '../../src/contract/ids.ts';
import type { Operation } from '../../src/contract/models.ts';
import type { TokenUsage } from '../../src/contract/usage.ts';
import { Counters } from '../../src/limits/counters.ts';
import { Limits } from '../../src/limits/limits.ts';
import { admit, type AdmissionPlan } from '../../src/operations/admission.ts';
import type { OperationContext, OperationDeps } from '../../src/operations/context.ts';
import type { OrganizationStatus } from '../../src/store/tables.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { ledgerTotals } from '../helpers/billing.ts';

// The one admission of every billed operation, on a real SQLite store and in-memory counters:
// standing, then the operation limits, then (live keys) the reservation; and how the run's
// deliveries settle it. Each test has an organization of its own, so its own counters too.

const MPC = 1000; // millicents per credit
/** Millicents per million tokens: 1 per input token (1.25 for the reservation's bound), 2 per output token. */
const RATES = { input: 1_000_000, cached_input: 100_000, cache_write: 1_250_000, output: 2_000_000 };
const LIMITS: LimitsConfig = {
  redis_prefix: 'unused',
  requests: { svg: null, edits: null, animations: null, responses: null, catalog: null },
  outputs: { limit: 4, window_seconds: 60 },
  input_tokens: { limit: 10_000, window_seconds: 60 },
  output_tokens: { limit: 10_000, window_seconds: 60 },
  weekly_requests: null,
};
const entry = (id: string, billing: CatalogEntry['billing']): CatalogEntry => ({
  id,
  engine: 'sandbox',
  owned_by: 'inkwell',
  created: 0,
  operations: ['svg_generate'],
  billing,
  max_references: 0,
  options: {},
});
const catalog = new Catalog([entry('fixed', { kind: 'fixed_credit', credits: { svg_generate: 3 } }), entry('metered', { kind: 'token_usage', rates: RATES })], MPC);

let dataDir: string;
let store: Store;
let limits: Limits;
let deps: OperationDeps;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'inkwell-admission-'));
  store = await openStore({ dataDir });
  limits = new Limits(LIMITS, new Counters('admission-test'), { forOrganization: async () => new Map() });
  // admit reads the billing, the limits and the credit price; it never reaches an engine or the media inputs.
  deps = { catalog, billing: new Billing(store, newId('instance'), new UnsettledHolds()), limits, millicentsPerCredit: MPC, engines: undefined as never, media: undefined as never };
});
after(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  ctx: OperationContext;
  abort(): void;
  ran: [string, Operation][];
  /** What the completion line is told was charged. */
  charged: Promise<number | undefined>[];
}

function run(organizationId: string, environment: 'live' | 'test' = 'live', organizationStatus: OrganizationStatus = 'active'): Run {
  const controller = new AbortController();
  const principal: Principal = { keyId: 'key_admission', organizationId, organizationStatus, kind: 'project', environment, scopes: new Set(['*']), models: '*' };
  const ran: [string, Operation][] = [];
  const charged: Promise<number | undefined>[] = [];
  const ctx: OperationContext = {
    requestId: newId('request'),
    principal,
    signal: controller.signal,
    notes: { ran: (model, operation) => void ran.push([model, operation]), billing: (closed) => void charged.push(closed), failed: () => {}, fellBack: () => {} },
  };
  return { ctx, abort: () => controller.abort(), ran, charged };
}

const plan = (model: string, outputs: number, streaming = false, tokens?: AdmissionPlan['tokens']): AdmissionPlan => ({
  model: catalog.find(model, 'any')!,
  operation: 'svg_generate',
  outputs,
  streaming,
  ...(tokens ? { tokens } : {}),
});

/** What the organization's live limits have left, read by drawing one of each and giving it back. */
async function limitsLeft(organizationId: string) {
  const probe = await limits.admitOperation({ organizationId, environment: 'live' }, { outputs: 1, tokens: { input: 1, output: 1 } });
  await probe.refundAll();
  return Object.fromEntries(probe.outcomes.map((outcome) => [outcome.rule, outcome.state.remaining + outcome.points]));
}
const UNTOUCHED = { outputs: 4, input_tokens: 10_000, output_tokens: 10_000 };

const usage = (inputTokens: number, outputTokens: number): TokenUsage => ({ inputTokens, outputTokens, cachedInputTokens: 0, cacheWriteTokens: 0 });
const organization = async (millicents = 100_000) => (await store.organizations.create('Admission', millicents)).id;
const ledgerKinds = async (organizationId: string) => (await store.ledger.entries(organizationId)).reverse().map((e) => [e.kind, e.amount_millicents, e.reserved_delta_millicents]);

describe('admit: refusals before the reservation change nothing', () => {
  const refusals: [string, OrganizationStatus, number, number, { status: number; code: string }][] = [
    ['a frozen organization', 'frozen', 100_000, 1, { status: 403, code: 'account_frozen' }],
    ['a live key of an organization awaiting funding', 'funding_pending', 100_000, 1, { status: 402, code: 'funding_pending' }],
    ['more outputs than the limit allows', 'active', 100_000, 5, { status: 429, code: 'operation_rate_limit_exceeded' }],
    ['a balance that cannot cover the most the run can cost', 'active', 5_000, 2, { status: 402, code: 'insufficient_credits' }],
  ];
  for (const [name, status, balance, outputs, expected] of refusals) {
    it(`refuses ${name} with ${expected.status} ${expected.code}: no limit drawn, nothing held or charged`, async () => {
      const org = await organization(balance);
      const { ctx } = run(org, 'live', status);
      await assert.rejects(admit(deps, ctx, plan('fixed', outputs)), (error) => error instanceof ApiError && error.status === expected.status && error.code === expected.code && error.param === undefined);
      assert.deepEqual(await ledgerTotals(store, org), { balance, reserved: 0 });
      assert.deepEqual(await ledgerKinds(org), [['grant', balance, 0]]);
      assert.deepEqual(await limitsLeft(org), UNTOUCHED);
    });
  }

  it('admits a test key of an organization awaiting funding, and never touches its balance', async () => {
    const org = await organization();
    const { ctx } = run(org, 'test', 'funding_pending');
    const admitted = await admit(deps, ctx, plan('fixed', 2));
    await admitted.deliver(undefined);
    await admitted.close();
    assert.deepEqual(await ledgerTotals(store, org), { balance: 100_000, reserved: 0 });
  });
});

describe('admit: the reservation and how it closes', () => {
  it('holds the most the run can cost, then charges each delivered output on success', async () => {
    const org = await organization();
    const { ctx, ran, charged } = run(org);
    const admitted = await admit(deps, ctx, plan('fixed', 2));
    assert.deepEqual(ran, [['fixed', 'svg_generate']]);
    assert.deepEqual(await ledgerTotals(store, org), { balance: 100_000, reserved: 2 * 3 * MPC });
    await admitted.deliver(undefined);
    await admitted.deliver(undefined);
    await admitted.close();
    assert.deepEqual(await ledgerTotals(store, org), { balance: 100_000 - 2 * 3 * MPC, reserved: 0 });
    assert.deepEqual(await Promise.all(charged), [6_000]);
  });

  it('gives the whole reservation back when the run fails before delivering anything', async () => {
    const org = await organization();
    const { ctx, charged } = run(org);
    const admitted = await admit(deps, ctx, plan('fixed', 3));
    await admitted.close();
    assert.deepEqual(await ledgerTotals(store, org), { balance: 100_000, reserved: 0 });
    assert.deepEqual(await ledgerKinds(org), [['grant', 100_000, 0], ['reserve', 0, 9_000], ['release', 0, -9_000]]);
    assert.deepEqual(await Promise.all(charged), [0]);
  });

  it('charges a partial batch for what it delivered and releases the rest', async () => {
    const org = await organization();
    const admitted = await admit(deps, run(org).ctx, plan('fixed', 3));
    await admitted.deliver(undefined);
    await admitted.close();
    assert.deepEqual(await ledgerTotals(store, org), { balance: 100_000 - 3 * MPC, reserved: 0 });
  });

  it('writes a stream\'s delivered count before the output is sent, so a crash bills what the client received', async () => {
    const org = await organization();
    const admitted = await admit(deps, run(org).ctx, plan('fixed', 2, true));
    await admitted.deliver(undefined);
    assert.deepEqual((await store.reservations.listOpen(org)).map((reservation) => reservation.delivered_outputs), [1]);
    await admitted.close();
    assert.deepEqual(await ledgerTotals(store, org), { balance: 100_000 - 3 * MPC, reserved: 0 });
  });

  it('charges nothing for a JSON answer whose client left before it was written', async () => {
    const org = await organization();
    const { ctx, abort } = run(org);
    const admitted = await admit(deps, ctx, plan('fixed', 1));
    await admitted.deliver(undefined);
    abort();
    await admitted.close();
    assert.deepEqual(await ledgerTotals(store, org), { balance: 100_000, reserved: 0 });
  });

  it('holds a token-priced run at its bounds, charges the measured usage, and gives back the token limits it did not use', async () => {
    const org = await organization();
    const admitted = await admit(deps, run(org).ctx, plan('metered', 1, false, { inputTokens: 1_000, outputTokens: 500 }));
    // 1000 input tokens at the dearest input rate (1.25) and 500 output tokens at 2, rounded up, plus one.
    assert.deepEqual(await ledgerTotals(store, org), { balance: 100_000, reserved: 1_250 + 1_000 + 1 });
    assert.deepEqual(await limitsLeft(org), { outputs: 3, input_tokens: 9_000, output_tokens: 9_500 });
    await admitted.deliver(usage(100, 50));
    await admitted.close();
    assert.deepEqual(await ledgerTotals(store, org), { balance: 100_000 - (100 + 2 * 50), reserved: 0 });
    assert.deepEqual(await limitsLeft(org), { outputs: 3, input_tokens: 9_900, output_tokens: 9_950 });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { availableCredits, availableMillicents, formatCredits } from '../../src/billing/credits.ts';

// The credit figures people read: the balance endpoint's available_credits, and the credits the
// CLI prints. Millicents are the ledger's integers; 1000 per credit is the default.

const figures = (balance: number, reserved: number) => ({ balance_millicents: balance, reserved_millicents: reserved });

describe('availableMillicents', () => {
  it('is the balance less what open reservations hold, negative after an adjustment below it', () => {
    assert.equal(availableMillicents(figures(10_000, 3_000)), 7_000);
    assert.equal(availableMillicents(figures(1_000, 3_000)), -2_000);
  });
});

describe('availableCredits', () => {
  it('reports what can be spent, in credits', () => {
    assert.equal(availableCredits(figures(10_000, 3_000), 1000), 7);
    assert.equal(availableCredits(figures(5_500, 1_234), 1000), 4.266);
  });

  it('rounds down, so the figure never promises more than can be spent', () => {
    // 1234.56789 credits at 100 000 millicents each: .568 would overstate it.
    assert.equal(availableCredits(figures(123_456_789, 0), 100_000), 1234.567);
    assert.equal(availableCredits(figures(999, 0), 1000), 0.999);
  });

  it('is never negative', () => {
    assert.equal(availableCredits(figures(1_000, 3_000), 1000), 0);
    assert.equal(availableCredits(figures(0, 0), 1000), 0);
  });
});

describe('formatCredits', () => {
  it('writes whole and fractional credits without trailing zeros', () => {
    assert.equal(formatCredits(3_000, 1000), '3');
    assert.equal(formatCredits(1_500, 1000), '1.5');
    assert.equal(formatCredits(1, 1000), '0.001');
    assert.equal(formatCredits(0, 1000), '0');
    assert.equal(formatCredits(-1_500, 1000), '-1.5');
  });

  it('keeps one millicent visible when a credit is worth more than a thousand of them', () => {
    assert.equal(formatCredits(1, 100_000), '0.00001');
    assert.equal(formatCredits(123_456_789, 100_000), '1234.56789');
  });

  it('rounds half up when a credit is not a power of ten millicents', () => {
    // 1/16 of a credit is 0.0625: three decimals, the half rounded up (away from zero for a debit).
    assert.equal(formatCredits(1, 16), '0.063');
    assert.equal(formatCredits(-1, 16), '-0.063');
    assert.equal(formatCredits(1, 3), '0.333');
    assert.equal(formatCredits(2, 3), '0.667');
  });

  it('is exact beyond the precision of a float division', () => {
    // 2^53 - 1 millicents: a float division reads 9007199254740.990 (toFixed) or .99.
    assert.equal(formatCredits(Number.MAX_SAFE_INTEGER, 1000), '9007199254740.991');
  });
});

// Money figures as people read them: millicents (the ledger's integers) shown as credits.

/** The balance columns of an organization. */
export interface BalanceFigures {
  balance_millicents: number;
  reserved_millicents: number;
}

/**
 * Millicents an organization can spend now: the posted balance less what open reservations
 * hold. Negative when an adjustment took the balance below what is held.
 */
export function availableMillicents(organization: BalanceFigures): number {
  return organization.balance_millicents - organization.reserved_millicents;
}

/**
 * Spendable credits as the balance endpoint reports them: never negative (an adjustment can
 * push a balance below zero, but nothing is spendable then), rounded down to 3 decimals so the
 * figure never promises more than can be spent.
 */
export function availableCredits(organization: BalanceFigures, millicentsPerCredit: number): number {
  const available = availableMillicents(organization);
  if (available <= 0) return 0;
  const thousandths = Math.floor((available * 1000) / millicentsPerCredit);
  return thousandths / 1000;
}

/**
 * Millicents as credits, exactly when a credit is a power of ten millicents: as many decimals as
 * one millicent needs (at least 3), so 1 millicent at 100 000 per credit is 0.00001, not 0.
 */
export function formatCredits(millicents: number, millicentsPerCredit: number): string {
  const digits = Math.max(3, Math.ceil(Math.log10(millicentsPerCredit)));
  const scale = 10n ** BigInt(digits);
  const per = BigInt(millicentsPerCredit);
  // Rounded half up to `digits` decimals.
  const scaled = (BigInt(Math.abs(millicents)) * scale * 2n + per) / (2n * per);
  const fraction = (scaled % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  const sign = millicents < 0 && scaled !== 0n ? '-' : '';
  return `${sign}${scaled / scale}${fraction ? `.${fraction}` : ''}`;
}

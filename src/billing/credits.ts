/**
 * Spendable credits as the balance endpoint reports them: never negative (an adjustment can
 * push a balance below zero, but nothing is spendable then), rounded down to 3 decimals so the
 * figure never promises more than can be spent.
 */
export function availableCredits(availableMillicents: number, millicentsPerCredit: number): number {
  if (availableMillicents <= 0) return 0;
  const thousandths = Math.floor((availableMillicents * 1000) / millicentsPerCredit);
  return thousandths / 1000;
}

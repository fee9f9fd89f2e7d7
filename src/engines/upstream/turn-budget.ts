import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * How long the answers being read may hold one turn of the event loop, all of them together.
 * Ten fast upstream calls that each took a few milliseconds per turn would hold it for ten
 * times that; sharing one budget keeps /healthz, timers and every other request within a few
 * milliseconds of their turn however many answers stream at once.
 */
const BUDGET_MS = 4;

let windowStart = 0;
let windowOpen = false;

const closeWindow = () => {
  windowOpen = false;
};

/**
 * Whether this turn's reading has used up the budget (the caller then goes on at the next turn).
 * A window opens with the first check of a turn and closes at the turn's check phase (a
 * setImmediate), so callers that resume there get a fresh budget.
 */
export function overBudget(): boolean {
  const now = performance.now();
  if (!windowOpen) {
    windowOpen = true;
    windowStart = now;
    setImmediate(closeWindow);
    return false;
  }
  return now - windowStart >= BUDGET_MS;
}

/** Waits for the next turn of the event loop when this turn's budget is spent; otherwise returns at once. */
export function yieldIfBusy(): Promise<void> | undefined {
  return overBudget() ? nextTurn() : undefined;
}

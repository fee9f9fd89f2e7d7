import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { yieldIfBusy } from '../../../src/engines/upstream/turn-budget.ts';

/** Keeps the thread busy for `ms`: work that holds the event loop, as reading an answer does. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the turn budget shared by every answer being read', () => {
  it('lets work go on within a turn, then sends it to the next turn once the turn has been busy for the budget', async () => {
    await nextTurn(); // a fresh turn
    assert.equal(yieldIfBusy(), undefined, 'the first check of a turn opens its budget');
    busyFor(1);
    assert.equal(yieldIfBusy(), undefined, 'within the budget');
    busyFor(5);
    const wait = yieldIfBusy();
    assert.ok(wait instanceof Promise, 'past the budget: wait for the next turn');
    await wait;
    assert.equal(yieldIfBusy(), undefined, 'the next turn has a budget of its own');
  });

  it('is one budget for all callers: a second reader in a spent turn waits too', async () => {
    await nextTurn();
    yieldIfBusy(); // the first reader
    busyFor(5);
    assert.ok(yieldIfBusy() instanceof Promise, 'the first reader waits');
    assert.ok(yieldIfBusy() instanceof Promise, 'and so does any other in the same turn');
  });
});

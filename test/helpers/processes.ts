import assert from 'node:assert/strict';

/** Whether a process with this id is still running (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `condition` holds, polling every `pollMs`; fails past `ms`. Returns how long it took. */
export async function waitFor(condition: () => boolean, ms = 5000, pollMs = 10): Promise<number> {
  const start = Date.now();
  for (const end = start + ms; Date.now() < end; ) {
    if (condition()) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  assert.ok(condition(), 'condition not met in time');
  return Date.now() - start;
}

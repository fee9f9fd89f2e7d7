// The API key lives in this module's variable and nowhere else: not in localStorage,
// sessionStorage, cookies or the URL. Closing or reloading the tab forgets it.

let key = null;

export function useKey(value) {
  const trimmed = String(value ?? '').trim();
  key = trimmed === '' ? null : trimmed;
}

export function forgetKey() {
  key = null;
}

export function currentKey() {
  return key;
}

/** A test key runs the sandbox, the only engine that reads `[mock:…]` directives. */
export function isTestKey() {
  return key?.startsWith('sk_test_') === true;
}

/** Enough of the key to recognize it ("sk_test_…f3Qa"), never the whole secret. */
export function keyHint() {
  if (!key) return '';
  const prefix = /^sk_[a-z]+_/.exec(key)?.[0] ?? key.slice(0, 3);
  return `${prefix}…${key.slice(-4)}`;
}

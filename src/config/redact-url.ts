/** A connection URL fit for log lines: its password masked; `fallback` when it does not parse. */
export function redactUrl(url: string, fallback: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return fallback;
  }
}

// How commands talk to the terminal: a human table or, with --json, one JSON document.
import { cliIo } from './io.ts';

/** A failure the user caused or can fix: printed as its message alone, exit code 1. */
export class CliError extends Error {
  override name = 'CliError';
}

export interface Output {
  json: boolean;
  print(human: string, data: unknown): void;
}

export function output(json: boolean | undefined): Output {
  return {
    json: !!json,
    print(human, data) {
      cliIo().stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);
    },
  };
}

export function table(rows: Record<string, string | number | null>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? '-')));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

/** "12.5" credits → 12500 millicents (when a credit is 1000), refusing amounts that are not exact. */
export function parseCredits(raw: string, millicentsPerCredit: number, { allowZero = false } = {}): number {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(raw.trim());
  if (!match) throw new CliError(`"${raw}" is not a credit amount (e.g. 100 or 12.5)`);
  const fraction = match[2] ?? '';
  const scale = 10n ** BigInt(fraction.length);
  const scaled = (BigInt(match[1]!) * scale + BigInt(fraction || '0')) * BigInt(millicentsPerCredit);
  if (scaled % scale !== 0n) throw new CliError(`${raw} credits is not a whole number of millicents`);
  const millicents = scaled / scale;
  if (millicents > BigInt(Number.MAX_SAFE_INTEGER)) throw new CliError(`${raw} credits is too large`);
  if (millicents === 0n && !allowZero) throw new CliError('the amount must be more than zero');
  return Number(millicents);
}

export function formatTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Why a file could not be read or written, in words (the system's codes are for programmers). */
const FILE_FAILURES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
};

/** `cannot read PATH: no such file` (or write): the message of a failed file access, for stderr. */
export function fileFailure(access: 'read' | 'write', path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  // A missing path is the file when reading, its folder when writing (the file is to be created).
  const missing = access === 'read' ? 'no such file' : 'no such directory';
  const why = code === 'ENOENT' ? missing : code !== undefined && Object.hasOwn(FILE_FAILURES, code) ? FILE_FAILURES[code]! : (error as Error).message;
  return `cannot ${access} ${path}: ${why}`;
}


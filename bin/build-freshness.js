// Whether dist/ is a build of the src/ beside it. Read by bin/inkwell.js (run dist/, or the sources
// when it is not) and by scripts/build.mjs (skip the compiler when nothing changed). Plain
// JavaScript: it runs before anything is compiled.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Written by a successful build; its modification time is when that build started. */
export const BUILD_STAMP = join('dist', '.build-started');

/** Files outside src/ that change what the build produces. */
const BUILD_INPUTS = ['tsconfig.json', 'tsconfig.build.json'];

/**
 * Every file and folder under `dir`, and `dir` itself: a folder's time changes when an entry is
 * added, removed or renamed, so a deleted source counts as a change too.
 */
function entriesUnder(dir) {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  return [dir, ...entries.map((entry) => join(entry.parentPath ?? entry.path, entry.name))];
}

/**
 * Why dist/ under `root` is not a build of the sources there, or undefined when it is. Without a
 * src/ (a container image) dist/ is all there is, and only its stamp is checked.
 */
export function staleBuildReason(root) {
  const stamp = join(root, BUILD_STAMP);
  if (!existsSync(stamp)) return 'dist/ has not been built';
  const sources = join(root, 'src');
  if (!existsSync(sources)) return undefined;
  const builtAt = statSync(stamp).mtimeMs;
  const inputs = [...entriesUnder(sources), ...BUILD_INPUTS.map((name) => join(root, name)).filter(existsSync)];
  // An entry that vanished between the listing and its stat was just changed too.
  const changed = inputs.find((path) => (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) > builtAt);
  return changed === undefined ? undefined : `${relative(root, changed)} changed since the last build`;
}

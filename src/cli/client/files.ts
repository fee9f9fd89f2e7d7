import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';

/** How many numbered alternatives to try when a name is taken, before giving up. */
const MAX_ALTERNATIVES = 100;
/** Filesystems that cannot hard-link (some network and FUSE mounts) answer with one of these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/** Creates the output directory up front, so that no paid output is lost to a missing folder. */
export async function ensureDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/** `name.svg`, then `name.1.svg`, `name.2.svg`… */
function alternative(name: string, attempt: number): string {
  if (attempt === 0) return name;
  const extension = extname(name);
  return `${basename(name, extension)}.${attempt}${extension}`;
}

/**
 * Writes a file that appears complete or not at all, and never replaces an existing one: the
 * contents go to a temporary file in the same directory (flushed to disk), which is then
 * hard-linked under the final name (link, unlike rename, fails when the name exists). A taken
 * name moves on to `name.1.svg`, `name.2.svg`… Returns the path written.
 */
export async function writeNewFile(dir: string, name: string, contents: string): Promise<string> {
  const temporary = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx');
  try {
    await handle.writeFile(contents);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    for (let attempt = 0; attempt <= MAX_ALTERNATIVES; attempt++) {
      const path = join(dir, alternative(name, attempt));
      try {
        await link(temporary, path);
        return path;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (NO_HARD_LINKS.has(code)) {
          if (await exists(path)) continue;
          // Without hard links the check and the rename are two steps: the best this filesystem allows.
          await rename(temporary, path);
          return path;
        }
        if (code !== 'EEXIST') throw error;
      }
    }
    throw new Error(`${join(dir, name)} and ${MAX_ALTERNATIVES} numbered alternatives already exist`);
  } finally {
    await rm(temporary, { force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

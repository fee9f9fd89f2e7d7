/**
 * The baseline tracer: `traceImage` as it was at a git commit, measured in the same process as
 * the working tree's. src/engines/trace/tracer.ts and every module it imports at run time (followed
 * through relative imports, at that commit) are written with their repository layout into
 * .cache/baseline-<commit>/, then imported from there. Bare imports (sharp, @neplex/vectorizer)
 * resolve upwards to the repository's node_modules, so the old code runs on today's dependencies;
 * `import type` statements are erased by tsx and their targets are not needed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RgbaImage } from '../../src/engines/trace/pixels.ts';
import type { ReasoningEffort } from '../../src/contract/common.ts';
import { BENCH_DIR, CACHE_DIR } from './build-set.ts';

const ROOT = join(BENCH_DIR, '..', '..');
const ENTRY = 'src/engines/trace/tracer.ts';

/** The part of traceImage's signature the benchmark uses, which any version must keep. */
export type TraceImage = (image: RgbaImage, options: { effort: ReasoningEffort }) => Promise<{ svg: string }>;

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).toString();

// Value imports and re-exports (`import x from '…'`, `import { a, type B } from '…'`,
// `export * from '…'`, `import '…'`); a statement starting `import type` / `export type` is
// skipped. The middle part allows only what an import list holds, so a match cannot run on
// into code.
const IMPORT = /^[ \t]*(?:import|export)(?![ \t]+type[ \t{])[\w\s{},*$]*?['"]([^'"]+)['"]/gm;

/** Relative imports of one source file, as repository paths. */
function imports(path: string, source: string): string[] {
  return [...source.matchAll(IMPORT)].map((m) => m[1]!).filter((s) => s.startsWith('.')).map((s) => posix.join(posix.dirname(path), s));
}

/** Extracts the tracer at `ref` (once per commit) and imports its traceImage. */
export async function loadBaseline(ref: string): Promise<{ commit: string; traceImage: TraceImage }> {
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', '--short=7', `${ref}^{commit}`).trim();
  } catch {
    throw new Error(`--baseline=${ref}: not a commit in this repository`);
  }
  // Named by commit, not by ref: a branch name moves, a commit's files never change.
  const dir = join(CACHE_DIR, `baseline-${commit}`);
  if (!existsSync(dir)) {
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    const seen = new Set<string>();
    const queue = [ENTRY];
    while (queue.length > 0) {
      const path = queue.pop()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const source = git('show', `${commit}:${path}`);
      mkdirSync(dirname(join(tmp, path)), { recursive: true });
      writeFileSync(join(tmp, path), source);
      queue.push(...imports(path, source));
    }
    // Complete or absent: a run stopped midway leaves only its .tmp folder. Another run may have
    // finished the same extraction meanwhile; its copy is identical.
    try {
      renameSync(tmp, dir);
    } catch (error) {
      if (!existsSync(dir)) throw error;
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const module = (await import(pathToFileURL(join(dir, ENTRY)).href)) as { traceImage?: TraceImage };
  if (typeof module.traceImage !== 'function') throw new Error(`--baseline=${ref}: ${ENTRY} exports no traceImage`);
  return { commit, traceImage: module.traceImage };
}

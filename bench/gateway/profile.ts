/** Self time per function and per file from V8 .cpuprofile files (node --cpu-prof). */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

/** Short location: a package name and file, or a path relative to the repository. */
function where(url: string, root: string): string {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + '/node_modules/'.length);
  return path.startsWith(root) ? path.slice(root.length + 1) : path;
}

/** The monotonic clock V8 stamps profile samples with (CLOCK_MONOTONIC, µs): the same in every process. */
export const nowMicros = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * Self times of the busy samples taken inside `windows` (µs, nowMicros()'s clock): start-up,
 * warm-up and idle left out. Samples are wall-clock intervals: on a core shared with the render
 * worker they also hold the time the worker ran, so they add up to a bit more than the CPU time.
 */
export function selfTimes(files: string[], root: string, windows: Array<[number, number]>): { functions: SelfTime[]; files: SelfTime[]; totalMs: number } {
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    // timeDeltas[i] is the time before sample i; attribute it to that sample's node (V8's own convention).
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      at += profile.timeDeltas[i] ?? 0;
      if (!windows.some(([from, to]) => at >= from && at <= to)) continue;
      const node = nodes.get(profile.samples[i]!)!;
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      const { functionName, url, lineNumber } = node.callFrame;
      // Waiting is not cost (the loader-hooks thread of tsx, profiled too, only waits).
      if (functionName === '(idle)') continue;
      const location = where(url, root);
      const fn = `${functionName || '(anonymous)'}${location ? ` ${location}:${lineNumber + 1}` : ''}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
      // Packages by name, our files by path, V8's own entries ((garbage collector), (idle)…) by name.
      const pkg = url.includes('/node_modules/') ? /^(@[^/]+\/[^/]+|[^/]+)/.exec(location)?.[1] : undefined;
      const key = pkg ?? (location || functionName);
      byFile.set(key, (byFile.get(key) ?? 0) + ms);
      total += ms;
    }
  }
  const sorted = (map: Map<string, number>) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).map(([name, ms]) => ({ name, ms, share: total > 0 ? ms / total : 0 }));
  return { functions: sorted(byFunction), files: sorted(byFile), totalMs: total };
}

/**
 * Linux /proc helpers of the gateway benchmark: CPU time of a process and of its descendants
 * (the render worker processes the server forks), and CPU pinning.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

interface Stat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime, in clock ticks. */
  own: number;
  /** cutime + cstime: children that ended and were waited for, in clock ticks. */
  reaped: number;
}

function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone
  }
  // comm is in parentheses and may hold spaces or parentheses: split after the last ')'.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const rest = text.slice(close + 2).split(' '); // rest[0] is field 3 (state)
  const field = (n: number) => Number(rest[n - 3]);
  return { pid, comm, ppid: field(4), own: field(14) + field(15), reaped: field(16) + field(17) };
}

/** Every live descendant of `root` (children, their children…). */
function descendants(root: number): Stat[] {
  const all: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) all.push(stat);
  }
  const out: Stat[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const stat of all) {
      if (parents.has(stat.ppid) && !parents.has(stat.pid)) {
        parents.add(stat.pid);
        out.push(stat);
        grew = true;
      }
    }
  }
  return out;
}

export interface CpuSample {
  /** The server process itself (all its threads), ms. */
  serverMs: number;
  /** Its descendants, live and reaped, ms. */
  childrenMs: number;
  /** Live descendants' ids, names and own CPU time (ms), to report and to clean up. */
  children: { pid: number; comm: string; ms: number }[];
}

/** CPU time so far of a process and of its descendants. */
export function sampleCpu(pid: number): CpuSample {
  const self = readStat(pid);
  if (!self) throw new Error(`process ${pid} is gone`);
  const kids = descendants(pid);
  const toMs = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
  // A descendant's own `reaped` covers its ended children; the server's covers its ended children.
  const childTicks = self.reaped + kids.reduce((sum, kid) => sum + kid.own + kid.reaped, 0);
  return { serverMs: toMs(self.own), childrenMs: toMs(childTicks), children: kids.map((kid) => ({ pid: kid.pid, comm: kid.comm, ms: toMs(kid.own + kid.reaped) })) };
}

/** The CPUs this process may run on, as the kernel lists them ("1", "0-1"). */
export function allowedCpus(): string {
  const status = readFileSync('/proc/self/status', 'utf8');
  return /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1] ?? '?';
}

/** Pins this process, every thread of it (and so the threads it starts later), to `cpu`. */
export function pinSelf(cpu: number): void {
  if (allowedCpus() === String(cpu)) return;
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', String(cpu), String(process.pid)], { stdio: 'ignore' });
  if (allowedCpus() !== String(cpu)) throw new Error(`could not pin the bench process to core ${cpu}`);
}

/** CPU time all processes of the machine have used so far (every core, from /proc/stat), ms. */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user! + nice! + system! + irq! + softirq! + steal!) * 1000) / TICKS_PER_SECOND;
}

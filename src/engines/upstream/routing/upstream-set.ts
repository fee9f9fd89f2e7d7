import { ApiError } from '../../../contract/errors.ts';
import type { UpstreamClient } from '../client.ts';
import type { UpstreamLog } from '../log.ts';
import type { UpstreamStatus } from '../../../contract/upstreams.ts';
import { UpstreamHealth, type AttemptVerdict, type HealthPolicy } from './health.ts';

/** One server of an entry, as the routing sees it. */
export interface UpstreamMember {
  readonly name: string;
  /** The model name this server knows (the request body's `model`). */
  readonly model: string;
  readonly client: UpstreamClient;
  readonly log: UpstreamLog;
  readonly weight: number;
  readonly maxConcurrency: number;
}

/** Told when an upstream goes out or comes back (metrics, the log). */
export interface RoutingObserver {
  ejected(member: UpstreamMember, ms: number): void;
  restored(member: UpstreamMember): void;
}

/** One attempt's hold on a server: `end` once, with what the attempt said about it. */
export interface Lease {
  readonly member: UpstreamMember;
  end(verdict: AttemptVerdict): void;
}

class Slot {
  inFlight = 0;
  /** Calls given since the set last changed (a server went out or came back): breaks ties by weight. */
  served = 0;
  checkTimer?: NodeJS.Timeout;
  constructor(
    readonly member: UpstreamMember,
    readonly health: UpstreamHealth,
  ) {}

  /** Calls in flight per unit of weight: the lower, the better placed for the next one. */
  get load(): number {
    return this.inFlight / this.member.weight;
  }

  /** Whether it is better placed than `other`: less load, or as much and fewer calls served for its weight. */
  before(other: Slot): boolean {
    const load = this.load;
    const otherLoad = other.load;
    if (load !== otherLoad) return load < otherLoad;
    return this.served / this.member.weight < other.served / other.member.weight;
  }
}

interface Waiter {
  avoid: ReadonlySet<UpstreamMember> | undefined;
  resolve(lease: Lease): void;
  reject(reason: unknown): void;
  signal: AbortSignal;
  onAbort(): void;
}

/**
 * The servers of one catalog entry. Each call goes to the server that takes calls (healthy, or
 * ready for its one trial) with the fewest in flight for its weight, preferring one the call has
 * not failed on yet; while every such server is at its `max_concurrency` the call waits in line;
 * when none takes calls (every one out) it fails at once with 503 `model_unavailable`, so the
 * entry's fallbacks can serve. Each server's health is kept from what its calls say
 * (UpstreamHealth); with `checkIntervalMs`, a server that is out is asked GET /models until it
 * answers.
 */
export class UpstreamSet {
  private readonly slots: Slot[];
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly modelId: string,
    members: UpstreamMember[],
    policy: HealthPolicy,
    private readonly options: { checkIntervalMs?: number; observer?: RoutingObserver; now?: () => number } = {},
  ) {
    this.slots = members.map((member) => new Slot(member, new UpstreamHealth(policy)));
  }

  get size(): number {
    return this.slots.length;
  }

  /**
   * A server for one attempt, avoiding those in `avoid` while another takes calls: at once when
   * one has room (the common case: no promise made), else in line.
   */
  lease(signal: AbortSignal, avoid?: ReadonlySet<UpstreamMember>): Lease | Promise<Lease> {
    signal.throwIfAborted();
    const now = this.now();
    const slot = this.pick(now, avoid);
    if (slot) return this.grant(slot, now);
    if (!this.anyTakesCalls(now)) throw this.allOut(now);
    return new Promise<Lease>((resolve, reject) => {
      const waiter: Waiter = {
        avoid,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Whether a server other than those in `tried` takes calls now (a failover has somewhere to go). */
  hasOtherThan(tried: ReadonlySet<UpstreamMember>): boolean {
    const now = this.now();
    return this.slots.some((slot) => !tried.has(slot.member) && slot.health.takesCalls(now));
  }

  status(): UpstreamStatus[] {
    const now = this.now();
    return this.slots.map((slot) => {
      const state = slot.health.state(now);
      return {
        model: this.modelId,
        upstream: slot.member.name,
        state,
        inFlight: slot.inFlight,
        ...(state === 'out' ? { returnsAt: slot.health.returnsAt } : {}),
      };
    });
  }

  /** Stops the active checks (the service is closing). */
  close(): void {
    for (const slot of this.slots) clearTimeout(slot.checkTimer);
  }

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }

  /**
   * The best placed server with room: one not avoided if any such has room, then the lowest load
   * (calls in flight for its weight); on a tie the fewest calls served for its weight, so
   * one-at-a-time traffic is shared by weight too.
   */
  private pick(now: number, avoid: ReadonlySet<UpstreamMember> | undefined): Slot | undefined {
    let best: Slot | undefined;
    let bestAvoided = true;
    for (const slot of this.slots) {
      if (slot.inFlight >= slot.member.maxConcurrency || !slot.health.takesCalls(now)) continue;
      const avoided = avoid?.has(slot.member) ?? false;
      if (!best || (bestAvoided && !avoided) || (avoided === bestAvoided && slot.before(best))) {
        best = slot;
        bestAvoided = avoided;
      }
    }
    return best;
  }

  private anyTakesCalls(now: number): boolean {
    return this.slots.some((slot) => slot.health.takesCalls(now) || (slot.health.state(now) === 'trial' && slot.inFlight > 0));
  }

  private allOut(now: number): ApiError {
    const returnsAt = Math.min(...this.slots.map((slot) => slot.health.returnsAt));
    const retryAfter = Math.max(1, Math.ceil((returnsAt - now) / 1000));
    const servers = this.slots.length === 1 ? "The model's server is" : "Every server of this model is";
    return new ApiError('model_unavailable', { message: `${servers} out after failing; retry after the indicated time.`, retryAfter });
  }

  private grant(slot: Slot, now: number): Lease {
    slot.inFlight++;
    slot.served++;
    const trial = slot.health.started(now);
    let ended = false;
    return {
      member: slot.member,
      end: (verdict) => {
        if (ended) return;
        ended = true;
        slot.inFlight--;
        this.settle(slot, verdict, trial);
        this.dispatch();
      },
    };
  }

  private settle(slot: Slot, verdict: AttemptVerdict, trial: boolean): void {
    const now = this.now();
    const wasHealthy = slot.health.state(now) === 'healthy';
    const outMs = slot.health.ended(verdict, trial, now);
    if (outMs > 0) {
      this.options.observer?.ejected(slot.member, outMs);
      this.scheduleCheck(slot);
      this.restartShares();
    } else if (!wasHealthy && slot.health.state(now) === 'healthy') {
      clearTimeout(slot.checkTimer);
      this.options.observer?.restored(slot.member);
      this.restartShares();
    }
  }

  /** The set changed: shares count again from here, so a server back from being out does not take every call until it has caught up. */
  private restartShares(): void {
    for (const slot of this.slots) slot.served = 0;
  }

  /** Hands freed room to the calls in line, in order; when no server takes calls any more, they fail. */
  private dispatch(): void {
    if (this.waiting.length === 0) return;
    const now = this.now();
    while (this.waiting.length > 0) {
      const waiter = this.waiting[0]!;
      const slot = this.pick(now, waiter.avoid);
      if (!slot) {
        if (this.anyTakesCalls(now)) return;
        const error = this.allOut(now);
        for (const w of this.waiting.splice(0)) {
          w.signal.removeEventListener('abort', w.onAbort);
          w.reject(error);
        }
        return;
      }
      this.waiting.shift();
      waiter.signal.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(this.grant(slot, now));
    }
  }

  private scheduleCheck(slot: Slot): void {
    const interval = this.options.checkIntervalMs;
    if (interval === undefined) return;
    clearTimeout(slot.checkTimer);
    slot.checkTimer = setTimeout(() => void this.check(slot, interval), interval);
    slot.checkTimer.unref();
  }

  private async check(slot: Slot, interval: number): Promise<void> {
    if (slot.health.state(this.now()) !== 'out') return;
    if (await slot.member.client.answers(AbortSignal.timeout(interval))) {
      slot.health.checkPassed(this.now());
      this.dispatch();
      return;
    }
    this.scheduleCheck(slot);
  }
}

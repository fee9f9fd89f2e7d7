import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Capacity } from './rules.ts';

/**
 * Where one window's count stands after a consume. A class, not an object literal: a request
 * keeps its states to the end, and Node 20 made that literal (four fields, a number that is not
 * a small integer among them) in dictionary mode, 448 bytes each, twice for every stream open.
 */
export class CounterState {
  constructor(
    readonly allowed: boolean,
    readonly limit: number,
    /** Points left in the window (0 when rejected). */
    readonly remaining: number,
    /** Milliseconds until the window resets. */
    readonly msBeforeReset: number,
  ) {}
}

/**
 * Fixed-window counters on rate-limiter-flexible: in process memory, or in Redis with atomic
 * scripts so every replica shares them (a memory limiter insures against a Redis outage).
 */
export class Counters {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly prefix: string,
    private readonly redis?: Redis,
  ) {}

  private limiter(capacity: Capacity, rule: string): RateLimiterAbstract {
    // The window length is part of the key: an override with another window starts a fresh count.
    const name = `${rule}:${capacity.windowSeconds}`;
    const cacheKey = `${name}:${capacity.limit}`;
    let limiter = this.limiters.get(cacheKey);
    if (!limiter) {
      const options = { points: capacity.limit, duration: capacity.windowSeconds, keyPrefix: `${this.prefix}:${name}` };
      limiter = this.redis
        ? new RateLimiterRedis({ ...options, storeClient: this.redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(options) })
        : new RateLimiterMemory(options);
      this.limiters.set(cacheKey, limiter);
    }
    return limiter;
  }

  async consume(rule: string, subject: string, capacity: Capacity, points: number): Promise<CounterState> {
    try {
      const res = await this.limiter(capacity, rule).consume(subject, points);
      return new CounterState(true, capacity.limit, res.remainingPoints, res.msBeforeNext);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return new CounterState(false, capacity.limit, error.remainingPoints, error.msBeforeNext);
    }
  }

  /**
   * Resolves when Redis answers a PING within the time given; in memory, at once. Without an
   * offline queue a disconnected client fails at once, so the wait bounds only a silent server.
   */
  async ping(timeoutMs: number): Promise<void> {
    if (!this.redis) return;
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.redis.ping(), silence]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Gives points back (a rejected admission, or an estimate larger than the measured usage). */
  async refund(rule: string, subject: string, capacity: Capacity, points: number): Promise<void> {
    if (points <= 0) return;
    await this.limiter(capacity, rule).reward(subject, points);
  }
}

import { Redis } from 'ioredis';
import { redactUrl } from '../config/redact-url.ts';

/**
 * Connects to Redis for the shared limit counters and waits until it answers, so a wrong
 * REDIS_URL stops the start instead of silently falling back to per-process counts.
 */
export async function connectRedis(url: string, timeoutMs = 5000): Promise<Redis> {
  // Without an offline queue a command during an outage fails at once and the memory insurance limiter answers.
  const redis = new Redis(url, { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: timeoutMs });
  redis.on('error', () => undefined); // reconnects on its own; outages are covered by the insurance limiter
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    throw new Error(`Cannot reach Redis at ${redactUrl(url, 'redis')}: ${(error as Error).message}`);
  }
}

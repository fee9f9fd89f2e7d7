import { Redis } from 'ioredis';

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
    throw new Error(`Cannot reach Redis at ${redactRedis(url)}: ${(error as Error).message}`);
  }
}

export function redactRedis(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis';
  }
}

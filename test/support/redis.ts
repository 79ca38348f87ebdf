import { Redis } from 'ioredis'
import { TEST_REDIS_URL } from './services.ts'

/** Runs `use` with a fresh connection to the test Redis, and closes it afterwards. */
export async function withRedis<T>(use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(TEST_REDIS_URL)
  try {
    return await use(redis)
  } finally {
    redis.disconnect()
  }
}

/** Every key under `prefix`, found with SCAN (KEYS would block a busy shared Redis). */
export async function scanKeys(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = []
  for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 })) {
    keys.push(...(batch as string[]))
  }
  return keys
}

/** Deletes every key under `prefix`: what a test leaves behind in the shared Redis. */
export function deleteKeysWithPrefix(prefix: string): Promise<void> {
  return withRedis(async (redis) => {
    const keys = await scanKeys(redis, prefix)
    if (keys.length > 0) await redis.del(...keys)
  })
}

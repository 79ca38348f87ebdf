import { Redis } from 'ioredis'
import postgres from 'postgres'
import { ADMIN_DATABASE_URL, TEST_REDIS_URL } from './services.ts'

/**
 * Vitest's globalSetup: before any test file starts, make sure PostgreSQL and Redis answer, and stop
 * the run at once with one line naming what is missing and how to provide it, instead of a
 * `connect ECONNREFUSED` from every test file.
 */

export interface ServiceTargets {
  databaseUrl: string
  redisUrl: string
}

const DEFAULT_TIMEOUT_MS = 2000

/** How to provide each service: a container on the default port, or a variable pointing elsewhere. */
const REMEDIES = {
  PostgreSQL:
    'start one with `docker run -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15` ' +
    'or set TEST_ADMIN_DATABASE_URL to a PostgreSQL 15+ superuser URL',
  Redis: 'start one with `docker run -d -p 6379:6379 redis:7` or set TEST_REDIS_URL to a Redis URL',
} as const

type Service = keyof typeof REMEDIES

/** host:port of a service URL, never its credentials. */
function where(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname}:${parsed.port || defaultPort}`
  } catch {
    return 'an unparseable URL'
  }
}

function reason(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' ? message.trim().split('\n')[0] : ''
  if (text) return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text
  return typeof code === 'string' ? code : String(error)
}

/** Rejects after `ms` unless `work` settles first. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

async function probePostgres(url: string, timeoutMs: number): Promise<void> {
  const sql = postgres(url, {
    max: 1,
    connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
    onnotice: () => {},
  })
  try {
    await within(timeoutMs, sql`SELECT 1`)
  } finally {
    void sql.end({ timeout: 0 })
  }
}

async function probeRedis(url: string, timeoutMs: number): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  })
  // The first connection error says why (ECONNREFUSED…); connect() itself only says it closed.
  let failure: unknown
  redis.on('error', (error) => {
    failure ??= error
  })
  try {
    await within(
      timeoutMs,
      redis.connect().then(() => redis.ping()),
    )
  } catch (error) {
    throw failure ?? error
  } finally {
    redis.disconnect()
  }
}

/**
 * Probes both services at once (a real `SELECT 1` and `PING`, each bounded by `timeoutMs`) and
 * throws one Error whose message is a single line naming each missing service and its remedy.
 */
export async function checkServices(
  targets: ServiceTargets = { databaseUrl: ADMIN_DATABASE_URL, redisUrl: TEST_REDIS_URL },
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<void> {
  const probes: [Service, string, Promise<void>][] = [
    ['PostgreSQL', where(targets.databaseUrl, 5432), probePostgres(targets.databaseUrl, timeoutMs)],
    ['Redis', where(targets.redisUrl, 6379), probeRedis(targets.redisUrl, timeoutMs)],
  ]
  const outcomes = await Promise.allSettled(probes.map(([, , probe]) => probe))
  const missing = probes.flatMap(([service, address], index) => {
    const outcome = outcomes[index]
    return outcome?.status === 'rejected'
      ? [`${service} at ${address} is unavailable (${reason(outcome.reason)}), ${REMEDIES[service]}`]
      : []
  })
  if (missing.length > 0) {
    const error = new Error(`The tests need PostgreSQL and Redis: ${missing.join('; ')}.`)
    // The message says it all; a stack into this file would only bury it.
    error.stack = error.message
    throw error
  }
}

export async function setup(): Promise<void> {
  await checkServices()
}

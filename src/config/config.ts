import { randomBytes } from 'node:crypto'
import { isIP } from 'node:net'
import proxyAddr from 'proxy-addr'
import { z } from 'zod'

/** Search radius for the nearest data point; the seed data keep every no-data zone this far from any site. */
export const DEFAULT_SEARCH_RADIUS_KM = 10

/**
 * Sites kept in memory by default (~28 MB of heap when full): every site of a data set up to 100,000
 * (the seeded 17,884 included), and the sites of 100,000 distinct places asked for out of millions
 * (docs/deployment.md, "Site data at scale").
 */
export const DEFAULT_SITE_CACHE_SITES = 100_000

/** The job settings when their variables are unset; a server wired without them takes these too. */
export const JOB_DEFAULTS = {
  JOB_WORKERS_IN_SERVER: true,
  JOB_CONCURRENCY: 2,
  JOB_CHUNK_ROWS: 500,
  JOB_ATTEMPTS: 5,
  JOB_LOCK_MS: 30_000,
  /** 7 days. */
  JOB_RESULT_TTL_HOURS: 168,
  JOB_QUEUE_PREFIX: 'survival:bull',
}

/**
 * Which proxies in front of the service are believed about the client's address: none (`false`: the
 * TCP peer is the client), the number of them nearest to us, or their addresses and CIDRs.
 */
export type TrustProxy = false | number | readonly string[]
export type TrustProxyHeader = 'x-forwarded-for' | 'forwarded'

const TRUST_PROXY_FORMS =
  'expected false, a hop count, or proxy addresses and CIDRs separated by commas, e.g. 127.0.0.1/8,10.0.0.0/8'

/** TRUST_PROXY as written → the setting, or why it cannot be one. */
export function parseTrustProxy(value: string): { trust: TrustProxy } | { problem: string } {
  const text = value.trim().toLowerCase()
  if (text === 'false') return { trust: false }
  if (text === 'true')
    return {
      problem: `"true" would believe every hop, so any caller could choose its own address; ${TRUST_PROXY_FORMS}`,
    }
  if (/^\d+$/.test(text)) {
    const hops = Number(text)
    return Number.isSafeInteger(hops) ? { trust: hops } : { problem: `${text} hops is too many` }
  }
  const entries = text.split(',').map((entry) => entry.trim())
  for (const entry of entries) {
    const address = entry.split('/')[0] as string
    const named = ['loopback', 'linklocal', 'uniquelocal'].includes(entry)
    if (!named && isIP(address) === 0)
      return { problem: `"${entry}" is not an IP address or CIDR; ${TRUST_PROXY_FORMS}` }
  }
  try {
    proxyAddr.compile(entries)
  } catch (error) {
    return { problem: `${(error as Error).message}; ${TRUST_PROXY_FORMS}` }
  }
  return { trust: entries }
}

/** The entries of a comma-separated list setting, trimmed, empty ones dropped. */
function commaSeparated(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
}

const ADDRESS_HASH_KEY_MIN_LENGTH = 32

/** An address, or a display name and an address in angle brackets; no line breaks (no header injection). */
const MAIL_FROM_FORM = /^(?:[^\r\n<>@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/
const MAKE_ADDRESS_HASH_KEY = 'make one with `openssl rand -hex 32`'

/** Why a server with DATABASE_URL will not start with /metrics open, and the two ways to close it. */
const METRICS_CLOSED =
  'with DATABASE_URL, /metrics must not be open to anyone who reaches the port: set METRICS_TOKEN ' +
  '(at least 16 characters; Prometheus then sends `Authorization: Bearer <token>`), or METRICS_PORT ' +
  '(then /metrics is served only on 127.0.0.1:METRICS_PORT, and not on PORT)'

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().optional(),
  /**
   * Streaming read replicas of DATABASE_URL, comma-separated: nearest-site lookups and the site table are
   * read there, spread over the healthy ones; everything else stays on the primary. Unset = primary only.
   */
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((value, context) => {
      const urls = commaSeparated(value)
      for (const url of urls) {
        if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url))
          context.addIssue({ code: 'custom', message: 'expected postgres:// URLs separated by commas' })
      }
      return urls
    })
    .default([]),
  /** A replica whose replay lags the primary by more than this is left out until it catches up. */
  REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
  /** How often each replica's health (reachable, in recovery, replay lag) is checked. */
  REPLICA_CHECK_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /**
   * Redis Cluster seed nodes, comma-separated host:port. When set, REDIS_URL is not used: quotas, the job
   * queue and workers all count and queue on the cluster.
   */
  REDIS_CLUSTER_NODES: z
    .string()
    .transform((value, context) => {
      const nodes = commaSeparated(value).map((node) => {
        const match = /^(\[[0-9a-f:.]+\]|[^:\s]+):(\d{1,5})$/i.exec(node)
        const port = Number(match?.[2])
        if (!match || port < 1 || port > 65535) {
          context.addIssue({ code: 'custom', message: `"${node}" is not host:port` })
          return { host: '', port: 0 }
        }
        return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port }
      })
      if (nodes.length === 0) context.addIssue({ code: 'custom', message: 'expected host:port seeds' })
      return nodes
    })
    .optional(),
  /** Namespace for quota counters in Redis, so several deployments (or test runs) can share one server. */
  QUOTA_KEY_PREFIX: z.string().min(1).max(100).default('survival:quota:'),
  SEARCH_RADIUS_KM: z.coerce.number().positive().max(100).default(DEFAULT_SEARCH_RADIUS_KM),
  /**
   * Sites whose attributes a process keeps in memory (~0.3 KB of heap each, LRU), so a nearest-site
   * lookup reads only ids and distances while most of its sites are held; 0 reads every site's row each
   * time.
   */
  SITE_CACHE_SITES: z.coerce.number().int().min(0).max(10_000_000).default(DEFAULT_SITE_CACHE_SITES),
  /**
   * memory: each process holds every active site's id and coordinates (48 bytes a site) and finds the
   * nearest site itself, so a lookup whose sites are cached asks the database nothing; off: every lookup
   * runs the KNN statement. Needs the site cache (SITE_CACHE_SITES above 0).
   */
  SITE_INDEX: z.enum(['memory', 'off']).default('memory'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  /** Longest a request waits on one database query before it answers 503 service_unavailable. */
  DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  /** Longest a request waits on Redis before the quota falls back to this process's memory. */
  REDIS_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(1000),
  /** Server processes on this host (node:cluster); needs DATABASE_URL and REDIS_URL (or REDIS_CLUSTER_NODES) when above 1. */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  /** Requests served at once per process; more are shed with 503 + Retry-After instead of queueing. */
  MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).default(512),
  /** Longest a graceful shutdown waits for in-flight requests. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  /** Where the embedded store keeps its migrated-and-seeded snapshot between starts; 'off' disables it. */
  EMBEDDED_CACHE_DIR: z.string().min(1).default('.data'),
  /**
   * Bearer token that /metrics requires (wherever it is served). A server with DATABASE_URL needs it or
   * METRICS_PORT; only without DATABASE_URL (the embedded development store) may /metrics be open.
   */
  METRICS_TOKEN: z.string().min(16).optional(),
  /**
   * /metrics on a port of its own, bound to 127.0.0.1, and no longer on PORT. With WEB_CONCURRENCY > 1
   * the workers share it as they share PORT (node:cluster): each scrape is answered by one worker.
   */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * The server's secret for client addresses: they are kept and counted only as HMAC-SHA-256 under it.
   * Required to serve with DATABASE_URL (see serverConfig); at least 32 characters.
   */
  ADDRESS_HASH_KEY: z
    .string()
    .min(
      ADDRESS_HASH_KEY_MIN_LENGTH,
      `must be at least ${ADDRESS_HASH_KEY_MIN_LENGTH} characters; ${MAKE_ADDRESS_HASH_KEY}`,
    )
    .optional(),
  /**
   * The mail server that self-service keys go out through: smtp:// or smtps://, with any credentials in
   * the URL (smtps://user:password@mail.example.org:465). Without it, POST /keys is off with
   * DATABASE_URL, and the embedded development store writes the messages to the log instead.
   */
  SMTP_URL: z
    .url({ error: 'must be a URL such as smtps://user:password@mail.example.org:465' })
    .refine((url) => /^smtps?:\/\//i.test(url), 'must start with smtp:// or smtps://')
    .optional(),
  /** The sender of key mail: `keys@example.org` or `Survival API <keys@example.org>`; required with SMTP_URL. */
  MAIL_FROM: z
    .string()
    .max(200)
    .regex(MAIL_FROM_FORM, 'must be an address, or a name and an address in <>, on one line')
    .optional(),
  /**
   * The service's public address, which links in key mail point to (https://api.example.org). Never
   * taken from a request's Host header, which a caller chooses. Required with SMTP_URL and
   * DATABASE_URL; the embedded store uses http://localhost:PORT.
   */
  PUBLIC_URL: z
    .url({ error: 'must be a URL such as https://api.example.org' })
    .refine((url) => {
      const parsed = URL.parse(url)
      return parsed === null || (/^https?:$/.test(parsed.protocol) && !parsed.search && !parsed.hash)
    }, 'must be an http:// or https:// URL with no query or fragment')
    .optional(),
  /** Self-service key requests (POST /keys) taken from one client address per hour, whatever they come to. */
  SPORE_KEYS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(5),
  /** Self-service key requests per hour over all addresses (each is a message sent): the ceiling against a flood. */
  SPORE_KEYS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(500),
  /**
   * Longest a key's standing is served from a process's memory. Key changes reach every process within
   * a second over PostgreSQL LISTEN/NOTIFY; this is the backstop while that channel is down.
   */
  KEY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  /** The proxies believed about the client's address (see TrustProxy); default none. */
  TRUST_PROXY: z
    .string()
    .transform((value, context): TrustProxy => {
      const parsed = parseTrustProxy(value)
      if ('trust' in parsed) return parsed.trust
      context.addIssue({ code: 'custom', message: parsed.problem })
      return z.NEVER
    })
    .default(false),
  /** The one header those proxies write the client into: X-Forwarded-For or RFC 7239 Forwarded. */
  TRUST_PROXY_HEADER: z
    .string()
    .toLowerCase()
    .pipe(z.enum(['x-forwarded-for', 'forwarded']))
    .default('x-forwarded-for'),
  /** How often each server writes its request counts and keys' last use to PostgreSQL. */
  USAGE_FLUSH_MS: z.coerce.number().int().min(10).max(3_600_000).default(60_000),
  /** Job chunks are scored by workers inside each server; 'false' leaves them to `npm run worker` processes. */
  JOB_WORKERS_IN_SERVER: z
    .enum(['true', 'false', '1', '0'])
    .transform((value) => value === 'true' || value === '1')
    .default(JOB_DEFAULTS.JOB_WORKERS_IN_SERVER),
  /** Chunks one worker process scores at once. */
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(JOB_DEFAULTS.JOB_CONCURRENCY),
  /** Rows per chunk: one batch through the prediction service, one KNN statement. */
  JOB_CHUNK_ROWS: z.coerce.number().int().min(10).max(5000).default(JOB_DEFAULTS.JOB_CHUNK_ROWS),
  /** Attempts per chunk before its job fails. */
  JOB_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(JOB_DEFAULTS.JOB_ATTEMPTS),
  /** A worker silent this long is presumed dead and its chunk goes to another (BullMQ lock). */
  JOB_LOCK_MS: z.coerce.number().int().min(500).max(600_000).default(JOB_DEFAULTS.JOB_LOCK_MS),
  /** How long a job and its results are kept, hours. */
  JOB_RESULT_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(JOB_DEFAULTS.JOB_RESULT_TTL_HOURS),
  /** Namespace of the job queue's keys in Redis. */
  JOB_QUEUE_PREFIX: z.string().min(1).max(100).default(JOB_DEFAULTS.JOB_QUEUE_PREFIX),
  GRAPHIQL: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((value) => value === 'true' || value === '1'),
  /** The explorer page at / and /explorer (map, charts, ranking); 'false' leaves only the API. */
  EXPLORER: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((value) => value === 'true' || value === '1'),
  /** survivalMap calls a minute per key (GraphQL; each may evaluate the model at every site once). */
  SURVIVAL_MAP_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(10),
  /**
   * Survival maps kept in memory: this many per-site survival arrays (8 bytes × sites each, ~144 KB at
   * 18k sites) and as many aggregated maps. 120 would hold every species × method × horizon.
   */
  SURVIVAL_MAP_CACHE_ENTRIES: z.coerce.number().int().min(1).max(1000).default(32),
})

export type Config = z.infer<typeof EnvSchema>

/** Reads and validates configuration from the environment; empty strings count as unset. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  /** `server`: the rules of an API server (`npm start`) too, not only of the tools and job workers. */
  options: { server?: boolean } = {},
): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  )
  const parsed = EnvSchema.superRefine((config, context) => {
    if (config.METRICS_PORT !== undefined && config.METRICS_PORT === config.PORT)
      context.addIssue({
        code: 'custom',
        path: ['METRICS_PORT'],
        message: `must differ from PORT (${config.PORT}): it takes /metrics off the API's port`,
      })
    if (options.server && config.DATABASE_URL && !config.METRICS_TOKEN && config.METRICS_PORT === undefined)
      context.addIssue({
        code: 'custom',
        path: ['METRICS_TOKEN or METRICS_PORT'],
        message: METRICS_CLOSED,
      })
    if (config.SMTP_URL && !config.MAIL_FROM)
      context.addIssue({
        code: 'custom',
        path: ['MAIL_FROM'],
        message: 'required with SMTP_URL: the sender of key mail, e.g. "Survival API <keys@example.org>"',
      })
    if (config.SMTP_URL && config.DATABASE_URL && !config.PUBLIC_URL)
      context.addIssue({
        code: 'custom',
        path: ['PUBLIC_URL'],
        message:
          'required with SMTP_URL and DATABASE_URL: the address links in key mail point to, e.g. https://api.example.org',
      })
    if (config.DATABASE_REPLICA_URLS.length > 0 && !config.DATABASE_URL)
      context.addIssue({
        code: 'custom',
        path: ['DATABASE_REPLICA_URLS'],
        message: 'replicas need DATABASE_URL, their primary (the embedded store has none)',
      })
  }).safeParse(cleaned)
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ')
    throw new Error(`Invalid configuration: ${problems}`)
  }
  return parsed.data
}

/** A server's configuration: the secret client addresses are hashed under is always there. */
export type ServerConfig = Config & { ADDRESS_HASH_KEY: string }

/**
 * The configuration an API server runs with. With DATABASE_URL, ADDRESS_HASH_KEY is required: the
 * stored hashes of client addresses must stay comparable across processes and restarts, and the secret
 * is what makes them irreversible. Without it (the embedded development store, one process) a random
 * one is made for this process.
 */
export function serverConfig(config: Config): ServerConfig {
  if (config.ADDRESS_HASH_KEY) return { ...config, ADDRESS_HASH_KEY: config.ADDRESS_HASH_KEY }
  if (config.DATABASE_URL)
    throw new Error(
      `Invalid configuration: ADDRESS_HASH_KEY: required with DATABASE_URL, a secret of at least ${ADDRESS_HASH_KEY_MIN_LENGTH} characters that client addresses are hashed under (the same for every server process); ${MAKE_ADDRESS_HASH_KEY}`,
    )
  return { ...config, ADDRESS_HASH_KEY: randomBytes(32).toString('hex') }
}

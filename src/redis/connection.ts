import { Cluster, Redis, type RedisOptions } from 'ioredis'
import type { Config } from '../config/config.ts'

/** Where Redis is: one server (REDIS_URL) or a Redis Cluster reached through its seed nodes (REDIS_CLUSTER_NODES). */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: readonly { host: string; port: number }[] }

/** A connection to either: ioredis `Redis` or `Cluster` (both speak the commands, scripts and `status`). */
export type RedisConnection = Redis | Cluster

/** The configured Redis, if any. REDIS_CLUSTER_NODES wins: with it set, REDIS_URL is not used. */
export function redisTarget(
  config: Pick<Config, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>,
): RedisTarget | undefined {
  if (config.REDIS_CLUSTER_NODES && config.REDIS_CLUSTER_NODES.length > 0)
    return { kind: 'cluster', nodes: config.REDIS_CLUSTER_NODES }
  return config.REDIS_URL ? { kind: 'single', url: config.REDIS_URL } : undefined
}

/** What a caller may tune, the same for a single Redis and for each node of a cluster. */
export interface ConnectionOptions {
  /** Concurrent commands share one write to the socket. */
  enableAutoPipelining?: boolean
  /** Retries of one command across reconnections; `null` = until it succeeds (BullMQ workers need it). */
  maxRetriesPerRequest?: number | null
  /** false: a command fails at once while disconnected, instead of waiting for the connection. */
  enableOfflineQueue?: boolean
  /** Delay before reconnecting after `attempt` failures (a single Redis; the whole cluster's topology). */
  retryStrategy?: (attempt: number) => number | null
  /** Connect on the first command instead of at once. */
  lazyConnect?: boolean
}

/**
 * Opens an ioredis connection to the target: a `Redis` for a URL, a `Cluster` for seed nodes. On a cluster
 * the per-node option (`maxRetriesPerRequest`) goes into `redisOptions`; auto-pipelining, the offline
 * queue and the retry strategy belong to the cluster as a whole (it pipelines per node; ioredis keeps a
 * node's own offline queue on and lets a lost node go, waiting for MOVED or a slot refresh to find its
 * successor). Every command goes to the master of its slot
 * (`scaleReads: 'master'`): quota counts and the queue must read their own writes. No `natMap`: the
 * nodes announce the addresses clients reach them at (true on 127.0.0.1 and on managed clusters; a
 * cluster behind NAT or in containers announcing private addresses would need one).
 */
export function openRedis(target: RedisTarget, options: ConnectionOptions = {}): RedisConnection {
  const { enableOfflineQueue, retryStrategy, lazyConnect, ...perNode } = options
  if (target.kind === 'single') {
    return new Redis(target.url, {
      ...perNode,
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      ...(retryStrategy ? { retryStrategy } : {}),
      ...(lazyConnect ? { lazyConnect } : {}),
    } satisfies RedisOptions)
  }
  return new Cluster(
    target.nodes.map(({ host, port }) => ({ host, port })),
    {
      scaleReads: 'master',
      ...(perNode.enableAutoPipelining === undefined
        ? {}
        : { enableAutoPipelining: perNode.enableAutoPipelining }),
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
      ...(lazyConnect ? { lazyConnect } : {}),
      // A failover shows up as MOVED replies; the periodic refresh also catches it where no command goes.
      slotsRefreshInterval: 2000,
      redisOptions: {
        ...(perNode.maxRetriesPerRequest === undefined
          ? {}
          : { maxRetriesPerRequest: perNode.maxRetriesPerRequest }),
      },
    },
  )
}

/** True when a prefix holds a Redis hash tag: a `{` with a non-empty text before the next `}`. */
export function hasHashTag(text: string): boolean {
  const open = text.indexOf('{')
  return open >= 0 && text.indexOf('}', open + 1) > open + 1
}

/**
 * The job queue's key prefix. On a cluster every key of a BullMQ queue must be in one slot (its Lua
 * scripts touch several keys), which the BullMQ docs reach with a hash-tagged prefix: JOB_QUEUE_PREFIX
 * wrapped in braces, unless it already has a `{…}` tag. On a single Redis the prefix is used as written.
 */
export function queuePrefix(prefix: string, target: RedisTarget): string {
  return target.kind === 'cluster' && !hasHashTag(prefix) ? `{${prefix}}` : prefix
}

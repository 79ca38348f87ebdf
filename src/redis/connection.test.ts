import { Cluster, Redis } from 'ioredis'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config/config.ts'
import { hasHashTag, openRedis, queuePrefix, type RedisTarget, redisTarget } from './connection.ts'

const single: RedisTarget = { kind: 'single', url: 'redis://127.0.0.1:6379' }
const cluster: RedisTarget = {
  kind: 'cluster',
  nodes: [
    { host: '10.0.0.1', port: 7000 },
    { host: '10.0.0.2', port: 7001 },
  ],
}

describe('redisTarget', () => {
  const target = (env: Record<string, string>) => redisTarget(loadConfig(env))

  it('is undefined with neither setting: quotas and jobs stay in this process, as before', () => {
    expect(target({})).toBeUndefined()
    expect(target({ REDIS_URL: '', REDIS_CLUSTER_NODES: '' })).toBeUndefined()
  })

  it('is the single Redis of REDIS_URL', () => {
    expect(target({ REDIS_URL: 'redis://cache:6380/2' })).toEqual({
      kind: 'single',
      url: 'redis://cache:6380/2',
    })
  })

  it('is the cluster of REDIS_CLUSTER_NODES, which wins over REDIS_URL', () => {
    expect(target({ REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, redis-b:7001 ,[::1]:7002' })).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    })
    expect(target({ REDIS_URL: 'redis://cache:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' })).toEqual({
      kind: 'cluster',
      nodes: [{ host: '10.0.0.1', port: 7000 }],
    })
  })

  it('refuses seeds that are not host:port', () => {
    expect(() => target({ REDIS_CLUSTER_NODES: '10.0.0.1' })).toThrow(
      /REDIS_CLUSTER_NODES: "10.0.0.1" is not host:port/,
    )
    expect(() => target({ REDIS_CLUSTER_NODES: 'a:70000' })).toThrow(/not host:port/)
    expect(() => target({ REDIS_CLUSTER_NODES: ',' })).toThrow(/expected host:port seeds/)
  })
})

describe('queuePrefix: the job queue on a cluster keeps all its keys in one slot', () => {
  it('leaves the prefix as written on a single Redis', () => {
    expect(queuePrefix('survival:bull', single)).toBe('survival:bull')
    expect(queuePrefix('{survival:bull}', single)).toBe('{survival:bull}')
  })

  it('wraps it in braces on a cluster', () => {
    expect(queuePrefix('survival:bull', cluster)).toBe('{survival:bull}')
    // Empty braces are no hash tag: Redis would hash the whole key, so they are wrapped too.
    expect(queuePrefix('jobs{}', cluster)).toBe('{jobs{}}')
    expect(queuePrefix('a}b{', cluster)).toBe('{a}b{}')
  })

  it('keeps a prefix that already has a {…} tag', () => {
    expect(queuePrefix('{survival:bull}', cluster)).toBe('{survival:bull}')
    expect(queuePrefix('tenant-a:{jobs}', cluster)).toBe('tenant-a:{jobs}')
    expect(queuePrefix('x{a}y{b}', cluster)).toBe('x{a}y{b}')
  })

  it('recognises a hash tag as Redis does: the first { with a non-empty text before the next }', () => {
    expect(hasHashTag('{a}')).toBe(true)
    expect(hasHashTag('a{b}c')).toBe(true)
    expect(hasHashTag('{}')).toBe(false)
    expect(hasHashTag('{}{a}')).toBe(false)
    expect(hasHashTag('}{')).toBe(false)
    expect(hasHashTag('{')).toBe(false)
    expect(hasHashTag('plain')).toBe(false)
  })
})

describe('openRedis', () => {
  it('opens a Redis for a URL, with the options given', () => {
    const redis = openRedis(single, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true })
    try {
      expect(redis).toBeInstanceOf(Redis)
      expect(redis.isCluster).toBe(false)
      expect(redis.options).toMatchObject({ maxRetriesPerRequest: 1, enableOfflineQueue: false })
    } finally {
      redis.disconnect()
    }
  })

  it('opens a Cluster for seed nodes: per-node options in redisOptions, every command on its master', () => {
    const redis = openRedis(cluster, {
      enableAutoPipelining: true,
      maxRetriesPerRequest: null,
      enableOfflineQueue: false,
      lazyConnect: true,
    }) as Cluster
    try {
      expect(redis).toBeInstanceOf(Cluster)
      expect(redis.isCluster).toBe(true)
      expect(redis.options).toMatchObject({
        scaleReads: 'master',
        enableAutoPipelining: true,
        enableOfflineQueue: false,
        redisOptions: { maxRetriesPerRequest: null },
      })
      expect(redis.options.natMap).toBeUndefined()
      expect(redis.status).toBe('wait')
    } finally {
      redis.disconnect()
    }
  })
})

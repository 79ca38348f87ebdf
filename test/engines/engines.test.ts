import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { Cluster } from 'ioredis'
import postgres from 'postgres'
import { afterAll, describe, expect, it } from 'vitest'
import { type PostgresWithReplica, startPostgresWithReplica } from '../../scripts/engines/postgres-replica.ts'
import { isAlive } from '../../scripts/engines/processes.ts'
import { type RedisCluster, startRedisCluster } from '../../scripts/engines/redis-cluster.ts'
import { eventually } from '../support/waiting.ts'

// The engines are started and stopped by the tests themselves; afterAll only cleans up after a failure.
let pg: PostgresWithReplica | undefined
let redis: RedisCluster | undefined

afterAll(async () => {
  await pg?.stop()
  await redis?.stop()
})

describe('scripts/engines.ts', () => {
  it('starts a PostgreSQL primary with a streaming replica, and stops both', {
    timeout: 90_000,
  }, async () => {
    pg = await startPostgresWithReplica()
    console.log(`PostgreSQL primary + replica started in ${pg.startupMs} ms`)
    expect(pg.pids).toHaveLength(2)
    expect(pg.primaryUrl).not.toContain(':5432/')
    expect(pg.replicaUrl).not.toContain(':5432/')

    const primary = postgres(pg.primaryUrl, { max: 1, onnotice: () => {} })
    const replica = postgres(pg.replicaUrl, { max: 1, onnotice: () => {} })
    try {
      expect((await primary`SELECT pg_is_in_recovery() AS r`)[0]?.r).toBe(false)
      expect((await replica`SELECT pg_is_in_recovery() AS r`)[0]?.r).toBe(true)
      const senders = await primary`SELECT state, client_addr FROM pg_stat_replication`
      expect(senders).toHaveLength(1)
      expect(senders[0]?.state).toBe('streaming')

      const marker = `row-${Date.now()}`
      await primary`CREATE TABLE engines_check (v text)`
      await primary`INSERT INTO engines_check VALUES (${marker})`
      const seen = await eventually(
        async () => {
          try {
            const rows = await replica`SELECT v FROM engines_check`
            return rows[0]?.v === marker
          } catch {
            return false // the table itself may not have been replayed yet
          }
        },
        5000,
        50,
      )
      expect(seen).toBe(true)
      await expect(replica`INSERT INTO engines_check VALUES ('x')`).rejects.toThrow(/read-only/)
    } finally {
      await primary.end()
      await replica.end()
    }

    const { pids, dataDir } = pg
    await pg.stop()
    pg = undefined
    expect(pids.filter(isAlive)).toEqual([])
    expect(existsSync(dataDir)).toBe(false)
  })

  it('starts a Redis Cluster of 3 masters and 3 replicas, and stops it', { timeout: 90_000 }, async () => {
    redis = await startRedisCluster()
    console.log(`Redis Cluster started in ${redis.startupMs} ms`)
    expect(redis.nodes).toHaveLength(6)
    expect(redis.pids).toHaveLength(6)
    expect(redis.nodes).not.toContain('127.0.0.1:6379')

    const [host, port] = (redis.nodes[0] as string).split(':')
    const roles = () => {
      const out = spawnSync('redis-cli', ['-h', host as string, '-p', port as string, 'CLUSTER', 'NODES'], {
        encoding: 'utf8',
      }).stdout
      const lines = out.trim().split('\n')
      return {
        masters: lines.filter((line) => line.split(' ')[2]?.includes('master')).length,
        replicas: lines.filter((line) => line.split(' ')[2]?.includes('slave')).length,
      }
    }
    expect(await eventually(() => roles().masters === 3 && roles().replicas === 3, 10_000, 100)).toBe(true)

    const cluster = new Cluster(
      redis.nodes.map((node) => {
        const [nodeHost, nodePort] = node.split(':')
        return { host: nodeHost as string, port: Number(nodePort) }
      }),
    )
    try {
      // Keys in different slots, so they land on different masters.
      for (const key of ['engines:a', 'engines:b', 'engines:c']) await cluster.set(key, `value-of-${key}`)
      for (const key of ['engines:a', 'engines:b', 'engines:c'])
        expect(await cluster.get(key)).toBe(`value-of-${key}`)
    } finally {
      cluster.disconnect()
    }
    // Through a single node with redis-cli -c, following the MOVED redirections.
    const viaCli = redis.nodes.map((node) => {
      const [nodeHost, nodePort] = node.split(':')
      return spawnSync(
        'redis-cli',
        ['-c', '-h', nodeHost as string, '-p', nodePort as string, 'GET', 'engines:b'],
        {
          encoding: 'utf8',
        },
      ).stdout.trim()
    })
    expect(new Set(viaCli)).toEqual(new Set(['value-of-engines:b']))

    const { pids, dataDir } = redis
    await redis.stop()
    redis = undefined
    expect(pids.filter(isAlive)).toEqual([])
    expect(existsSync(dataDir)).toBe(false)
  })
})

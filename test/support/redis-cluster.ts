import { Redis } from 'ioredis'
import type { RedisCluster } from '../../scripts/engines/redis-cluster.ts'
import { eventually } from './waiting.ts'

/**
 * Looking into a Redis Cluster of scripts/engines.ts from a test: which master holds a slot, its
 * replicas, a failover on demand. Each question goes to one node over a plain connection (CLUSTER …),
 * never through the cluster client under test.
 */

/** REDIS_CLUSTER_NODES for the cluster: its nodes as `host:port,…`. */
export function clusterNodesSetting(cluster: RedisCluster): string {
  return cluster.nodes.join(',')
}

/** Runs `use` with a plain connection to one node (`host:port`), closed afterwards. */
export async function withNode<T>(node: string, use: (redis: Redis) => Promise<T>): Promise<T> {
  const [host, port] = node.split(':')
  const redis = new Redis({ host, port: Number(port), maxRetriesPerRequest: 1, lazyConnect: true })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return await use(redis)
  } finally {
    redis.disconnect()
  }
}

export interface ClusterNodeInfo {
  id: string
  /** `host:port` */
  address: string
  role: 'master' | 'replica'
  /** The master a replica follows ('' for a master). */
  masterId: string
  /** Marked failing (fail or fail?) by the node asked. */
  failing: boolean
  /** Slot ranges served, inclusive. */
  slots: [number, number][]
}

/** CLUSTER NODES as one node sees it. */
export async function clusterTopology(node: string): Promise<ClusterNodeInfo[]> {
  const text = (await withNode(node, (redis) => redis.call('CLUSTER', 'NODES'))) as string
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, addr, flags, masterId, , , , , ...slots] = line.split(' ')
      const flagList = (flags ?? '').split(',')
      return {
        id: id as string,
        address: (addr ?? '').split('@')[0] as string,
        role: flagList.includes('master') ? 'master' : 'replica',
        masterId: masterId === '-' ? '' : (masterId ?? ''),
        failing: flagList.includes('fail') || flagList.includes('fail?'),
        slots: slots
          .filter((range) => !range.startsWith('['))
          .map((range) => {
            const [start, end] = range.split('-').map(Number)
            return [start as number, (end ?? start) as number]
          }),
      } satisfies ClusterNodeInfo
    })
}

/** The hash slot of a key (CLUSTER KEYSLOT, asked of a node). */
export function keySlot(node: string, key: string): Promise<number> {
  return withNode(node, async (redis) => Number(await redis.call('CLUSTER', 'KEYSLOT', key)))
}

/** The master serving `slot`, and its replicas, as `asking` (a live node) sees them. */
export async function shardOf(
  asking: string,
  slot: number,
): Promise<{ master: ClusterNodeInfo; replicas: ClusterNodeInfo[] }> {
  const nodes = await clusterTopology(asking)
  const master = nodes.find(
    (node) => node.role === 'master' && node.slots.some(([start, end]) => slot >= start && slot <= end),
  )
  if (!master) throw new Error(`no master serves slot ${slot}`)
  return { master, replicas: nodes.filter((node) => node.masterId === master.id) }
}

/**
 * How soon the nodes call a silent master failed and promote its replica (cluster-node-timeout; Redis's
 * default 15 s would make a killed master's test wait that long). Set on every live node.
 */
export async function setNodeTimeout(cluster: RedisCluster, ms: number): Promise<void> {
  await Promise.all(
    cluster.nodes.map((node) =>
      withNode(node, (redis) => redis.call('CONFIG', 'SET', 'cluster-node-timeout', String(ms))),
    ),
  )
}

/** Waits until `node` (a live node) says cluster_state:ok and a master other than `formerMaster` serves `slot`. */
export async function failedOver(
  node: string,
  slot: number,
  formerMaster: string,
  timeoutMs = 30_000,
): Promise<boolean> {
  return eventually(
    async () => {
      const info = (await withNode(node, (redis) => redis.call('CLUSTER', 'INFO'))) as string
      if (!info.includes('cluster_state:ok')) return false
      return (await shardOf(node, slot)).master.address !== formerMaster
    },
    timeoutMs,
    100,
  )
}

/**
 * Real engines on 127.0.0.1 without Docker, for tests and benchmarks: a PostgreSQL 15 primary with one
 * streaming replica, and a Redis 7 Cluster of 3 masters and 3 replicas. Each lives in a fresh temporary
 * directory on free ports and is stopped by its own PIDs (never by process name); the machine's own
 * PostgreSQL (5432) and Redis (6379) are never touched.
 *
 *   npm run engines:up   # start both, print the URLs and nodes, stop them on Ctrl-C
 */
import { fileURLToPath } from 'node:url'
import { startPostgresWithReplica } from './engines/postgres-replica.ts'
import { startRedisCluster } from './engines/redis-cluster.ts'

async function up(): Promise<void> {
  const [pgResult, redisResult] = await Promise.allSettled([startPostgresWithReplica(), startRedisCluster()])
  if (pgResult.status === 'rejected' || redisResult.status === 'rejected') {
    // The one that did start is stopped before the failure is reported.
    if (pgResult.status === 'fulfilled') await pgResult.value.stop()
    if (redisResult.status === 'fulfilled') await redisResult.value.stop()
    throw pgResult.status === 'rejected' ? pgResult.reason : (redisResult as PromiseRejectedResult).reason
  }
  const pg = pgResult.value
  const redis = redisResult.value
  console.log(`PostgreSQL primary  ${pg.primaryUrl}`)
  console.log(`PostgreSQL replica  ${pg.replicaUrl}`)
  console.log(`  data ${pg.dataDir}, PIDs ${pg.pids.join(' ')}, started in ${pg.startupMs} ms`)
  console.log(`Redis Cluster       ${redis.nodes.join(' ')}`)
  console.log(`  data ${redis.dataDir}, PIDs ${redis.pids.join(' ')}, started in ${redis.startupMs} ms`)
  console.log('Ctrl-C stops them.')
  // Listeners stay for the whole stop: tsx (and npm) relay the signal again, and a process with no
  // listener left would exit mid-stop and leave the engines running.
  let stopping = false
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      if (stopping) return
      stopping = true
      resolve()
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  })
  console.log('stopping…')
  await Promise.all([pg.stop(), redis.stop()])
  console.log('stopped')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2]
  if (command !== 'up') {
    console.error('usage: npm run engines:up')
    process.exit(2)
  }
  up().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
}

import cluster from 'node:cluster'
import type { Logger } from '../logging/logger.ts'

/**
 * WEB_CONCURRENCY > 1: a primary process forks that many servers sharing the port (node:cluster),
 * replaces any that die, and on SIGTERM/SIGINT asks each to shut down gracefully.
 */
export function runPrimary(workers: number, logger: Logger): void {
  let stopping = false
  for (let i = 0; i < workers; i++) cluster.fork()
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0)
      return
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting a replacement')
    cluster.fork()
  })
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    logger.info({ signal, workers }, 'stopping workers')
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal)
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}

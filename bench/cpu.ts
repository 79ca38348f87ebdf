/**
 * CPU time per process group over one load run: the server under test, the PostgreSQL backends serving its
 * database, redis-server, the load generator (autocannon runs inside this process), and the share of the
 * machine's CPU left idle, all from /proc.
 */
import type postgres from 'postgres'
import { pidsOf, readCpuMs, readCpuMsOf, readMachineCpu } from './support.ts'

export interface CpuUse {
  serverMs: number | null
  postgresMs: number
  redisMs: number
  loadGeneratorMs: number
  /** Share of the machine's CPU time (all cores) spent idle during the run, 0 to 1. */
  idleShare: number
}

/** How often the list of PostgreSQL backends is refreshed: pools open connections while the load runs. */
const BACKEND_POLL_MS = 500

/**
 * The CPU of the backends connected to one database. A backend first seen after the start was opened
 * during the run, so all its CPU counts; one that closes between two polls loses at most one interval.
 */
class BackendCpu {
  private readonly startMs = new Map<number, number>()
  private readonly lastMs = new Map<number, number>()
  private timer: NodeJS.Timeout | null = null
  private polling: Promise<void> = Promise.resolve()

  constructor(
    private readonly admin: postgres.Sql,
    private readonly database: string,
  ) {}

  async start(): Promise<void> {
    for (const pid of await this.backendPids()) {
      const ms = readCpuMs(pid) ?? 0
      this.startMs.set(pid, ms)
      this.lastMs.set(pid, ms)
    }
    this.timer = setInterval(() => {
      this.polling = this.poll()
    }, BACKEND_POLL_MS)
  }

  async stop(): Promise<number> {
    if (this.timer) clearInterval(this.timer)
    await this.polling
    await this.poll()
    let total = 0
    for (const [pid, last] of this.lastMs) total += last - (this.startMs.get(pid) ?? 0)
    return total
  }

  private async poll(): Promise<void> {
    const pids = await this.backendPids().catch(() => [])
    for (const pid of new Set([...pids, ...this.lastMs.keys()])) {
      const ms = readCpuMs(pid)
      if (ms !== null) this.lastMs.set(pid, ms)
    }
  }

  private async backendPids(): Promise<number[]> {
    const rows = await this.admin<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity WHERE datname = ${this.database} AND backend_type = 'client backend'`
    return rows.map((row) => row.pid)
  }
}

/** Starts measuring; the returned function ends the window and gives the CPU each group used in it. */
export async function openCpuWindow(
  serverPid: number,
  database: string,
  admin: postgres.Sql,
): Promise<() => Promise<CpuUse>> {
  const backends = new BackendCpu(admin, database)
  await backends.start()
  const redisPids = pidsOf('redis-server')
  const serverBefore = readCpuMs(serverPid)
  const redisBefore = readCpuMsOf(redisPids)
  const selfBefore = process.cpuUsage()
  const machineBefore = readMachineCpu()
  return async () => {
    const serverAfter = readCpuMs(serverPid)
    const redisAfter = readCpuMsOf(redisPids)
    const self = process.cpuUsage(selfBefore)
    const machineAfter = readMachineCpu()
    const total = machineAfter.total - machineBefore.total
    return {
      serverMs: serverBefore !== null && serverAfter !== null ? serverAfter - serverBefore : null,
      postgresMs: await backends.stop(),
      redisMs: redisAfter - redisBefore,
      loadGeneratorMs: (self.user + self.system) / 1000,
      idleShare: total > 0 ? (machineAfter.idle - machineBefore.idle) / total : 0,
    }
  }
}

/** Shared helpers of the benchmarks: child processes, ports, databases, Redis keys, health polling, CPU, RSS, statistics, a seeded PRNG. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import postgres from 'postgres'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const ADMIN_DATABASE_URL =
  process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'

export function randomSuffix(): string {
  return randomBytes(5).toString('hex')
}

/**
 * The median over rounds of one arm's rps against the other's in the same round (the arms take turns,
 * so each pair ran back to back): a slowdown of the whole machine for a while weighs on both sides of a
 * pair alike, where a ratio of the two medians can set a slow stretch of one arm against a quick one of
 * the other. NaN when the arms ran a different number of rounds, or none.
 */
export function pairedRpsRatio(of: readonly { rps: number }[], to: readonly { rps: number }[]): number {
  if (of.length === 0 || of.length !== to.length) return Number.NaN
  return median(of.map((round, at) => round.rps / (to[at] as { rps: number }).rps))
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}

/** The machine's 1, 5 and 15 minute load averages, to two decimals. */
export function loadAverages(): number[] {
  return loadavg().map((load) => round(load, 2))
}

/** Deterministic PRNG (mulberry32), so every run sends the same points. */
export function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The test suite's own helper: the bench and the tests find free ports the same way. */
export { freePort } from '../test/support/net.ts'

/** A fresh, empty database on the admin server; returns its URL and a dropper. */
export async function createDatabase(
  prefix: string,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomSuffix()}`
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(ADMIN_DATABASE_URL)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const cleanup = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
      try {
        await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await cleanup.end()
      }
    },
  }
}

/** Every key matching pattern (a SCAN glob) in the Redis database of url. */
export async function listRedisKeys(url: string, pattern: string): Promise<string[]> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 })
  const found: string[] = []
  try {
    let cursor = '0'
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500)
      cursor = nextCursor
      found.push(...keys)
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
  return found
}

/** Deletes the given keys from the Redis database of url; returns how many existed. */
export async function deleteRedisKeys(url: string, keys: readonly string[]): Promise<number> {
  if (keys.length === 0) return 0
  const redis = new Redis(url, { maxRetriesPerRequest: 1 })
  try {
    return await redis.del(...keys)
  } finally {
    redis.disconnect()
  }
}

export interface Child {
  name: string
  process: ChildProcess
  pid: number
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<number | string>
  stop(): Promise<void>
}

/**
 * Spawns `node <script>` (`node --import tsx <script>` for TypeScript) from the project root with the given environment. Its output is
 * forwarded line by line with a [name] prefix, at most maxLines lines (a flood of warnings under load
 * would distort the measurement and bury the report).
 */
export function spawnNode(
  name: string,
  script: string,
  env: Record<string, string | undefined>,
  options: { maxLines?: number; quiet?: boolean; nodeArgs?: string[]; onLine?: (line: string) => void } = {},
): Child {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), script],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  if (!child.pid) throw new Error(`could not start ${name}`)
  let lines = 0
  const maxLines = options.maxLines ?? 40
  const forward = (chunk: Buffer) => {
    if (options.quiet && !options.onLine) return
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue
      options.onLine?.(line)
      if (options.quiet) continue
      lines += 1
      if (lines <= maxLines) process.stderr.write(`[${name}] ${line.slice(0, 400)}\n`)
      else if (lines === maxLines + 1) process.stderr.write(`[${name}] … further output suppressed\n`)
    }
  }
  child.stdout?.on('data', forward)
  child.stderr?.on('data', forward)
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'))
  })
  let stopping: Promise<void> | null = null
  return {
    name,
    process: child,
    pid: child.pid,
    exited,
    stop() {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
      stopping ??= (async () => {
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
        await exited
        clearTimeout(timer)
      })()
      return stopping
    },
  }
}

/** Polls url until it answers 200 (or the child exits, or timeoutMs passes). */
export async function waitForHealthy(
  url: string,
  child: Child,
  timeoutMs: number,
  intervalMs = 50,
): Promise<{ ms: number; body: unknown }> {
  const started = performance.now()
  let exitCode: number | string | null = null
  void child.exited.then((code) => {
    exitCode = code
  })
  while (performance.now() - started < timeoutMs) {
    if (exitCode !== null) throw new Error(`${child.name} exited (${exitCode}) before answering ${url}`)
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) })
      if (response.status === 200) return { ms: performance.now() - started, body: await response.json() }
      await response.body?.cancel()
    } catch {
      // not listening yet
    }
    await sleep(intervalMs)
  }
  throw new Error(`${child.name} did not answer 200 at ${url} within ${timeoutMs} ms`)
}

/** Resident set size of a process in MB, from /proc/<pid>/status (null when unreadable). */
export function readRssMb(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : null
  } catch {
    return null
  }
}

/** User + system CPU time a process has used so far, in ms, from /proc/<pid>/stat (null when unreadable). */
export function readCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? ticks * (1000 / CLOCK_TICKS_PER_SECOND) : null
  } catch {
    return null
  }
}
/** USER_HZ: 100 on every mainstream Linux build. */
const CLOCK_TICKS_PER_SECOND = 100

/** Sum of readCpuMs over pids (unreadable ones count 0). */
export function readCpuMsOf(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + (readCpuMs(pid) ?? 0), 0)
}

/** Pids of every process with this executable name (`pidof`); empty when there is none. */
export function pidsOf(name: string): number[] {
  try {
    return execFileSync('pidof', [name], { encoding: 'utf8' }).trim().split(/\s+/).map(Number)
  } catch {
    return []
  }
}

/** A process and its direct children (a postmaster and its backends), from /proc; [] once it has gone. */
export function processAndChildren(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()
    return [pid, ...(children ? children.split(/\s+/).map(Number) : [])]
  } catch {
    return []
  }
}

/** The machine's CPU time so far from /proc/stat's first line, in ticks: all of it, and the idle part (idle + iowait). */
export function readMachineCpu(): { total: number; idle: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? ''
  // cpu user nice system idle iowait irq softirq steal (guest time is already inside user)
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number)
  return {
    total: ticks.reduce((sum, value) => sum + value, 0),
    idle: (ticks[3] ?? 0) + (ticks[4] ?? 0),
  }
}

/** Samples a process's RSS every intervalMs; max() reports the peak since the last reset(). */
export class RssSampler {
  private peak = 0
  private overall = 0
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly pid: number,
    intervalMs = 200,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs)
    this.timer.unref()
  }

  sample(): void {
    const rss = readRssMb(this.pid)
    if (rss === null) return
    this.peak = Math.max(this.peak, rss)
    this.overall = Math.max(this.overall, rss)
  }

  /** Peak since the last reset, then starts a new window. */
  reset(): number {
    this.sample()
    const peak = this.peak
    this.peak = 0
    return peak
  }

  max(): number {
    this.sample()
    return this.overall
  }

  stop(): void {
    clearInterval(this.timer)
  }
}

/** Child processes and ports for the test engines (scripts/engines.ts): run to an end, wait for PIDs to go. */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { freePort } from '../../test/support/net.ts'
import { eventually } from '../../test/support/waiting.ts'

export const HOST = '127.0.0.1'
const KILL_AFTER_MS = 10_000
export const START_TIMEOUT_MS = 30_000

export interface RunResult {
  code: number | null
  output: string
}

/** Runs a command to its end (resolves on exit, not on pipe close: daemons may keep nothing of ours open). */
export function run(
  command: string,
  args: readonly string[],
  timeoutMs = START_TIMEOUT_MS,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk
    })
    child.stderr.on('data', (chunk) => {
      output += chunk
    })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${command} ${args.join(' ')} took over ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      // Let the pipes drain what the process wrote just before it exited.
      setImmediate(() => resolve({ code, output }))
    })
  })
}

export async function runOk(command: string, args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await run(command, args, timeoutMs)
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited with ${result.code}:\n${result.output}`)
  return result.output
}

/** A PostgreSQL binary run as the postgres OS user (we are root; PostgreSQL refuses to run as root). */
/** True while a process with this PID exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** Waits for every PID to be gone; SIGKILLs those still there after `timeoutMs`, then waits again. */
export async function waitForExit(pids: readonly number[], timeoutMs = KILL_AFTER_MS): Promise<void> {
  const gone = () => pids.every((pid) => !isAlive(pid))
  if (await eventually(gone, timeoutMs, 50)) return
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  if (!(await eventually(gone, 5000, 50)))
    throw new Error(`processes ${pids.filter(isAlive).join(', ')} survived SIGKILL`)
}

/** True when nothing listens on 127.0.0.1:port. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, HOST, () => server.close(() => resolve(true)))
  })
}

export async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>()
  while (ports.size < count) ports.add(await freePort())
  return [...ports]
}

import { type ChildProcess, spawn } from 'node:child_process'
import { TEST_ADDRESS_HASH_KEY } from './address-hash-key.ts'
import { TEST_METRICS_TOKEN } from './metrics-token.ts'
import { answersHealth, freePort } from './net.ts'
import { eventually } from './waiting.ts'

export interface ServerProcess {
  child: ChildProcess
  url: string
  output: () => string
  /** SIGTERM (or the given signal) and the exit code; SIGKILL if it has not exited after 15 s. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** `npm start`: src/wiring/main.ts under tsx. */
export const SOURCE_ENTRY = ['--import', 'tsx', 'src/wiring/main.ts']

const KILL_AFTER_MS = 15_000

/**
 * The server in a child process (`npm start`'s entry point unless `entry` names another, e.g. a
 * compiled main.js) on a free port, ready once /v1/health answers.
 */
export async function startServerProcess(
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  entry: readonly string[] = SOURCE_ENTRY,
): Promise<ServerProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, entry, {
    env: {
      ...process.env,
      DATABASE_URL: undefined,
      REDIS_URL: undefined,
      LOG_LEVEL: 'warn',
      // A server with DATABASE_URL needs one; a test may still unset it (ADDRESS_HASH_KEY: undefined).
      ...(env.DATABASE_URL ? { ADDRESS_HASH_KEY: TEST_ADDRESS_HASH_KEY } : {}),
      // Nor will it start with /metrics open: a token, unless the test sets (or unsets) its own.
      ...(env.DATABASE_URL ? { METRICS_TOKEN: TEST_METRICS_TOKEN } : {}),
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = collectOutput(child)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS)
      exited.finally(() => clearTimeout(timer))
    }
    return exited
  }
  const up = await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`server exited early:\n${output()}`)
      return answersHealth(url)
    },
    timeoutMs,
    250,
  )
  if (!up) {
    child.kill('SIGKILL')
    throw new Error(`server did not answer /v1/health within ${timeoutMs} ms:\n${output()}`)
  }
  return { child, url, output, stop }
}

/** `npm run worker` (src/wiring/worker.ts under tsx) in a child process; resolves once it says it started. */
export async function startWorkerProcess(env: Record<string, string | undefined>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/wiring/worker.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = collectOutput(child)
  const started = await eventually(() => {
    if (child.exitCode !== null) throw new Error(`worker exited:\n${output()}`)
    return output().includes('job worker started')
  }, 30_000)
  if (!started) throw new Error(`worker did not start:\n${output()}`)
  return child
}

/** Everything the child writes to stdout and stderr, as it arrives. */
function collectOutput(child: ChildProcess): () => string {
  let output = ''
  const append = (chunk: Buffer | string) => {
    output += chunk
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  return () => output
}

/** SIGKILL: the process dies mid-work, as on a crash; resolves once it has exited. */
export function killProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}
